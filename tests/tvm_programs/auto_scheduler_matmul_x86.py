"""TVM's tutorial auto_scheduler_matmul_x86, written anew at a size CI can tune: a matmul
plus an add, registered as a workload, searched for a few trials with the result logged,
the best schedule applied, printed, built, checked against NumPy and timed; then the search
resumed from the log with an XGBModel and PreloadMeasuredStates."""

import os
import tempfile

import numpy as np
import tvm
from tvm import auto_scheduler, te


@auto_scheduler.register_workload
def matmul_add(n, l, m, dtype):  # noqa: E741 - the tutorial's names
    a = te.placeholder((n, l), name="A", dtype=dtype)
    b = te.placeholder((l, m), name="B", dtype=dtype)
    c = te.placeholder((n, m), name="C", dtype=dtype)
    k = te.reduce_axis((0, l), name="k")
    matmul = te.compute((n, m), lambda i, j: te.sum(a[i, k] * b[k, j], axis=k), name="matmul",
                        attrs={"layout_free_placeholders": [b]})
    out = te.compute((n, m), lambda i, j: matmul[i, j] + c[i, j], name="out")
    return [a, b, c, out]


target = tvm.target.Target("llvm")
N = L = M = 64
task = tvm.auto_scheduler.SearchTask(func=matmul_add, args=(N, L, M, "float32"), target=target)
dag = str(task.compute_dag)
print("Computational DAG:")
print(dag)
assert dag == ("A = PLACEHOLDER [64, 64]\nB = PLACEHOLDER [64, 64]\nmatmul(i, j) += (A[i, k]*B[k, j])\n"
               "C = PLACEHOLDER [64, 64]\nout(i, j) = (matmul[i, j] + C[i, j])\n")

folder = tempfile.mkdtemp()
log_file = os.path.join(folder, "matmul.json")
tune_option = auto_scheduler.TuningOptions(
    num_measure_trials=4, measure_callbacks=[auto_scheduler.RecordToFile(log_file)], verbose=2)
task.tune(tune_option)
# four states, each logged once (a search may log its best ones again, re-measured, at its end)
assert len({task.compute_dag.print_python_code_from_state(inp.state)
            for inp, _ in auto_scheduler.load_records(log_file)}) == 4
sch, args = task.apply_best(log_file)
print("Lowered TIR:")
print(tvm.lower(sch, args, simple_mode=True))

func = tvm.build(sch, args, target)
a_np = np.random.uniform(size=(N, L)).astype(np.float32)
b_np = np.random.uniform(size=(L, M)).astype(np.float32)
c_np = np.random.uniform(size=(N, M)).astype(np.float32)
out_np = a_np.dot(b_np) + c_np
dev = tvm.cpu()
a_tvm, b_tvm, c_tvm = (tvm.nd.array(x, device=dev) for x in (a_np, b_np, c_np))
out_tvm = tvm.nd.empty(out_np.shape, device=dev)
func(a_tvm, b_tvm, c_tvm, out_tvm)
np.testing.assert_allclose(out_np, out_tvm.numpy(), rtol=1e-3)
evaluator = func.time_evaluator(func.entry_name, dev, min_repeat_ms=5)
print("Execution time of this operator: %.3f ms" % (np.median(evaluator(a_tvm, b_tvm, c_tvm, out_tvm).results) * 1000))

print("Equivalent python schedule:")
text = task.print_best(log_file)
print(text)
assert "s[out]" in text or "s[matmul]" in text


def resume_search(task, log_file):
    cost_model = auto_scheduler.XGBModel()
    cost_model.update_from_file(log_file)
    search_policy = auto_scheduler.SketchPolicy(
        task, cost_model, init_search_callbacks=[auto_scheduler.PreloadMeasuredStates(log_file)])
    tune_option = auto_scheduler.TuningOptions(
        num_measure_trials=2, measure_callbacks=[auto_scheduler.RecordToFile(log_file)])
    task.tune(tune_option, search_policy=search_policy)


resume_search(task, log_file)
records = auto_scheduler.load_records(log_file)
# the resumed search measured new states only (a state logged twice was re-measured)
assert len({task.compute_dag.print_python_code_from_state(inp.state) for inp, _ in records}) == 6
sch, args = task.apply_best(log_file)
func = tvm.build(sch, args, target)
out_tvm = tvm.nd.empty(out_np.shape, device=dev)
func(a_tvm, b_tvm, c_tvm, out_tvm)
np.testing.assert_allclose(out_np, out_tvm.numpy(), rtol=1e-3)
