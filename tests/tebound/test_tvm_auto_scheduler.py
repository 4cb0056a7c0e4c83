"""TVM's auto_scheduler modules as its users import them: workload distances, the registry's
transfer, the steps a stage was made by, serialized tasks, the test workloads' stage order,
the Python measure callback, and ``load_records`` of either kind of log."""

from __future__ import annotations

import json
import pickle

import numpy as np
import pytest

import tebound.tvm as tvm
from tebound.tvm import auto_scheduler
from tebound.tvm.auto_scheduler import _ffi_api, utils, workload_registry
from tebound.tvm.testing import auto_scheduler as workloads


def test_workload_distance_by_hand():
    target = utils.decode_workload_key(json.dumps(["f", [8, 3, 224, 224], [0, 0], "float32"]))
    assert utils.decode_workload_key("not json") == ("not json", None)
    assert utils.calc_workload_dis_factor(target, target) == 1
    assert utils.calc_workload_dis_factor(target, ("f", ([2, 3, 56, 112], [0, 0], "float32"))) == 4 * 4 * 2
    for other in [("f", ([8, 3, 224, 224], [1, 0], "float32")), ("f", ([8, 3, 224, 224], [0, 0], "int8")),
                  ("g", ([8, 3, 224, 224], [0, 0], "float32")), ("f", ([3, 3, 224, 224], [0, 0], "float32")),
                  ("f", ([8, 3, 224], [0, 0], "float32"))]:
        assert utils.calc_workload_dis_factor(target, other) == float("inf")


def test_registry_entries_travel_and_tasks_pickle():
    name = utils.get_func_name(workloads.matmul_auto_scheduler_test)
    entry = pickle.loads(pickle.dumps(workload_registry.serialize_workload_registry_entry(name)))
    saved = workload_registry.WORKLOAD_FUNC_REGISTRY.pop(name)
    try:
        workload_registry.deserialize_workload_registry_entry(entry)
        assert workload_registry.WORKLOAD_FUNC_REGISTRY[name] is saved
    finally:
        workload_registry.WORKLOAD_FUNC_REGISTRY[name] = saved
    with pytest.raises(ValueError, match="nothing is registered"):
        workload_registry.serialize_workload_registry_entry("no such workload")
    dag = auto_scheduler.ComputeDAG(workloads.matmul_auto_scheduler_test(8, 8, 8))
    key = json.dumps(["a-dag-of-our-own"])
    task = auto_scheduler.SearchTask(compute_dag=dag, workload_key=key, target="llvm")
    again = pickle.loads(pickle.dumps(task))
    assert key in workload_registry.WORKLOAD_FUNC_REGISTRY  # a DAG's key finds its tensors again
    assert str(again.compute_dag.get_init_state()) == str(dag.get_init_state()) and str(again.target) == "llvm -keys=cpu"
    named = auto_scheduler.SearchTask(func=workloads.matmul_auto_scheduler_test, args=(8, 8, 8), target="llvm",
                                      task_inputs={"x": tvm.nd.empty((2,))}, task_inputs_overwrite=True)
    text = _ffi_api.SerializeSearchTask(named)
    assert json.loads(text)[0] == named.workload_key and json.loads(text)[5] == ["x"]
    back = _ffi_api.DeserializeSearchTask(text)
    assert (back.workload_key, back.task_input_names, str(back.target)) == (named.workload_key, ["x"], "llvm -keys=cpu")
    assert named.layout_rewrite_option == auto_scheduler.LayoutRewriteOption.INSERT_TRANSFORM_STAGE  # TVM's for llvm
    assert auto_scheduler.LayoutRewriteOption.get_target_default("cuda") == auto_scheduler.LayoutRewriteOption.NO_REWRITE
    older = json.dumps(json.loads(text)[:5])  # TVM v0.5 kept no task inputs
    assert _ffi_api.DeserializeSearchTask(older).task_input_names == []
    with pytest.raises(ValueError, match="already registered"):
        auto_scheduler.SearchTask(func=workloads.matmul_auto_scheduler_test, args=(8, 8, 8), target="llvm",
                                  task_inputs={"x": tvm.nd.empty((2,))})


