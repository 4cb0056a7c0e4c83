"""TVM's tutorial autotvm_matmul_x86, written anew at a size CI can tune: a matmul scheduled
by hand, then as a template with knobs, then with split knobs; the split space printed, tuned
with a RandomTuner into a log (with autotvm's debug log on stdout), and the best
configuration applied with apply_history_best and checked against NumPy."""

import logging
import os
import sys
import tempfile

import numpy as np
import tvm
import tvm.testing
from tvm import autotvm, te


def matmul_compute(N, L, M, dtype):  # noqa: N803 - the tutorial's names
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    return A, B, C


def matmul_basic(N, L, M, dtype):  # noqa: N803
    A, B, C = matmul_compute(N, L, M, dtype)
    s = te.create_schedule(C.op)
    y, x = s[C].op.axis
    k = s[C].op.reduce_axis[0]
    yo, yi = s[C].split(y, 8)
    xo, xi = s[C].split(x, 8)
    s[C].reorder(yo, xo, k, yi, xi)
    return s, [A, B, C]


@autotvm.template("tutorial/matmul_v1")
def matmul_v1(N, L, M, dtype):  # noqa: N803
    A, B, C = matmul_compute(N, L, M, dtype)
    s = te.create_schedule(C.op)
    y, x = s[C].op.axis
    k = s[C].op.reduce_axis[0]
    cfg = autotvm.get_config()
    cfg.define_knob("tile_y", [1, 2, 4, 8, 16])
    cfg.define_knob("tile_x", [1, 2, 4, 8, 16])
    yo, yi = s[C].split(y, cfg["tile_y"].val)
    xo, xi = s[C].split(x, cfg["tile_x"].val)
    s[C].reorder(yo, xo, k, yi, xi)
    return s, [A, B, C]


@autotvm.template("tutorial/matmul")
def matmul(N, L, M, dtype):  # noqa: N803
    A, B, C = matmul_compute(N, L, M, dtype)
    s = te.create_schedule(C.op)
    y, x = s[C].op.axis
    k = s[C].op.reduce_axis[0]
    cfg = autotvm.get_config()
    cfg.define_split("tile_y", y, num_outputs=2)
    cfg.define_split("tile_x", x, num_outputs=2)
    yo, yi = cfg["tile_y"].apply(s, C, y)
    xo, xi = cfg["tile_x"].apply(s, C, x)
    s[C].reorder(yo, xo, k, yi, xi)
    return s, [A, B, C]


N, L, M = 64, 64, 64
a_np = np.random.uniform(size=(N, L)).astype(np.float32)
b_np = np.random.uniform(size=(L, M)).astype(np.float32)
c_np = a_np.dot(b_np)

s, args = matmul_basic(N, L, M, "float32")
c_tvm = tvm.nd.empty(c_np.shape)
tvm.build(s, args, "llvm")(tvm.nd.array(a_np), tvm.nd.array(b_np), c_tvm)
tvm.testing.assert_allclose(c_np, c_tvm.numpy(), rtol=1e-4)

task_v1 = autotvm.task.create("tutorial/matmul_v1", args=(N, L, M, "float32"), target="llvm")
assert len(task_v1.config_space) == 25

task = autotvm.task.create("tutorial/matmul", args=(N, L, M, "float32"), target="llvm")
print(task.config_space)
assert len(task.config_space) == 49  # 7 divisors of 64 for each of the two splits

logger = logging.getLogger("autotvm")
logger.setLevel(logging.DEBUG)
handler = logging.StreamHandler(sys.stdout)
logger.addHandler(handler)
log_file = os.path.join(tempfile.mkdtemp(), "matmul.log")
measure_option = autotvm.measure_option(builder="local", runner=autotvm.LocalRunner(number=5))
tuner = autotvm.tuner.RandomTuner(task)
try:
    tuner.tune(n_trial=6, measure_option=measure_option, callbacks=[autotvm.callback.log_to_file(log_file)])
finally:
    logger.removeHandler(handler)
    logger.setLevel(logging.NOTSET)
assert len(list(autotvm.record.load_from_file(log_file))) == 6

with autotvm.apply_history_best(log_file):
    with tvm.target.Target("llvm"):
        s, arg_bufs = matmul(N, L, M, "float32")
        func = tvm.build(s, arg_bufs)
c_tvm = tvm.nd.empty(c_np.shape)
func(tvm.nd.array(a_np), tvm.nd.array(b_np), c_tvm)
tvm.testing.assert_allclose(c_np, c_tvm.numpy(), rtol=1e-4)
# the build is the best configuration of the log
best = min(autotvm.record.load_from_file(log_file), key=lambda r: np.mean(r[1].costs))[0].config
assert str(tvm.lower(s, arg_bufs)) == str(tvm.lower(*task.instantiate(best)))
