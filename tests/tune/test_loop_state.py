"""auto_scheduler loop states: the primitives' iterators and ranges worked out by hand, the
bounds a replayed schedule gives back, the stages that cache steps add and where, the
schedule a state makes against NumPy on both targets, the written te calls making the same
loop nest, records read back equal, and the DAG's flop estimate."""

from __future__ import annotations

import json

import numpy as np
import pytest

import schedule as te
import topi
from lower import build, lower
from schedule.base.errors import ScheduleError
from tune.auto_scheduler.compute_dag import ComputeDAG
from tune.auto_scheduler.loop_state import INLINED, ITER, ROOT, State
from tune.auto_scheduler.records import (
    MeasureInput,
    MeasureResult,
    RecordReader,
    dump_record_to_string,
    load_best_record,
    load_record_from_string,
    save_records,
)
from tune.auto_scheduler.search_task import SearchTask, recover_measure_input
from tune.auto_scheduler.workload import register_workload

RNG = np.random.default_rng(9)


def _matmul(n=64, m=64, k=64, epilogue=False):
    A, B = te.placeholder((n, k), name="A"), te.placeholder((k, m), name="B")
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    if not epilogue:
        return A, B, C
    return A, B, C, te.compute((n, m), lambda i, j: C[i, j] * 2.0, name="D")


@register_workload
def loop_state_matmul(n: int) -> list:
    return list(_matmul(n, n, n))


def _extents(stage):
    return [None if it.range is None else int(it.range.extent) for it in stage.iters]


def test_split_fuse_reorder_and_annotations_by_hand():
    A, B, C = _matmul(512, 512, 512)
    s = ComputeDAG([A, B, C]).get_init_state()
    i, j, k = s[C].iters
    assert [it.name for it in (i, j, k)] == ["i", "j", "k"] and [it.iter_kind for it in (i, j, k)] == [0, 0, 1]
    io, ii = s.split(C, i, [16])
    assert s[C].iters[0] is io and _extents(s[C])[:2] == [32, 16] and (io.name, ii.name) == ("i.0", "i.1")
    parts = s.split(C, j, [32, 8], inner_to_outer=False)  # the outer lengths given: 32, 8, then 512 / 256
    assert [it.name for it in parts] == ["j.0", "j.1", "j.2"] and _extents(s[C])[2:5] == [32, 8, 2]
    s.reorder(C, [io, parts[0], k, parts[1], parts[2], ii])
    assert _extents(s[C]) == [32, 32, 512, 8, 2, 16]
    fused = s.fuse(C, [io, parts[0]])
    assert fused.name == "i.0@j.0@" and int(fused.range.extent) == 1024 and fused.iter_kind == 0
    assert s.parallel(C, fused).annotation == State.ANNOTATION_TRANS_TABLE["parallel"] == 3
    assert s.vectorize(C, s[C].iters[-1]).annotation == 2 and s.bind(C, s[C].iters[3], "vthread").annotation == 4
    assert s.fuse(C, [s[C].iters[1], s[C].iters[2]]).iter_kind == 2  # a reduction and a spatial loop: mixed
    with pytest.raises(ScheduleError, match="consecutive"):
        s.fuse(C, [s[C].iters[0], s[C].iters[2]])
    with pytest.raises(ScheduleError, match="not an iterator"):
        s.split(C, io, [2])  # fused away
    with pytest.raises(ScheduleError, match="blockIdx"):
        s.bind(C, s[C].iters[0], "warp")


def test_compute_at_forgets_ranges_and_infer_bound_gives_them_back():
    A, B, C, D = _matmul(64, 32, 16, epilogue=True)
    dag = ComputeDAG([A, B, D])
    s = dag.get_init_state()
    yo, yi = s.split(D, s[D].iters[0], [8])
    s.compute_at(C, D, yo)
    assert s[C].compute_at == ITER and _extents(s[C]) == [None, None, None]
    bounded = dag.infer_bound_from_state(s)
    assert _extents(bounded[C]) == [8, 32, 16] and _extents(bounded[D]) == [8, 8, 32]
    assert _extents(s[C]) == [None, None, None]  # the state asked about is not changed
    s.compute_root(C)
    assert s[C].compute_at == ROOT and _extents(dag.infer_bound_from_state(s)[C]) == [64, 32, 16]
    text = str(dag.infer_bound_from_state(s))
    assert text.startswith("Placeholder: A, B\nfor i (0,64)\n  for j (0,32)\n    for k (0,16)\n      C = ...\n")


