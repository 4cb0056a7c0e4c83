"""Print, parse, compare, build: every lowered function of random schedules, in both modes,
reads back from its TVMScript structurally equal, prints the same text again, and the
function read back computes NumPy's numbers into the user's arrays."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import schedule as te
from lower import LoweringError, lower, reference
from lower.build import build_lowered
from lower.ir.script.function import function_script
from lower.ir.stmt_functor import ir_transform
from lower.ir.structural_equal import first_difference
from lower.tvmscript import from_source
from schedule.ir.arith import value_of

from ..strategies import describe, pipelines, schedules


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_random_schedules_read_back_from_their_tvmscript(data):
    p = data.draw(pipelines(max_computes=4, max_extent=5))
    s = data.draw(schedules(p))
    exact = data.draw(st.booleans())
    note(describe(s))
    args = [*p.placeholders, *p.outputs]
    try:
        f = lower(s, args, exact=exact)
    except LoweringError:
        return
    # TVM's lowered code has no produce markers, and TVMScript none to print.
    f.body = ir_transform(f.body, None, lambda n: n.body, ["tir.ProducerConsumer"])
    text = function_script(f)
    note(text)
    g = from_source(text)
    assert first_difference(f, g) is None
    assert function_script(g) == text
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    inputs = {t: rng.integers(-3, 4, size=p.shape).astype("float32") for t in p.placeholders}
    expected = reference(p.outputs, inputs)
    outs = [np.full(p.shape, np.nan, dtype="float32") for _ in p.outputs]
    build_lowered(g, "python")(*(inputs[t] for t in p.placeholders), *outs)
    for t, out in zip(p.outputs, outs):
        assert np.array_equal(out, expected[t]), t.name


def _gpu_reduction():
    A = te.placeholder((16, 8), name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute((16,), lambda i: te.sum(A[i, k], axis=k), name="B")
    s = te.create_schedule(B.op)
    s[B].bind(B.op.axis[0], te.thread_axis("blockIdx.x"))
    s[B].bind(B.op.reduce_axis[0], te.thread_axis("threadIdx.x"))
    return s, [A, B], lambda a: [a.sum(axis=1)]


def _shared_memory():
    A = te.placeholder((32,), name="A")
    B = te.compute((32,), lambda i: A[i] * 2, name="B")
    s = te.create_schedule(B.op)
    AS = s.cache_read(A, "shared", [B])
    bx, tx = s[B].split(B.op.axis[0], factor=8)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    s[AS].compute_at(s[B], bx)
    s[AS].bind(s[AS].op.axis[0], te.thread_axis("threadIdx.x"))
    return s, [A, B], lambda a: [a * 2]


def _virtual_threads():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    vx, x = s[B].split(B.op.axis[0], nparts=2)
    s[B].bind(vx, te.thread_axis("vthread"))
    return s, [A, B], lambda a: [a + 1]


def _packed_extern():
    te.register_func("test_roundtrip.double", lambda a, b: np.copyto(b, a * 2), override=True)
    A = te.placeholder((6,), name="A")
    B = te.extern((6,), [A], lambda ins, outs: te.call_packed("test_roundtrip.double", ins[0], outs[0]), name="B")
    return te.create_schedule(B.op), [A, B], lambda a: [a * 2]


def _symbolic_inline_cache():
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.compute((n, 4), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((n, 4), lambda i, j: B[i, j] * 3, name="C")
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    CL = s.cache_write(C, "local")
    s[CL].compute_at(s[C], C.op.axis[0])
    return s, [A, C], lambda a: [(a + 1) * 3]


@pytest.mark.parametrize("make", [_gpu_reduction, _shared_memory, _virtual_threads, _packed_extern,
                                  _symbolic_inline_cache])
@pytest.mark.parametrize("exact", [False, True])
def test_gpu_extern_and_symbolic_functions_read_back(make, exact):
    s, args, ref = make()
    f = lower(s, args, exact=exact)
    f.body = ir_transform(f.body, None, lambda n: n.body, ["tir.ProducerConsumer"])
    text = function_script(f)
    g = from_source(text)
    assert first_difference(f, g) is None, text
    assert function_script(g) == text
    shape = [5 if value_of(d) is None else value_of(d) for d in args[0].shape]  # a symbolic n is 5
    a = np.random.default_rng(5).uniform(-1, 1, shape).astype("float32")
    (expected,) = ref(a)
    out = np.full(expected.shape, np.nan, "float32")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # GPU semantics on the CPU, said once
        build_lowered(g, "cuda" if "threadIdx" in text or "vthread" in text else "c")(a, out)
    np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
