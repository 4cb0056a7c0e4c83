"""Memory a kernel allocates, and memory a Python function it calls is given."""

from __future__ import annotations

import pytest

from .isolated import TARGETS, run

GIB = 1 << 30


@pytest.mark.parametrize("target", TARGETS)
def test_an_allocation_that_fails_is_a_memory_error_naming_the_buffer(target):
    # B is n x n float32: 2^34 elements, 64 GiB, in an address space capped at 16 GiB.
    got = run("""
        def main(target):
            n = te.var("n")
            A = te.placeholder((n,), name="A")
            B = te.compute((n, n), lambda i, j: A[i] + A[j], name="B")
            k = te.reduce_axis((0, n), name="k")
            C = te.compute((n,), lambda i: te.sum(B[i, k], axis=k), name="C")
            f = build(te.create_schedule(C.op), [A, C], target=target)
            c = np.zeros(4, "float32")
            f(np.ones(4, "float32"), c)  # a small call first: the kernel works
            assert c.tolist() == [8, 8, 8, 8]
            f(np.ones(1 << 17, "float32"), np.zeros(1 << 17, "float32"))
        """, target, memory=16 * GIB)
    assert got.error == "MemoryError", got
    assert "'B'" in got.message and str(4 << 34) in got.message, got.message


def test_a_compile_that_takes_too_long_is_a_lowering_error(monkeypatch, tmp_path):
    import schedule as te
    from lower import LoweringError, build
    from lower.backend.c import compile as compile_module

    if compile_module.find_compiler() is None:
        pytest.skip("no C compiler")
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(compile_module, "COMPILE_TIMEOUT", 0.001)
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    with pytest.raises(LoweringError, match="did not finish within 0.001 s"):
        build(te.create_schedule(B.op), [A, B], target="c")
    assert not list((tmp_path / "cache").glob("tmp*")), "the compile's temporary directory is removed"
