"""TVM's tutorial tune_conv2d_layer_cuda, written anew at a size CI can tune: a conv2d layer
with bias and relu (the last ResNet layer's shape, scaled down) searched for the "cuda" target,
which runs here on the CPU with a GPU's semantics; the best schedule is built, checked
against NumPy and timed, and the search resumed from its log. The conv is topi's, as in the
tutorial; the check is NumPy's, computed here tap by tap."""

import os
import tempfile
import warnings

import numpy as np
import tvm
from tvm import auto_scheduler, te, topi


@auto_scheduler.register_workload
def conv2d_layer(N, H, W, CO, CI, KH, KW, stride, padding):  # noqa: N803 - the tutorial's names
    data = te.placeholder((N, CI, H, W), name="data")
    kernel = te.placeholder((CO, CI, KH, KW), name="kernel")
    bias = te.placeholder((1, CO, 1, 1), name="bias")
    conv = topi.nn.conv2d_nchw(data, kernel, stride, padding, dilation=1, out_dtype="float32")
    out = topi.nn.relu(conv + bias)
    return [data, kernel, bias, out]


target = tvm.target.Target("cuda")
N, H, W, CO, CI, KH, KW, strides, padding = 1, 7, 7, 16, 16, 3, 3, 1, 1
task = auto_scheduler.SearchTask(func=conv2d_layer, args=(N, H, W, CO, CI, KH, KW, strides, padding), target=target)
print("Computational DAG:")
print(task.compute_dag)

folder = tempfile.mkdtemp()
log_file = os.path.join(folder, "conv2d.json")
measure_ctx = auto_scheduler.LocalRPCMeasureContext(min_repeat_ms=10)
tune_option = auto_scheduler.TuningOptions(
    num_measure_trials=4, runner=measure_ctx.runner, measure_callbacks=[auto_scheduler.RecordToFile(log_file)],
    verbose=2)
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    task.tune(tune_option)
sch, args = task.apply_best(log_file)
del measure_ctx
print("Lowered TIR:")
print(tvm.lower(sch, args, simple_mode=True))

func = tvm.build(sch, args, target)
data_np = np.random.uniform(size=(N, CI, H, W)).astype(np.float32)
weight_np = np.random.uniform(size=(CO, CI, KH, KW)).astype(np.float32)
bias_np = np.random.uniform(size=(1, CO, 1, 1)).astype(np.float32)
padded = np.pad(data_np, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
conv_np = np.zeros((N, CO, H, W), np.float32)
for dy in range(KH):
    for dx in range(KW):
        conv_np += np.einsum("nchw,fc->nfhw", padded[:, :, dy:dy + H, dx:dx + W], weight_np[:, :, dy, dx])
out_np = np.maximum(conv_np + bias_np, 0.0)

dev = tvm.cuda()
data_tvm = tvm.nd.array(data_np, device=dev)
weight_tvm = tvm.nd.array(weight_np, device=dev)
bias_tvm = tvm.nd.array(bias_np, device=dev)
out_tvm = tvm.nd.empty(out_np.shape, device=dev)
func(data_tvm, weight_tvm, bias_tvm, out_tvm)
np.testing.assert_allclose(out_np, out_tvm.numpy(), rtol=1e-3)
evaluator = func.time_evaluator(func.entry_name, dev, min_repeat_ms=5)
print("Execution time of this operator: %.3f ms"
      % (np.median(evaluator(data_tvm, weight_tvm, bias_tvm, out_tvm).results) * 1000))

print("Equivalent python schedule:")
print(task.print_best(log_file, print_mode="schedule"))
print("CUDA source code:")
source = task.print_best(log_file, print_mode="cuda")
assert "conv2d_nchw" in source and "compute" in source  # topi's stage names


def resume_search(task, log_file):
    cost_model = auto_scheduler.XGBModel()
    cost_model.update_from_file(log_file)
    search_policy = auto_scheduler.SketchPolicy(
        task, cost_model, init_search_callbacks=[auto_scheduler.PreloadMeasuredStates(log_file)])
    measure_ctx = auto_scheduler.LocalRPCMeasureContext(min_repeat_ms=10)
    tune_option = auto_scheduler.TuningOptions(
        num_measure_trials=2, runner=measure_ctx.runner, measure_callbacks=[auto_scheduler.RecordToFile(log_file)])
    task.tune(tune_option, search_policy=search_policy)
    del measure_ctx


resume_search(task, log_file)
# six states: the resumed search measured new ones only (a state logged twice was re-measured)
assert len({task.compute_dag.print_python_code_from_state(inp.state)
            for inp, _ in auto_scheduler.load_records(log_file)}) == 6
sch, args = task.apply_best(log_file)
out_tvm = tvm.nd.empty(out_np.shape, device=dev)
tvm.build(sch, args, target)(data_tvm, weight_tvm, bias_tvm, out_tvm)
np.testing.assert_allclose(out_np, out_tvm.numpy(), rtol=1e-3)