def test_which_steps_made_a_stage():
    dag = auto_scheduler.ComputeDAG(workloads.matmul_auto_scheduler_test(16, 16, 16))
    A, B, C = dag.tensors
    s = dag.get_init_state()
    assert not _ffi_api.SearchPolicyUtilsIsTiled(s[C])
    s.split(C, s[C].iters[0], [4])
    assert _ffi_api.SearchPolicyUtilsIsTiled(s[C])
    local = s.cache_write(C, "local")
    s.cache_read(B, "shared", [local])
    ids = {op.name: i for i, op in enumerate(s.stage_ops)}
    # TVM's reading: a cache write names the id it was applied at, where its cache stage now is
    assert _ffi_api.SearchPolicyUtilsHasCacheWriteStage(s, ids["C.local"])
    assert _ffi_api.SearchPolicyUtilsHasCacheReadStage(s, ids["B"])
    assert not _ffi_api.SearchPolicyUtilsHasCacheReadStage(s, ids["A"])
    assert not _ffi_api.SearchPolicyUtilsHasRfactorStage(s, ids["C"])
    assert not _ffi_api.SearchPolicyUtilsHasCacheWriteStage(s, ids["C"])
    assert [it.name for it in s[local].iters] == ["i.c", "j.c", "k"]  # the cache's own loops
    s.bind(local, s[local].iters[1], "threadIdx.x")  # a spatial loop: no reduction across threads
    assert not _ffi_api.SearchPolicyUtilsHasCrossThreadReduction(s, ids["C.local"])
    s.bind(local, s[local].iters[2], "threadIdx.x")  # k
    assert _ffi_api.SearchPolicyUtilsHasCrossThreadReduction(s, ids["C.local"])


def test_test_workloads_keep_tvms_stage_order():
    state = auto_scheduler.ComputeDAG(workloads.conv2d_nchw_bn_relu_auto_scheduler_test(
        1, 14, 14, 3, 8, 3, 1, 1)).get_init_state()
    names = [op.name for op in state.stage_ops]
    assert names[:4] == ["Data", "pad_temp", "Kernel", "conv2d_nchw"] and names[-1] == "compute"
    dag, tiled = workloads.get_tiled_matmul()
    assert [int(it.range.extent) for it in tiled.stages[2].iters] == [2, 4, 4, 8, 8, 4, 8, 4, 512]
    with pytest.raises(tvm.TVMError, match="alike"):
        auto_scheduler.ComputeDAG(workloads.invalid_compute_definition())


def test_state_measurements_and_both_kinds_of_log(tmp_path):
    task = auto_scheduler.SearchTask(func=workloads.matmul_auto_scheduler_test, args=(16, 16, 16), target="llvm")
    C = task.compute_dag.tensors[2]
    state = task.compute_dag.get_init_state()
    state.parallel(C, state.split(C, state[C].iters[0], [4])[0])
    inp = auto_scheduler.MeasureInput(task, state)
    built = auto_scheduler.LocalBuilder().build([inp])
    measured = auto_scheduler.LocalRunner(timeout=60).run([inp], built)
    assert built[0].error_no == 0 and measured[0].error_no == 0 and all(c > 0 for c in measured[0].costs)
    sch, args = task.compute_dag.apply_steps_from_state(state)
    a, b = np.ones((16, 16), "float32"), np.arange(256, dtype="float32").reshape(16, 16)
    out = np.full((16, 16), np.nan, "float32")
    tvm.build(sch, args)(a, b, out)
    np.testing.assert_allclose(out, a @ b)
    log = tmp_path / "states.json"
    auto_scheduler.save_records(str(log), [inp], [auto_scheduler.MeasureResult([1e-3], 0, "", 1.0, 1)])
    (loaded, _), = auto_scheduler.load_records(str(log))
    assert loaded.task.workload_key == task.workload_key and len(loaded.state.transform_steps) == 2
    seen = []

    class Collect(auto_scheduler.measure.PythonBasedMeasureCallback):
        def callback(self, policy, inputs, results):
            seen.extend(inputs)
    search_log = tmp_path / "search.json"
    task.tune(auto_scheduler.TuningOptions(num_measure_trials=2, verbose=0, measure_callbacks=[
        auto_scheduler.RecordToFile(str(search_log)), Collect()]), auto_scheduler.EmptyPolicy(task))
    records = auto_scheduler.load_records(str(search_log))
    assert len(records) == len(seen) == 2 and all(inp.task.workload_key == task.workload_key for inp, _ in records)
