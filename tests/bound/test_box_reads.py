"""Exact regions found without isl (``bound/box_reads.py``): taken where the reads tile a box,
refused otherwise, and equal to isl's regions either way."""

from __future__ import annotations

import numpy as np
import pytest

import bound.inference.infer as infer_module
import schedule as te
from bound.inference.infer import infer_normalized
from lower import build

from ..loopnest import box, outer_envs


def _pipeline(shape_b, shape_c, read, factor=4):
    """B = A + 1 over *shape_b*, C reads B through *read*, B computed at C's outer loop."""
    A = te.placeholder(shape_b, name="A")
    B = te.compute(shape_b, lambda *i: A[i] + 1.0, name="B")
    C = te.compute(shape_c, lambda *i: read(B, *i), name="C")
    s = te.create_schedule(C.op)
    outer, _ = s[C].split(C.op.axis[0], factor=factor)
    s[B].compute_at(s[C], outer)
    return s, A, B, C


CASES = {
    # name: (shape of B, shape of C, read, the same read in NumPy, a box found without isl?)
    "three_taps": ((18,), (16,), lambda B, i: B[i] + B[i + 1] + B[i + 2],
                   lambda b, i: b[i] + b[i + 1] + b[i + 2], True),
    "grid_3x3": ((10, 10), (8, 8), lambda B, y, x: sum(B[y + dy, x + dx] for dy in range(3) for dx in range(3)),
                 lambda b, y, x: b[y:y + 3, x:x + 3].sum(), True),
    "row_only": ((9, 8), (8, 8), lambda B, y, x: B[y, x] + B[y + 1, x], lambda b, y, x: b[y, x] + b[y + 1, x], True),
    "fixed_column": ((8, 8), (8, 8), lambda B, y, x: B[y, 3] + B[y, 4], lambda b, y, x: b[y, 3] + b[y, 4], True),
    "split_tail": ((20,), (18,), lambda B, i: B[i] + B[i + 2], lambda b, i: b[i] + b[i + 2], False),
    "gap": ((16,), (8,), lambda B, i: B[i] + B[i + 6], lambda b, i: b[i] + b[i + 6], False),
    "diagonal": ((8, 8), (8,), lambda B, i: B[i, i], lambda b, i: b[i, i], False),
    "l_shape": ((9, 9), (8, 8), lambda B, y, x: B[y, x] + B[y + 1, x] + B[y, x + 1],
                lambda b, y, x: b[y, x] + b[y + 1, x] + b[y, x + 1], False),
    "strided": ((16,), (8,), lambda B, i: B[2 * i], lambda b, i: b[2 * i], False),
    "clamped": ((8,), (8,), lambda B, i: B[i] + B[te.min(i + 1, 7)], lambda b, i: b[i] + b[min(i + 1, 7)], False),
    "conditional": ((9,), (8,), lambda B, i: te.if_then_else(i > 2, B[i + 1], B[i]),
                    lambda b, i: b[i + 1] if i > 2 else b[i], False),
    "scaled_column": ((8, 8), (8, 2), lambda B, y, x: B[y, x * 4], lambda b, y, x: b[y, x * 4], False),
}


@pytest.fixture
def spy(monkeypatch):
    """Records what the isl-free path returned, by stage."""
    found = {}
    original = infer_module.translated_box

    def recording(*args, **kwargs):
        out = original(*args, **kwargs)
        found[len(found)] = out
        return out
    monkeypatch.setattr(infer_module, "translated_box", recording)
    return found


@pytest.mark.parametrize("name", list(CASES))
def test_the_isl_free_path_is_taken_only_for_a_tiled_box_and_agrees_with_isl(name, spy, monkeypatch):
    shape_b, shape_c, read, reference, expect = CASES[name]
    s, A, B, C = _pipeline(shape_b, shape_c, read)
    sn = s.normalize()
    fast = infer_normalized(sn, exact=True)
    assert [out is not None for out in spy.values()] == [expect]
    monkeypatch.setattr(infer_module, "translated_box", lambda *a, **k: None)
    with_isl = infer_normalized(sn, exact=True)
    stage = sn.stage_map[B.op]
    envs = list(outer_envs(fast, stage))
    assert len(envs) >= 2
    for env in envs:
        assert box(fast, stage.op.output(0), env) == box(with_isl, stage.op.output(0), env), env
    a = np.random.default_rng(0).standard_normal(shape_b).astype("float32")
    c = np.full(shape_c, np.nan, dtype="float32")
    build(s, [A, C])(a, c)
    b = a + 1
    expected = np.array([reference(b, *i) for i in np.ndindex(*shape_c)], dtype="float32").reshape(shape_c)
    np.testing.assert_allclose(c, expected, rtol=1e-6)


def _average(P):
    return lambda y, x: (P[y, x] + P[y, x + 1]) * 0.5


def test_the_stencil_chain_needs_no_isl(monkeypatch):
    """Every region of the tiled and the nested stencil chain is found without isl."""
    def no_isl(*args, **kwargs):
        raise AssertionError("read_region called")
    monkeypatch.setattr(infer_module, "read_region", no_isl)
    for tiled in (False, True):
        A = te.placeholder((16, 24), name="A")
        stages = [A]
        for k in range(6):
            stages.append(te.compute((16, 24 - k - 1), _average(stages[-1]), name=f"f{k}"))
        s = te.create_schedule(stages[-1].op)
        out = stages[-1]
        if tiled:
            yo, _ = s[out].split(out.op.axis[0], factor=4)
            for T in stages[1:-1]:
                s[T].compute_at(s[out], yo)
        else:
            for consumer, producer in zip(reversed(stages[2:]), reversed(stages[1:-1])):
                s[producer].compute_at(s[consumer], s[consumer].op.axis[0])
        a = np.random.default_rng(1).standard_normal((16, 24)).astype("float32")
        c = np.full((16, 18), np.nan, dtype="float32")
        build(s, [A, out])(a, c)
        expected = a
        for _ in range(6):
            expected = (expected[:, :-1] + expected[:, 1:]) * 0.5
        np.testing.assert_allclose(c, expected, rtol=1e-5)


@pytest.mark.parametrize("exact", [False, True])
def test_a_consumer_whose_range_depends_on_an_outer_loop_is_not_a_box(exact):
    """T0's rows at T1's outer loop are [0, outer]: a producer at the root spans every outer
    iteration, so its region is the union over them, not a box with a loop variable in it."""
    A = te.placeholder((2, 2), name="A")
    T0 = te.compute((2, 2), lambda i, j: A[i, j] * 2.0 + 1.0, name="T0")
    T1 = te.compute((2, 2), lambda i, j: T0[i, 0] + T0[0, j], name="T1")
    s = te.create_schedule(T1.op)
    AG = s.cache_read(A, "global", [T0])
    outer, inner = s[T1].split(s[T1].fuse(*T1.op.axis), factor=2)
    s[T1].bind(inner, te.thread_axis("threadIdx.x"))
    s[T0].compute_at(s[T1], outer)
    s[T0].set_scope("shared")
    bounds = infer_normalized(s.normalize(), exact=exact)
    assert [(str(bounds[iv].min), str(bounds[iv].extent)) for iv in AG.op.axis] == [("0", "2"), ("0", "2")]
    a = np.arange(4, dtype="float32").reshape(2, 2)
    t1 = np.full((2, 2), np.nan, "float32")
    build(s, [A, T1], exact=exact)(a, t1)
    t0 = a * 2 + 1
    np.testing.assert_array_equal(t1, t0[:, :1] + t0[:1, :])
