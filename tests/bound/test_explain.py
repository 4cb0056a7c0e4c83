"""bound.report.explain: hand-counted cases, and counts checked against enumerating the loop nests."""

from __future__ import annotations

import importlib

import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import schedule as te
from bound import BoundError, explain
from bound.inference.exact import visits_exact_set
from bound.inference.infer import infer_normalized
from bound.operation import reads
from schedule.ir.evaluate import evaluate

from ..loopnest import region_points, volumes
from ..provides import pipeline, provide_counts
from ..strategies import describe, pipelines, schedules

#: The module (its name in bound is the function).
explain_module = importlib.import_module("bound.report.explain")


def _guarded(P, i, n):
    return te.if_then_else(te.all(i >= 0, i < n), P[i], te.const(0.0))


def stencil_pair():
    """Two 3-point stencils on 16 elements; the first computed at the second's outer loop (by 4)."""
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: _guarded(A, i - 1, 16) + A[i] + _guarded(A, i + 1, 16), name="B")
    C = te.compute((16,), lambda i: _guarded(B, i - 1, 16) + B[i] + _guarded(B, i + 1, 16), name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], xo)
    return s, B, C


def fused_4x4(factor):
    """The document's Example 6: C's axes fused, split by *factor*, B at the outer loop."""
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda bi, bj: A[bi, bj] + 2, name="B")
    C = te.compute((4, 4), lambda ci, cj: B[ci, cj] * 3, name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(s[C].fuse(*C.op.axis), factor)
    s[B].compute_at(s[C], xo)
    return s, B, C


def counts(row):
    return row.allocated, row.computed, row.needed


@pytest.mark.parametrize("exact, expected", [
    # faithful realizes [4o-1, 4o+4] at each of the 4 iterations, exact clips it; lowering guards
    # the points outside the shape off, so both compute 5+6+6+5
    (False, (6, 22, 16)),
    (True, (6, 22, 16)),
])
def test_stencil_at_outer_loop_recomputes_the_halo(exact, expected):
    s, B, C = stencil_pair()
    report = explain(s, exact=exact)
    assert counts(report[B]) == expected
    assert counts(report[C]) == (16, 16, 16)
    assert report[B].ratio == expected[1] / 16


@pytest.mark.parametrize("factor, exact, expected", [
    (4, False, (16, 64, 16)),   # the document: all of B at each of the 4 iterations
    (4, True, (4, 16, 16)),     # one row each time
    (3, False, (16, 96, 16)),
    # blocks of the fused index 0-2, 3-5, 6-8, 9-11, 12-14, 15: hulls 1x3, 2x4, 2x4, 1x3, 1x3, 1x1
    # (allocated 2x4), but B visits exactly the 3 points each block reads: nothing twice
    (3, True, (8, 16, 16)),
])
def test_example_6_fuse(factor, exact, expected):
    s, B, _ = fused_4x4(factor)
    assert counts(explain(s, exact=exact)[B]) == expected


def test_table_lists_every_computed_tensor_with_its_ratio():
    s, B, C = stencil_pair()
    report = explain(s, exact=True)
    assert list(report) == [B, C]
    lines = str(report).splitlines()
    assert lines[0] == "bounds: exact"
    assert lines[1].split() == ["tensor", "allocated", "computed", "needed", "computed/needed"]
    assert lines[2].split() == ["B", "6", "22", "16", "1.38"]
    assert lines[3].split() == ["C", "16", "16", "16", "1.00"]


def test_reduction_consumer_reads_each_input_element_once():
    A = te.placeholder((6, 5), name="A")
    k = te.reduce_axis((0, 5), name="k")
    P = te.compute((6, 5), lambda i, j: A[i, j] * 2, name="P")
    R = te.compute((6,), lambda i: te.sum(P[i, k], axis=k), name="R")
    s = te.create_schedule(R.op)
    s[P].compute_at(s[R], R.op.axis[0])
    for exact in (False, True):
        report = explain(s, exact=exact)
        assert counts(report[P]) == (5, 30, 30)
        assert counts(report[R]) == (6, 6, 6)


def test_a_data_dependent_read_may_touch_the_whole_tensor():
    idx = te.placeholder((3,), dtype="int32", name="idx")
    P = te.compute((10,), lambda i: te.const(1.0) + i, name="P")
    G = te.compute((3,), lambda i: P[idx[i]], name="G")
    s = te.create_schedule(G.op)
    assert explain(s)[P].needed == 10


def test_unused_elements_are_not_needed():
    A = te.placeholder((10,), name="A")
    P = te.compute((10,), lambda i: A[i] + 1, name="P")
    Q = te.compute((3,), lambda i: P[3 * i + 1], name="Q")
    s = te.create_schedule(Q.op)
    for exact in (False, True):
        row = explain(s, exact=exact)[P]
        assert (row.allocated, row.needed) == (7, 3)   # realizes P[1..7], reads 1, 4, 7


def test_symbolic_shapes_are_refused():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] + 1, name="B")
    with pytest.raises(ValueError, match="'B' has a symbolic extent n"):
        explain(te.create_schedule(B.op))


