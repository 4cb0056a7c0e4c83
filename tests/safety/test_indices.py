"""Indices a kernel computes from data: checked before the access on every target, in 64-bit
arithmetic, so a bad one is an OutOfBoundsError and never a read or write elsewhere."""

from __future__ import annotations

import pytest

from .isolated import TARGETS, run

GATHER = """
    def main(target):
        n = te.var("n")
        L = te.var("L")
        I = te.placeholder((4,), "int32", name="I")
        A = te.placeholder((L,), name="A")
        B = te.compute((4,), lambda i: A[I[i] * n], name="B")
        f = build(te.create_schedule(B.op), [I, A, B, n], target=target)
        a = np.arange(3 * 70000, dtype="float32")
        b = np.zeros(4, "float32")
        f(np.array([0, 2, 1, 2], "int32"), a, b, 70000)
        assert b.tolist() == [0, 140000, 70000, 140000]
        f(np.array([0, {index}, 1, 2], "int32"), a, b, 70000)
    """


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("index", [40000, 3, -1])
def test_a_gathered_index_outside_the_array_is_out_of_bounds(index, target):
    # I[i] * n = 40000 * 70000 passes 2^31: in 32-bit arithmetic it wrapped and C read far away.
    got = run(GATHER.format(index=index), target)
    assert got.error == "OutOfBoundsError", got
    assert "out-of-bounds read of A" in got.message and "[0, 210000)" in got.message


@pytest.mark.parametrize("target", TARGETS)
def test_a_gather_from_a_two_dimensional_array_checks_each_dimension(target):
    # Row 0, column 5 of a 4 x 4 array is element 5, inside the storage: still out of bounds.
    got = run("""
        def main(target):
            J = te.placeholder((2,), "int32", name="J")
            A = te.placeholder((4, 4), name="A")
            B = te.compute((2,), lambda i: A[i, J[i]], name="B")
            f = build(te.create_schedule(B.op), [J, A, B], target=target)
            f(np.array([1, 5], "int32"), np.zeros((4, 4), "float32"), np.zeros(2, "float32"))
        """, target)
    assert got.error == "OutOfBoundsError", got
    assert "[0, 4)" in got.message


@pytest.mark.parametrize("target", TARGETS)
def test_a_scatter_outside_its_output_is_out_of_bounds(target):
    got = run("""
        def scatter(idx, val, out):
            ib = te.ir_builder.create()
            i_, v, o = ib.buffer_ptr(idx), ib.buffer_ptr(val), ib.buffer_ptr(out)
            with ib.for_range(0, 4, name="i") as i:
                o[i_[i]] = v[i]
            return ib.get()

        def main(target):
            Idx = te.placeholder((4,), "int32", name="Idx")
            V = te.placeholder((4,), name="V")
            O = te.extern((8,), [Idx, V], lambda ins, outs: scatter(ins[0], ins[1], outs[0]), name="O",
                          dtype="float32")
            f = build(te.create_schedule(O.op), [Idx, V, O], target=target)
            o = np.zeros(8, "float32")
            f(np.array([7, 0, 3, 5], "int32"), np.arange(1, 5, dtype="float32"), o)
            assert o.tolist() == [2, 0, 0, 3, 0, 4, 0, 1]
            f(np.array([7, 0, 1 << 26, 5], "int32"), np.arange(1, 5, dtype="float32"), o)
        """, target)
    assert got.error == "OutOfBoundsError", got
    assert "out-of-bounds write of O" in got.message


@pytest.mark.parametrize("target", TARGETS)
def test_a_loop_in_an_extern_body_that_runs_past_its_buffer_is_out_of_bounds(target):
    # The extern's statements are the user's: no bound inference vouches for their indices.
    got = run("""
        def shifted_copy(src, dst):
            ib = te.ir_builder.create()
            s, d = ib.buffer_ptr(src), ib.buffer_ptr(dst)
            with ib.for_range(0, 8, name="i") as i:
                d[i + (1 << 24)] = s[i]
            return ib.get()

        def main(target):
            A = te.placeholder((8,), name="A")
            B = te.extern((8,), [A], lambda ins, outs: shifted_copy(ins[0], outs[0]), name="B", dtype="float32")
            f = build(te.create_schedule(B.op), [A, B], target=target)
            f(np.ones(8, "float32"), np.zeros(8, "float32"))
        """, target)
    assert got.error == "OutOfBoundsError", got
    assert "out-of-bounds write of B" in got.message
