"""InferBound on the InferBound document's examples, parametrised over exact mode."""

from __future__ import annotations

import pytest

import schedule as te
from bound import BoundError, infer_bound
from schedule.ir.evaluate import evaluate


def extents(bounds, ivs):
    return [int(bounds[iv].extent) for iv in ivs]


def at(expr, **values):
    """*expr* evaluated with variables given by name."""
    from schedule.ir.functor import post_order_visit

    env = {}
    post_order_visit(expr, lambda x: env.setdefault(x, values[x.name]) if isinstance(x, te.Var) else None)
    return evaluate(expr, env)


def simple_cd():
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda i, j: C[i, j] * 2, name="D")
    return C, D, te.create_schedule(D.op)


@pytest.mark.parametrize("exact", [False, True])
def test_example_1_without_compute_at_the_producer_is_whole(exact):
    C, D, s = simple_cd()
    assert extents(infer_bound(s, exact=exact), C.op.axis) == [5, 16]


@pytest.mark.parametrize("exact", [False, True])
def test_example_2_at_j_one_element(exact):
    C, D, s = simple_cd()
    s[C].compute_at(s[D], D.op.axis[1])
    b = infer_bound(s, exact=exact)
    assert extents(b, C.op.axis) == [1, 1]
    # The minima are D's (rebased) loop variables, which keep the axes' names.
    assert [str(b[iv].min) for iv in C.op.axis] == ["i", "j"]


@pytest.mark.parametrize("exact", [False, True])
def test_example_3_at_i_one_row(exact):
    C, D, s = simple_cd()
    s[C].compute_at(s[D], D.op.axis[0])
    b = infer_bound(s, exact=exact)
    assert extents(b, C.op.axis) == [1, 16]
    assert int(b[C.op.axis[1]].min) == 0


@pytest.mark.parametrize("exact", [False, True])
def test_example_4_attached_at_dk(exact):
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((4, 5, 16), lambda di, dj, dk: C[dj, dk] * 2, name="D")
    s = te.create_schedule(D.op)
    s[C].compute_at(s[D], D.op.axis[2])
    b = infer_bound(s, exact=exact)
    assert [str(b[iv].min) for iv in C.op.axis] == ["dj", "dk"]
    assert extents(b, C.op.axis) == [1, 1]


@pytest.mark.parametrize("exact", [False, True])
def test_example_5_attached_after_a_split(exact):
    C, D, s = simple_cd()
    d_o, d_i = s[D].split(D.op.axis[1], factor=8)
    s[C].compute_at(s[D], d_i)
    b = infer_bound(s, exact=exact)
    assert extents(b, C.op.axis) == [1, 1]
    assert str(b[C.op.axis[1]].min) == "((j.outer*8) + j.inner)"
    assert extents(b, [d_o, d_i]) == [2, 8]


@pytest.mark.parametrize("exact", [False, True])
def test_c_at_d_at_e_one_element_each(exact, example_cde):
    C, D, E = example_cde
    s = te.create_schedule(E.op)
    s[C].compute_at(s[D], D.op.axis[1])
    s[D].compute_at(s[E], E.op.axis[1])
    b = infer_bound(s, exact=exact)
    assert extents(b, C.op.axis) == extents(b, D.op.axis) == [1, 1]
    assert [str(b[iv].min) for iv in C.op.axis] == ["ei", "ej"]


@pytest.mark.parametrize("exact", [False, True])
def test_only_d_attached_c_is_relaxed_over_ds_attach_path(exact, example_cde):
    C, D, E = example_cde
    s = te.create_schedule(E.op)
    s[D].compute_at(s[E], E.op.axis[1])
    b = infer_bound(s, exact=exact)
    assert extents(b, C.op.axis) == [5, 16]
    assert extents(b, D.op.axis) == [1, 1]