def test_placeholders_have_no_row():
    s, B, C = stencil_pair()
    A = B.op.input_tensors[0]
    with pytest.raises(KeyError, match="placeholders and inlined stages"):
        explain(s)[A]


def _needed_by_enumeration(sn, bounds, T):
    seen = set()
    for consumer in sn.stages:
        if consumer.attach_type == te.AttachType.InlinedAlready:
            continue
        accesses = reads(consumer.op, [T])
        for env in region_points(bounds, consumer) if accesses else ():
            for acc in accesses:
                if evaluate(acc.condition, env):
                    seen.add(tuple(evaluate(i, env) for i in acc.indices))
    return len(seen)


@pytest.mark.parametrize("painted", [True, False])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_counts_agree_with_enumerating_the_loop_nests(painted, data):
    """Unpainted: every consumer is taken as too large to paint point by point, so its affine
    reads are moved from box to box (or left to isl)."""
    p = data.draw(pipelines(max_computes=4, max_extent=4))
    s = data.draw(schedules(p))
    note(describe(s))
    with pytest.MonkeyPatch.context() as mp:
        if not painted:
            mp.setattr(explain_module, "_SMALL_DOMAIN", 0)
            mp.setattr(explain_module, "_BITMAP_LIMIT", 0)
        _check_counts(s)


def _check_counts(s):
    sn = s.normalize()
    for exact in (False, True):
        regions = {}
        try:
            bounds = infer_normalized(sn, exact=exact, regions=regions)
        except BoundError:
            return
        # Stages that visit their exact set compute less than their box, and their readers read
        # less: those are checked against the stores of the lowered program in tests/lower.
        scanned = {st for st in regions if visits_exact_set(st, sn.stages, bounds)}
        report = explain(s, exact=exact)
        runs = {op.name: n for op, n in provide_counts(pipeline(s, exact)).items()}
        for user_stage, stage in zip(s.stages, sn.stages):
            if stage.attach_type == te.AttachType.InlinedAlready or not isinstance(stage.op, te.ComputeOp):
                continue
            T = stage.op.output(0)
            row = report[user_stage.op.output(0)]
            if not stage.op.reduce_axis:  # what the lowered loops provide (a reduction also updates)
                assert row.computed == runs.get(stage.op.name, 0), (T.name, exact)
            largest, computed = volumes(bounds, stage)
            assert row.computed <= computed if stage in scanned else row.computed == computed, (T.name, exact)
            assert row.allocated >= largest, (T.name, exact)
            if not stage.attach_type == te.AttachType.Scope:
                assert row.allocated == largest
            if not stage.is_output and not scanned:
                assert row.needed == _needed_by_enumeration(sn, bounds, T), (T.name, exact)


def _strided_conv(k: int = 256, c: int = 8, n: int = 32):
    """A 3x3 convolution of stride 2 over a padded input (read twice, a row apart), accumulated
    in a local cache at output tiles of 1 x 1 x 2: the cache's 32768 boxes read the padding in
    many places."""
    A = te.placeholder((c, n, n), name="A")
    W = te.placeholder((k, c, 3, 3), name="W")
    P = te.compute((c, n + 2, n + 2), lambda ci, y, x: te.if_then_else(
        te.all(y >= 1, y <= n, x >= 1, x <= n), A[ci, y - 1, x - 1], te.const(0.0)), name="P")
    rc, ry, rx = te.reduce_axis((0, c), "rc"), te.reduce_axis((0, 3), "ry"), te.reduce_axis((0, 3), "rx")
    O = te.compute((k, n // 2, n // 2), lambda f, y, x: te.sum(
        (P[rc, 2 * y + ry, 2 * x + rx] + P[rc, 2 * y + ry + 1, 2 * x + rx]) * W[f, rc, ry, rx],
        axis=[rc, ry, rx]), name="O")
    s = te.create_schedule(O.op)
    OL = s.cache_write(O, "local")
    f, y, x = O.op.axis
    xo, _ = s[O].split(x, factor=2)
    s[OL].compute_at(s[O], xo)
    return s, P


def test_reads_of_many_boxes_are_moved_from_one_box_shape_and_counted_exactly(monkeypatch):
    s, P = _strided_conv()
    moved = []
    translated = explain_module._translated_reads

    def spy(*args):
        index = translated(*args)
        moved.append(index is not None)
        return index
    monkeypatch.setattr(explain_module, "_translated_reads", spy)
    row = explain(s)[P]
    # rows 2y + r and 2y + r + 1 for y < 16, r < 3: 0..33; columns 2x + r: 0..32 of the 34; in
    # each of the 8 channels
    assert row.needed == 8 * 34 * 33
    assert moved and all(moved)


