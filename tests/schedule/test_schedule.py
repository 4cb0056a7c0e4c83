"""Whole-schedule operations: lookup, normalize, cache_read, cache_write."""

from __future__ import annotations

import itertools

import pytest

import schedule as te
from schedule.ir.evaluate import evaluate
from schedule.schedule.relations import Rebase

from ..conftest import snapshot


def reference(tensor, index, data):
    """Element *index* of *tensor*, evaluated from the definitions (placeholders from *data*)."""
    op = tensor.op
    if isinstance(op, te.PlaceholderOp):
        return data[op.name][index]
    env = {iv.var: v for iv, v in zip(op.axis, index)}
    return evaluate(op.body[tensor.value_index], env, lambda t, ix: reference(t, ix, data))


def test_lookup_by_tensor_or_operation(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    assert s[B] is s[B.op] and s[B].op is B.op and s[B].name == "B"
    with pytest.raises(te.ScheduleError, match="'X' is not part of this schedule"):
        _ = s[te.placeholder((1,), name="X")]
    with pytest.raises(TypeError, match="indexed by a tensor or an operation"):
        _ = s["B"]


# --------------------------------------------------------------------------- normalize

def test_normalize_returns_a_copy_and_leaves_the_schedule_alone(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    before = snapshot(s)
    sn = s.normalize()
    assert snapshot(s) == before
    assert sn is not s and sn[C] is not s[C]
    assert sn[C].op.axis[0] is C.op.axis[0]


def test_normalize_rebases_every_root_leaf_and_moves_attachments(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    sn = s.normalize()
    for st in (sn[B], sn[C]):
        rels = st.relations
        assert [type(r) for r in rels] == [Rebase, Rebase]
        assert [r.parent for r in rels] == list(st.op.axis)
        assert [r.rebased for r in rels] == st.leaf_iter_vars
        assert [iv.name for iv in st.leaf_iter_vars] == [iv.name for iv in st.op.axis]
        assert st.all_iter_vars == list(st.op.axis)
    assert sn[B].attach_ivar is sn[C].relations[0].rebased
    assert sn[B].attach_stage is sn[C]


def test_normalizing_twice_gives_the_same_loop_variables(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    first, second = s.normalize(), s.normalize()
    assert first[C].leaf_iter_vars == second[C].leaf_iter_vars
    assert first[C].leaf_iter_vars != list(C.op.axis)


def test_normalize_keeps_split_leaves_and_rebases_reduce_axes(matmul):
    A, B, C = matmul
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=8)
    sn = s.normalize()
    leaves = sn[C].leaf_iter_vars
    assert leaves[:2] == [xo, xi]
    assert [iv.name for iv in leaves] == ["i.outer", "i.inner", "j", "k"]
    assert leaves[2] is not C.op.axis[1] and leaves[3] is not C.op.reduce_axis[0]


def test_compute_at_on_the_original_after_normalize_still_works():
    m, l = te.var("m"), te.var("l")
    A = te.placeholder((m, l), name="A")
    A1 = te.compute((m, l), lambda i, j: A[i, j], name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")
    s = te.create_schedule(A2.op)
    xo, yo, xi, yi = s[A2].tile(A2.op.axis[0], A2.op.axis[1], 8, 8)
    _ = s.normalize()
    s[A1].compute_at(s[A2], yo)
    assert s[A1].attach_ivar is yo


def test_normalize_inlines_into_readers(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    sn = s.normalize()
    assert sn[B].attach_type == te.AttachType.InlinedAlready
    assert s[B].attach_type == te.AttachType.Inline
    assert sn[C].op is not C.op and sn[C].op.axis == C.op.axis
    assert str(sn[C].op.body[0]) == "((A(i, j) + 2.000000f)*3.000000f)"
    assert sn[C].op.input_tensors == [A]


def test_a_chain_of_inlined_stages_collapses(example_cde):
    C, D, E = example_cde
    s = te.create_schedule(E.op)
    s[C].compute_inline()
    s[D].compute_inline()
    sn = s.normalize()
    assert str(sn[E].op.body[0]) == "((5*2)*4)" or str(sn[E].op.body[0]) == "40"
    assert sn[E].op.input_tensors == []


def test_inline_into_a_multi_output_reduction_keeps_one_reduction():
    A = te.placeholder((6,), name="A")
    V = te.compute((6,), lambda i: A[i] * 2, name="V")
    k = te.reduce_axis((0, 6), name="k")

    def fcombine(x, y):
        return te.select(y[1] > x[1], y[0], x[0]), te.max(x[1], y[1])

    argmax = te.comm_reducer(fcombine, lambda t0, t1: (te.const(-1, t0), te.min_value(t1)), name="argmax")
    idx, val = te.compute((1,), lambda i: argmax((k, V[k]), axis=k), name="T")
    s = te.create_schedule(idx.op)
    s[V].compute_inline()
    sn = s.normalize()
    b0, b1 = sn[idx].op.body
    assert (b0.value_index, b1.value_index) == (0, 1)
    assert te.structural_equal(b0.source, b1.source)
    assert str(b0.source[1]) == "(A(k)*2.000000f)"


def test_normalize_moves_an_attachment_whose_axis_was_fused_as_inner():
    A = te.placeholder((10, 10), name="A")
    B = te.compute((10, 10), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((10, 10), lambda i, j: B[i, j] * 2, name="C")
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[1])
    fused = s[C].fuse(*C.op.axis)
    assert s.normalize()[B].attach_ivar is fused


def test_normalize_refuses_an_attachment_whose_axis_was_fused_as_outer():
    A = te.placeholder((10, 10), name="A")
    B = te.compute((10, 10), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((10, 10), lambda i, j: B[i, j] * 2, name="C")
    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    s[C].fuse(*C.op.axis)
    with pytest.raises(te.ScheduleError, match="fused as the outer part of 'i.j.fused'"):
        s.normalize()


# --------------------------------------------------------------------------- cache_read

def test_cache_read_inserts_a_copy_stage_read_by_the_readers(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [B])
    assert AA.name == "A.shared" and [iv.name for iv in AA.op.axis] == ["ax0", "ax1"]
    assert [st.name for st in s.stages] == ["A", "A.shared", "B", "C"]
    assert s[AA].scope == "shared"
    assert s[B].op is not B.op and s[B].op.input_tensors == [AA]
    assert s[C].op.input_tensors == [s[B].op.output(0)]
    assert s[B].origin_op is B.op


def test_caching_one_tensor_for_two_readers_gets_distinct_names():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    C = te.compute((8,), lambda i: A[i] * B[i], name="C")
    s = te.create_schedule(C.op)
    first = s.cache_read(A, "shared", [B])
    second = s.cache_read(A, "shared", [C])
    assert (first.name, second.name) == ("A.shared", "A.d.shared")
    assert [st.name for st in s.stages] == ["A", "A.d.shared", "A.shared", "B", "C"]
    assert s[C].op.input_tensors == [second, s[B].op.output(0)]


def test_cache_read_refuses_a_reader_that_does_not_read_the_tensor(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    before = snapshot(s)
    with pytest.raises(te.ScheduleError, match="stage 'C' does not read 'A'"):
        s.cache_read(A, "shared", [C])
    with pytest.raises(te.ScheduleError, match="unknown storage scope 'sram'"):
        s.cache_read(A, "sram", [B])
    assert snapshot(s) == before


# --------------------------------------------------------------------------- cache_write

def test_cache_write_lays_the_cache_out_by_the_leaves():
    A = te.placeholder((10, 3), name="A")
    B = te.placeholder((10, 3), name="B")
    C = te.compute((10, 3), lambda i, j: A[i, j] * B[i, j], name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=4)
    s[C].reorder(xo, C.op.axis[1], xi)
    CC = s.cache_write(C, "global")
    assert CC.name == "C.global"
    assert [iv.name for iv in CC.op.axis] == ["i.outer.c", "j.c", "i.inner.c"]
    assert [int(d) for d in CC.shape] == [3, 3, 4]
    assert [st.name for st in s.stages] == ["A", "B", "C.global", "C"]
    assert str(s[C].op.body[0]) == "C.global(floordiv(i, 4), j, floormod(i, 4))"
    assert s[C].relations == [] and s[C].leaf_iter_vars == list(C.op.axis)
    data = {"A": {ix: 1.0 + ix[0] * 3 + ix[1] for ix in itertools.product(range(10), range(3))},
            "B": {ix: 2.0 - ix[1] for ix in itertools.product(range(10), range(3))}}
    new_C = s[C].op.output(0)
    for ix in itertools.product(range(10), range(3)):
        assert reference(new_C, ix, data) == reference(C, ix, data)


def test_cache_write_of_a_reduction_keeps_the_reduction_in_the_cache(matmul):
    A, B, C = matmul
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    assert isinstance(CC.op.body[0], te.Reduce)
    assert [iv.name for iv in CC.op.axis] == ["i.c", "j.c"]
    assert isinstance(s[C].op.body[0], te.ProducerLoad)


def test_cache_write_of_all_outputs_of_a_multi_output_compute():
    A = te.placeholder((4,), name="A")
    F, E = te.compute((4,), lambda i: (A[i] + 1, A[i] * 2), name="M")
    s = te.create_schedule(F.op)
    FF, EE = s.cache_write([F, E], "local")
    assert FF.op is EE.op and FF.op.num_outputs == 2
    assert [str(b) for b in s[F].op.body] == ["M.local(i)", "M.local(i)"]
    assert s[F].op.body[1].producer.value_index == 1


def test_cache_write_refusals(matmul):
    A, B, C = matmul
    s = te.create_schedule(C.op)
    s[C].split(C.op.reduce_axis[0], factor=4)
    before = snapshot(s)
    with pytest.raises(te.ScheduleError, match="IterVar 'k.outer' is CommReduce"):
        s.cache_write(C, "local")
    with pytest.raises(te.ScheduleError, match="stage 'A' is not a compute"):
        s.cache_write(A, "local")
    assert snapshot(s) == before
    F, E = te.compute((4,), lambda i: (te.const(1.0), te.const(2.0)), name="M")
    s2 = te.create_schedule(F.op)
    with pytest.raises(te.ScheduleError, match="has 2 outputs; pass all of them"):
        s2.cache_write(F, "local")