def test_cache_steps_place_their_stages_as_te_does():
    A, B, C, D = _matmul(16, 16, 16, epilogue=True)
    dag = ComputeDAG([A, B, D])
    s = dag.get_init_state()
    local = s.cache_write(C, "local")
    shared = s.cache_read(A, "shared", [local])
    assert [op.name for op in s.stage_ops] == ["A", "A.shared", "B", "C.local", "C", "D"]
    assert local.name == "C.local" and shared.name == "A.shared"
    # the original operations still name their (moved) stages
    assert s[C].op.name == "C" and [it.name for it in s[C].iters] == ["i", "j"] and s[A].op.name == "A"
    s.compute_at(local, C, s[C].iters[1])
    s.compute_at(shared, local, s[local].iters[2])
    bounded = dag.infer_bound_from_state(s)
    assert _extents(bounded[local]) == [1, 1, 16] and _extents(bounded[shared]) == [1, 1]
    sch, args = dag.apply_steps_from_state(s)
    a, b = RNG.standard_normal((16, 16)).astype("float32"), RNG.standard_normal((16, 16)).astype("float32")
    for target in ("python", "c"):
        out = np.full((16, 16), np.nan, "float32")
        build(sch, args, target=target)(a, b, out)
        np.testing.assert_allclose(out, (a @ b) * 2, rtol=1e-4, atol=1e-4)


def test_rfactor_and_the_written_te_calls():
    A, B, C = _matmul(32, 32, 64)
    dag = ComputeDAG([A, B, C])
    s = dag.get_init_state()
    ko, ki = s.split(C, s[C].iters[2], [8])
    rf = s.rfactor(C, ki, 2)
    assert rf.name == "C.rf" and [op.name for op in s.stage_ops][2:] == ["C.rf", "C.repl"]
    s.parallel(rf, s[rf].iters[0])
    sch, args = dag.apply_steps_from_state(s)
    a, b = RNG.standard_normal((32, 64)).astype("float32"), RNG.standard_normal((64, 32)).astype("float32")
    out = np.full((32, 32), np.nan, "float32")
    build(sch, args)(a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)
    # the te calls written out make the same loop nest as the replay
    t = ComputeDAG([A, B, C]).get_init_state()
    i, j, k = t[C].iters
    parts = t.split(C, i, [4, 2])
    t.reorder(C, [parts[0], j, parts[1], k, parts[2]])
    t.unroll(C, t[C].iters[-1])
    code = dag.print_python_code_from_state(t)
    fresh = te.create_schedule(C.op)
    names = {"s": fresh, "te": te, "C": C, "i": C.op.axis[0], "j": C.op.axis[1], "k": C.op.reduce_axis[0]}
    exec(code, names)  # noqa: S102 - the written calls are the subject of the test
    replayed, _ = dag.apply_steps_from_state(t)
    assert str(lower(fresh, [A, B, C])) == str(lower(replayed, [A, B, C]))


def test_records_read_back_equal(tmp_path):
    task = SearchTask(func=loop_state_matmul, args=(32,), target="llvm -mcpu=core-avx2", target_host="llvm")
    dag = task.compute_dag
    C = dag.tensors[2]
    s = dag.get_init_state()
    s.split(C, s[C].iters[0], [4, 2])
    s.fuse(C, [s[C].iters[0], s[C].iters[1]])
    s.pragma(C, s[C].iters[0], "auto_unroll_max_step$16")
    inp, res = MeasureInput(task, s), MeasureResult([1e-3, 2e-3], 0, "", 0.5, 7)
    line = dump_record_to_string(inp, res)
    record = json.loads(line)
    assert record["i"][1][1][0] == ["SP", 2, 0, 32, [4, 2], 1] and record["v"] == "v0.6"
    assert set(record) == {"i", "r", "v"}  # TVM's reader refuses any other key
    back, back_res = load_record_from_string(line)
    assert back.task.workload_key == task.workload_key and str(back_res) == str(res)
    assert str(back.task.target.host) == "llvm -keys=cpu" and back.task.hardware_params.to_list() == \
        task.hardware_params.to_list()
    assert dag.infer_bound_from_state(back.state) == dag.infer_bound_from_state(s)
    assert not dag.infer_bound_from_state(back.state) == dag.get_init_state()
    log = tmp_path / "log.json"
    save_records(log, [inp, inp], [MeasureResult([3e-3], 0, "", 1.0, 1), res])
    inputs, results = RecordReader(log).read_lines(skip_lines=1)
    assert len(inputs) == 1 and results[0].costs == res.costs
    best_inp, best_res = load_best_record(log, task.workload_key)
    assert best_res.costs == res.costs
    rebuilt = recover_measure_input(best_inp, rebuild_state=True)
    assert str(rebuilt.state) == str(s) and "auto_unroll: 16" in str(s)
    with pytest.raises(ValueError, match="not an auto_scheduler record"):
        load_record_from_string('{"x": 1}')