def test_inlined_stages_have_no_row_and_their_reader_reads_the_producer():
    A = te.placeholder((8,), name="A")
    P = te.compute((8,), lambda i: A[i] + 1, name="P")
    Q = te.compute((8,), lambda i: P[i] * 2, name="Q")
    R = te.compute((4,), lambda i: Q[2 * i], name="R")
    s = te.create_schedule(R.op)
    s[Q].compute_inline()
    report = explain(s)
    assert list(report) == [P, R]
    # P[0..6] realized, P[0, 2, 4, 6] read: exact mode visits those four only
    assert counts(report[P]) == (7, 4, 4)


@pytest.mark.parametrize("exact", [False, True])
def test_reads_that_are_not_affine_are_counted_by_enumeration(exact):
    P = te.compute((12,), lambda i: te.const(1.0) + i, name="P")
    Q = te.compute((3, 4), lambda i, j: P[i * j], name="Q")
    row = explain(te.create_schedule(Q.op), exact=exact)[P]
    # i*j for i < 3, j < 4 reads P at 0, 1, 2, 3, 4, 6; a product of two ranges is "everything"
    # to interval arithmetic, so both modes realize P whole
    assert (row.computed, row.needed) == (12, 6)


def test_reports_are_found_by_the_tensors_the_user_holds():
    A = te.placeholder((8, 8), name="A")
    C = te.compute((8, 8), lambda i, j: A[i, j] * 2, name="C")
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, "local")
    report = explain(s)
    assert report[C] is report[s[C].op.output(0)]  # the rebuilt operation finds the same row
    assert (report[C].name, report[CC].name) == ("C", "C.local")
    assert report[CC].computed == report[C].needed == 64


def _chain(n: int, length: int = 64):
    """The guarded stencil chain of benchmarks/bench_infer_bound.py: each stage split by 4 and
    its producer computed at the outer loop, so executions multiply with every stage."""
    def stencil(P):
        return lambda i: _guarded(P, i - 1, length) + P[i] + _guarded(P, i + 1, length)
    stages = [te.placeholder((length,), name="A")]
    for k in range(n):
        stages.append(te.compute((length,), stencil(stages[-1]), name=f"S{k}"))
    s = te.create_schedule(stages[-1].op)
    for consumer, producer in zip(reversed(stages[2:]), reversed(stages[1:-1])):
        outer, _ = s[consumer].split(consumer.op.axis[0], factor=4)
        s[producer].compute_at(s[consumer], outer)
    return s, stages[1:]


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
@pytest.mark.parametrize("exact", [False, True])
def test_compute_at_chain_counts_equal_enumerating_the_loop_nests(n, exact):
    s, stages = _chain(n)
    sn = s.normalize()
    bounds = infer_normalized(sn, exact=exact)
    report = explain(s, exact=exact)
    for stage in sn.stages[1:]:
        T = stage.op.output(0)
        largest, computed = volumes(bounds, stage)
        row = report[T]
        assert (row.allocated, row.computed) == (largest, computed), (T.name, exact)
        if not stage.is_output:
            assert row.needed == _needed_by_enumeration(sn, bounds, T) == 64


def test_deep_compute_at_chain_is_counted_without_enumerating_its_executions():
    # The first stage of 40 computes billions of points; the outer stages do not depend on how deep
    # the chain goes, so they must count what the 4-stage chain counts (checked by enumeration
    # above), and every stage reads all of its producer.
    deep, shallow = explain(_chain(40)[0]), explain(_chain(4)[0])
    tail = [counts(r) for r in deep.values()][-4:]
    assert tail == [counts(r) for r in shallow.values()]
    assert all(r.needed == 64 for r in deep.values())
    computed = [r.computed for r in deep.values()]
    assert computed[0] > 2 ** 32 and computed == sorted(computed, reverse=True)


@pytest.mark.parametrize("exact", [False, True])
def test_a_shared_stage_at_the_thread_loop_is_computed_once_per_block(exact):
    # Each block of 16 threads reads B[16b-1 .. 16b+16] (inside the tensor): the threads fetch
    # it together, so 17 + 18 + 18 + 17 points, not 16 times as many.
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 2, name="B")
    C = te.compute((64,), lambda i: _guarded(B, i - 1, 64) + B[i] + _guarded(B, i + 1, 64), name="C")
    s = te.create_schedule(C.op)
    bx, tx = s[C].split(C.op.axis[0], factor=16)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    BS = s.cache_read(B, "shared", [C])
    s[BS].compute_at(s[C], tx)
    assert counts(explain(s, exact=exact)[BS]) == (18, 70, 64)