def example_6(factor=4):
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda bi, bj: A[bi, bj] + 2, name="B")
    C = te.compute((4, 4), lambda ci, cj: B[ci, cj] * 3, name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(s[C].fuse(*C.op.axis), factor)
    s[B].compute_at(s[C], xo)
    return s, B, xo


def test_example_6_faithful_recomputes_all_of_b():
    s, B, _ = example_6()
    b = infer_bound(s, exact=False)
    assert [(int(b[iv].min), int(b[iv].extent)) for iv in B.op.axis] == [(0, 4), (0, 4)]


def test_example_6_exact_computes_one_row():
    s, B, xo = example_6()
    b = infer_bound(s, exact=True)
    assert b[B.op.axis[0]].min.same_as(xo.var) and int(b[B.op.axis[0]].extent) == 1
    assert (int(b[B.op.axis[1]].min), int(b[B.op.axis[1]].extent)) == (0, 4)


def test_example_6_split_by_3_exact_box_is_the_hull_of_each_block():
    s, B, xo = example_6(3)
    b = infer_bound(s, exact=True)
    for o in range(6):
        fused = range(3 * o, min(3 * o + 3, 16))
        rows, cols = {f // 4 for f in fused}, {f % 4 for f in fused}
        lo0, ext0 = at(b[B.op.axis[0]].min, **{xo.name: o}), at(b[B.op.axis[0]].extent, **{xo.name: o})
        lo1, ext1 = at(b[B.op.axis[1]].min, **{xo.name: o}), at(b[B.op.axis[1]].extent, **{xo.name: o})
        assert (lo0, lo0 + ext0 - 1) == (min(rows), max(rows))
        assert (lo1, lo1 + ext1 - 1) == (min(cols), max(cols))


@pytest.mark.parametrize("exact", [False, True])
def test_split_tail_20_by_16(exact):
    A = te.placeholder((20,), name="A")
    B = te.compute((20,), lambda i: A[i] + 1, name="B")
    C = te.compute((20,), lambda i: B[i] * 2, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=16)
    s[B].compute_at(s[C], xo)
    b = infer_bound(s, exact=exact)
    assert extents(b, [xo, xi]) == [2, 16]
    tail = at(b[B.op.axis[0]].extent, **{xo.name: 1})
    assert tail == (16 if not exact else 4)
    assert at(b[B.op.axis[0]].extent, **{xo.name: 0}) == 16


@pytest.mark.parametrize("exact", [False, True])
def test_gather_bound_merges_disjoint_requests_per_dimension(exact):
    T = te.compute((4, 4), lambda i, j: i + j, name="T")
    P = te.compute((2, 2), lambda i, j: T[i, j], name="P")
    Q = te.compute((2, 2), lambda i, j: T[i + 2, j + 2], name="Q")
    R = te.compute((2, 2), lambda i, j: P[i, j] + Q[i, j], name="R")
    s = te.create_schedule(R.op)
    b = infer_bound(s, exact=exact)
    assert [(int(b[iv].min), int(b[iv].extent)) for iv in T.op.axis] == [(0, 4), (0, 4)]


@pytest.mark.parametrize("exact", [False, True])
def test_a_consumer_outside_the_attach_loop_is_an_error(exact):
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    C = te.compute((8,), lambda i: B[i] * 2, name="C")
    D = te.compute((8,), lambda i: B[i] + C[i], name="D")
    s = te.create_schedule(D.op)
    s[B].compute_at(s[C], C.op.axis[0])
    with pytest.raises(BoundError, match="stage 'B' is attached at 'i', but its consumer 'D' does not run"):
        infer_bound(s, exact=exact)


@pytest.mark.parametrize("exact", [False, True])
def test_infer_bound_does_not_change_the_schedule(exact, chain):
    from ..conftest import snapshot

    A, B, C = chain
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    before = snapshot(s)
    infer_bound(s, exact=exact)
    assert snapshot(s) == before


@pytest.mark.parametrize("exact", [False, True])
def test_conditional_reads_narrow_only_exact_mode(exact):
    A = te.placeholder((10,), name="A")
    P = te.compute((10,), lambda i: A[i] * 2, name="P")
    C = te.compute((12,), lambda i: te.if_then_else(te.all(i >= 1, i < 11), P[i - 1], 0.0), name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(C.op.axis[0], factor=4)
    s[P].compute_at(s[C], xo)
    b = infer_bound(s, exact=exact)
    first = (at(b[P.op.axis[0]].min, **{xo.name: 0}), at(b[P.op.axis[0]].extent, **{xo.name: 0}))
    # TVM cannot prove 4*xo - 1 <= 0, so it keeps the unclamped minimum (and guards P's
    # computation with root predicates when lowering); exact mode sees the condition.
    assert first == ((0, 3) if exact else (-1, 4))


@pytest.mark.parametrize("exact", [False, True])
def test_a_stage_inside_a_block_bound_loop_has_the_blocks_tile_in_both_modes(exact):
    """A local accumulator attached in a shared stage attached at the block loop: its region is
    written in blockIdx.y, whose range (the bound loop's) makes the clipping to the tensor vanish
    (exact mode gave ``min(8, 32 - blockIdx.y*8)`` before it knew that range)."""
    A = te.placeholder((32, 32), name="A")
    k = te.reduce_axis((0, 32), "k")
    C = te.compute((32, 32), lambda i, j: te.sum(A[i, k] * A[j, k], axis=k), name="C")
    s = te.create_schedule(C.op)
    CF = s.cache_write(C, "local")
    CS = s.cache_read(CF, "shared", [C])
    bi, ii = s[C].split(C.op.axis[0], factor=32)
    bj, jj = s[C].split(C.op.axis[1], factor=8)
    s[C].reorder(bi, bj, ii, jj)
    s[C].bind(bi, te.thread_axis("blockIdx.x"))
    s[C].bind(bj, te.thread_axis("blockIdx.y"))
    _, tx = s[C].split(s[C].fuse(ii, jj), factor=32)
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[CS].compute_at(s[C], bj)
    s[CF].compute_at(s[CS], CS.op.axis[0])
    b = infer_bound(s.normalize(), exact=exact)
    i_c, j_c = CF.op.axis
    assert [str(b[iv].extent) for iv in (i_c, j_c)] == ["1", "8"]
    assert [at(b[j_c].min, **{"blockIdx.y": y}) for y in range(4)] == [0, 8, 16, 24]
