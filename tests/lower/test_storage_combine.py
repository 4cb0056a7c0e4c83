"""The buffers of one tagged scope in one allocation (TVM's StorageRewrite tests of storage
combining, in-place folding and memory bounds, written anew): the allocation counts and sizes
TVM's tests assert, the refusal past a registered memory's capacity, and every build equal to
NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import LoweringError, build, lower
from lower.ir.stmt import Allocate, Load
from lower.ir.stmt_functor import walk

RNG = np.random.default_rng(4)


def _allocations(func):
    return [s for s in walk(func.body) if isinstance(s, Allocate)]


def _register(scope, max_bits):
    te.register_func(f"tvm.info.mem.{scope}", lambda: te.MemoryInfo(16, 32, max_bits), override=True)


def test_a_chain_of_tagged_stages_shares_one_allocation_of_two_buffers():
    """TVM's storage_combine: four stages of 8 in ``global:tag``, each read by the next: two
    live at a time, so one allocation of 16 holds them all. (TVM's test reads 8 elements of an
    input of 4; here the input has 8.)"""
    A = te.placeholder((8,), name="A")
    B, stages = A, []
    for t in range(5):
        B = _next_stage(B, t)
        stages.append(B)
    s = te.create_schedule(B.op)
    for S in stages[:-1]:
        s[S].set_scope("global:tag")
    allocs = _allocations(lower(s, [A, B], exact=False))
    assert [(a.buffer.scope, int(a.buffer.extents[0])) for a in allocs] == [("global:tag", 16)]
    a = RNG.standard_normal(8).astype("float32")
    b = np.full(8, np.nan, "float32")
    build(s, [A, B])(a, b)
    x = a.astype("float64")
    for t in range(5):
        x = x + x[0] + (t + 1)
    np.testing.assert_allclose(b, x, rtol=1e-5)


def _next_stage(B, t):
    return te.compute((8,), lambda i: B[i] + B[0] + (t + 1), name=f"A{t}")


def test_combined_vector_operands_do_not_overlap():
    """TVM's storage_combine_with_vectorization: both cached operands and the cached result in
    ``global:tag``: one allocation, the two vector loads at offsets 1024 apart."""
    n = 1024
    A, B = te.placeholder((n,), name="A"), te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    s.cache_read(A, "global:tag", readers=[C])
    s.cache_read(B, "global:tag", readers=[C])
    CC = s.cache_write(C, "global:tag")
    s[CC].vectorize(s[CC].op.axis[0])
    func = lower(s, [A, B, C], exact=False)
    (alloc,) = _allocations(func)
    loads = {str(x.index) for s_ in walk(func.body) for x in _loads(s_) if x.buffer is alloc.buffer}
    assert int(alloc.buffer.extents[0]) == 2 * n and loads == {"i.c", "(i.c + 1024)", "i"}  # the operands, apart
    a, b = RNG.standard_normal(n).astype("float32"), RNG.standard_normal(n).astype("float32")
    c = np.full(n, np.nan, "float32")
    build(s, [A, B, C])(a, b, c)
    np.testing.assert_array_equal(c, a + b)


def _loads(stmt):
    from lower.ir.stmt_functor import stmt_exprs
    from schedule.ir.functor import distinct_post_order
    return [x for e in stmt_exprs(stmt) for x in distinct_post_order(e) if isinstance(x, Load)]


def _inplace_rule2(scope, max_bits):
    _register(scope, max_bits)
    m = 10
    A, C, D = (te.placeholder((m,), name=n) for n in "ACD")
    A0 = te.compute((m,), lambda i: A[i] + C[i], name="A0")
    A1 = te.compute((m,), lambda i: D[i] * D[i], name="A1")
    A2 = te.compute((m,), lambda i: A0[i] + A1[i], name="A2")
    B = te.compute((m,), lambda i: A2[i], name="B")
    s = te.create_schedule(B.op)
    for t, readers in ((A0, [A2]), (A1, [A2]), (A2, [B])):
        s.cache_read(t, scope, readers)
    return s, [A, B, C, D]


def test_in_place_rule_2_and_the_memory_bound():
    """TVM's inplace_rule2 and exceed_mem: the global stages share one buffer, the three caches
    two slots of 10 floats combined into one allocation of 640 bits; a memory of 640 bits holds
    it, one of 639 is refused naming the scope."""
    s, args = _inplace_rule2("local_TB2", 640)
    allocs = _allocations(lower(s, args, exact=False))
    assert sorted((a.buffer.scope, int(a.buffer.extents[0])) for a in allocs) == [("global", 10), ("local_TB2", 20)]
    a, c, d = (RNG.standard_normal(10).astype("float32") for _ in range(3))
    b = np.full(10, np.nan, "float32")
    build(s, args)(a, b, c, d)
    np.testing.assert_allclose(b, a + c + d * d, rtol=1e-6)
    s, args = _inplace_rule2("local_TEM", 639)
    with pytest.raises(LoweringError, match="Allocation exceed bound of memory tag local_TEM"):
        lower(s, args, exact=False)


def test_in_place_rule_3():
    """TVM's inplace_rule3: six cached inputs and nine cached intermediates in one tagged scope
    fold into one allocation of 70 floats."""
    scope = "local_TB3"
    _register(scope, 1 << 30)
    m = 10
    B0, B1, B2, B3, B4, B5 = (te.placeholder((m,), name=f"B{k}") for k in range(6))
    B6 = te.compute((m,), lambda i: B1[i] * B5[i], name="B6")
    B7 = te.compute((m,), lambda i: B2[i] * B4[i], name="B7")
    B8 = te.compute((m,), lambda i: B6[i] - B7[i], name="B8")
    B9 = te.compute((m,), lambda i: B2[i] * B3[i], name="B9")
    B10 = te.compute((m,), lambda i: B0[i] * B5[i], name="B10")
    B11 = te.compute((m,), lambda i: B9[i] - B10[i], name="B11")
    B12 = te.compute((m,), lambda i: B0[i] * B4[i], name="B12")
    B13 = te.compute((m,), lambda i: B1[i] * B3[i], name="B13")
    B14 = te.compute((m,), lambda i: B12[i] - B13[i], name="B14")
    B = te.compute((m,), lambda i: B8[i] * B11[i] + B14[i], name="B")
    s = te.create_schedule(B.op)
    for t, readers in ((B1, [B6, B13]), (B5, [B6, B10]), (B2, [B7, B9]), (B4, [B7, B12]), (B3, [B9, B13]),
                       (B0, [B10, B12])):
        s.cache_read(t, scope, readers)
    for t in (B8, B11, B14, B6, B7, B9, B10, B12, B13):
        s.cache_write(t, scope)
    for t in (B12, B13, B8, B11, B14, B6, B7, B9, B10):
        s[t].compute_inline()
    s = s.normalize()
    args = [B0, B1, B2, B3, B4, B5, B]
    allocs = _allocations(lower(s, args, exact=False))
    assert [(a.buffer.scope, int(a.buffer.extents[0])) for a in allocs] == [(scope, 70)]
    b0, b1, b2, b3, b4, b5 = (RNG.standard_normal(m).astype("float32") for _ in range(6))
    out = np.full(m, np.nan, "float32")
    build(s, args)(b0, b1, b2, b3, b4, b5, out)
    np.testing.assert_allclose(out, (b1 * b5 - b2 * b4) * (b2 * b3 - b0 * b5) + (b0 * b4 - b1 * b3), rtol=1e-5)


def test_an_unknown_scope_is_refused_and_a_colon_tag_is_not():
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    C = te.compute((4,), lambda i: B[i] * 2, name="C")
    s = te.create_schedule(C.op)
    with pytest.raises(te.ScheduleError, match="global:tag"):
        s[B].set_scope("globl:tag")
    s[B].set_scope("shared:mine")
    assert s[B].scope == "shared:mine"
