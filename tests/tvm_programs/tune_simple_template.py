"""TVM's tutorial tune_simple_template (v0.7), written anew at a size CI can tune: the knob
template matmul_v1 searched exhaustively by a GridSearchTuner (25 configurations, all
measured), and the split template by an XGBTuner; both best configurations applied and
checked against NumPy with v0.7's ``asnumpy``."""

import os
import tempfile

import numpy as np
import tvm
from tvm import autotvm, te


@autotvm.template("tutorial_v07/matmul_v1")
def matmul_v1(N, L, M, dtype):  # noqa: N803 - the tutorial's names
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
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


@autotvm.template("tutorial_v07/matmul")
def matmul(N, L, M, dtype):  # noqa: N803
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
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


N, L, M = 32, 32, 32
a_np = np.random.uniform(size=(N, L)).astype(np.float32)
b_np = np.random.uniform(size=(L, M)).astype(np.float32)
c_np = a_np.dot(b_np)
folder = tempfile.mkdtemp()
measure_option = autotvm.measure_option(builder="local", runner=autotvm.LocalRunner(number=5))

for name, task_name, template, make_tuner, trials in [
        ("v1.log", "tutorial_v07/matmul_v1", matmul_v1, autotvm.tuner.GridSearchTuner, 25),
        ("split.log", "tutorial_v07/matmul", matmul, lambda task: autotvm.tuner.XGBTuner(task, plan_size=4), 8)]:
    task = autotvm.task.create(task_name, args=(N, L, M, "float32"), target="llvm")
    print(task.config_space)
    log_file = os.path.join(folder, name)
    tuner = make_tuner(task)
    tuner.tune(n_trial=trials, measure_option=measure_option,
               callbacks=[autotvm.callback.log_to_file(log_file)])
    records = list(autotvm.record.load_from_file(log_file))
    assert len(records) == trials and all(res.error_no == 0 for _, res in records)
    if template is matmul_v1:  # the grid saw every configuration once
        assert sorted(inp.config.index for inp, _ in records) == list(range(25))
    with autotvm.apply_history_best(log_file):
        with tvm.target.Target("llvm"):
            s, arg_bufs = template(N, L, M, "float32")
            func = tvm.build(s, arg_bufs)
    c_tvm = tvm.nd.empty(c_np.shape)
    func(tvm.nd.array(a_np), tvm.nd.array(b_np), c_tvm)
    tvm.testing.assert_allclose(c_np, c_tvm.asnumpy(), rtol=1e-2)