def test_flop_estimate_and_refusals():
    A, B, C = _matmul(16, 16, 16)
    relu = topi.nn.relu(C)
    assert ComputeDAG([A, B, C]).flop_ct == 2 * 16 ** 3
    assert ComputeDAG([A, B, relu]).flop_ct == 2 * 16 ** 3 + 16 * 16
    padded = topi.nn.pad(C, [1, 1])  # its bounds tests compare integers: not counted
    assert ComputeDAG([A, B, padded]).flop_ct == 2 * 16 ** 3
    given = te.compute((16, 16), lambda i, j: padded[i, j], name="F", attrs={"FLOP": 1234})
    assert ComputeDAG([A, B, given]).flop_ct == 2 * 16 ** 3 + 1234
    X = te.placeholder((8,), name="X")
    r1, r2 = te.reduce_axis((0, 2), name="r"), te.reduce_axis((0, 2), name="r")
    twice = te.compute((4,), lambda i: te.sum(X[i + r1 + r2], axis=[r1, r2]), name="T")
    with pytest.raises(ScheduleError, match="names two iterators alike"):
        ComputeDAG([X, twice])
    s = ComputeDAG([A, B, relu]).get_init_state()
    s.compute_inline(C)
    assert s[C].compute_at == INLINED and s[relu].compute_at == ROOT
    with pytest.raises(ScheduleError, match="not a stage"):
        s[te.placeholder((2,), name="Z")]


@pytest.mark.parametrize("bad, message", [
    (lambda s, C: s.split(C, s[C].iters[0], ["x"]), "ints >= 1 or None"),
    (lambda s, C: s.compute_at(C, C, s[C].iters[0]), "its own loops"),
    (lambda s, C: s.rfactor(C, s[C].iters[0], 5), "not a reduction axis"),
    (lambda s, C: s.cache_read(C, "shared", [s.stage_ops[0]]), "does not read"),
    (lambda s, C: s.follow_split(C, s[C].iters[0], 0, 2), "not a split step"),
    (lambda s, C: s.follow_fused_split(C, s[C].iters[0], [7], 0, True), "not a split step"),
    (lambda s, C: s.pragma(C, s[C].iters[0], 3), "a pragma is a name"),
    (lambda s, C: s.storage_align(C, s[C].iters[0], "a", 1), "factor >= 1"),
    (lambda s, C: s.cache_write(s.stage_ops[0], "local"), "not a compute"),
])
def test_bad_steps_are_refused_and_leave_the_state_as_it_was(bad, message):
    X = te.placeholder((8, 8), name="X")
    r = te.reduce_axis((0, 8), name="r")
    C = te.compute((8,), lambda i: te.sum(X[i, r], axis=r), name="C")
    dag = ComputeDAG([X, C])
    s = dag.get_init_state()
    with pytest.raises(ScheduleError, match=message):
        bad(s, C)
    assert s.transform_steps == [] and s == dag.get_init_state()


def test_a_storage_align_on_a_loop_that_is_no_axis_changes_nothing_as_in_tvm():
    A, B = te.placeholder((16, 16), name="A"), te.placeholder((16, 16), name="B")
    k = te.reduce_axis((0, 16), name="k")
    C = te.compute((16, 16), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    dag = ComputeDAG([A, B, C])
    s = dag.get_init_state()
    ko, _ = s.split(C, s[C].iters[2], [4])
    s.rfactor(C, ko, 2)
    plain = str(lower(*dag.apply_steps_from_state(s)))
    s.storage_align(C, s[C].iters[-1], 8, 4)  # the reduction over the factored loop: no buffer dimension
    sch, args = dag.apply_steps_from_state(s)
    assert str(lower(sch, args)) == plain
    a, b = np.random.default_rng(0).random((2, 16, 16), dtype="float32")
    out = np.full((16, 16), np.nan, "float32")
    build(sch, args)(a, b, out)
    np.testing.assert_allclose(out, a @ b, rtol=1e-5)
    # on an axis of the operation it pads the rows of the factored stage's buffer
    rf = s.stage_ops.index(next(op for op in s.stage_ops if op.name.endswith(".rf")))
    aligned = s.copy()
    aligned.storage_align(rf, aligned[rf].iters[0], 8, 4)  # rows of 64 become 68
    assert str(lower(*dag.apply_steps_from_state(aligned))) != plain
