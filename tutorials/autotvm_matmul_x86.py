"""TVM's "Optimizing Operators with Schedule Templates and AutoTVM" tutorial, with this project's
imports: a matmul template with two split knobs, its 100-configuration space, ten random
trials measured in worker processes and logged, and the best configuration rebuilt and checked
against NumPy. (TVM writes ``matmul.log`` in the working directory; here it goes to a temporary
one.)"""

import logging
import os
import sys
import tempfile

import numpy as np

import schedule as te
from lower import build, nd
from tune import autotvm


@autotvm.template("tutorial/matmul")
def matmul(N, L, M, dtype):
    A = te.placeholder((N, L), name="A", dtype=dtype)
    B = te.placeholder((L, M), name="B", dtype=dtype)

    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)

    # schedule
    y, x = s[C].op.axis
    k = s[C].op.reduce_axis[0]

    ##### define space begin #####
    cfg = autotvm.get_config()
    cfg.define_split("tile_y", y, num_outputs=2)
    cfg.define_split("tile_x", x, num_outputs=2)
    ##### define space end #####

    # schedule according to config
    yo, yi = cfg["tile_y"].apply(s, C, y)
    xo, xi = cfg["tile_x"].apply(s, C, x)

    s[C].reorder(yo, xo, k, yi, xi)

    return s, [A, B, C]


def main() -> None:
    N, L, M = 512, 512, 512
    task = autotvm.task.create("tutorial/matmul", args=(N, L, M, "float32"), target="llvm")
    print(task.config_space)

    logging.getLogger("autotvm").setLevel(logging.DEBUG)
    logging.getLogger("autotvm").addHandler(logging.StreamHandler(sys.stdout))

    measure_option = autotvm.measure_option(builder="local", runner=autotvm.LocalRunner(number=5))
    with tempfile.TemporaryDirectory(prefix="autotvm_") as folder:
        tune_and_check(task, measure_option, os.path.join(folder, "matmul.log"), N, L, M)


def tune_and_check(task, measure_option, log: str, N: int, L: int, M: int) -> None:  # noqa: N803 - TVM's names
    """Ten random trials logged to *log*, then the best one built and checked against NumPy."""
    tuner = autotvm.tuner.RandomTuner(task)
    tuner.tune(
        n_trial=10,
        measure_option=measure_option,
        callbacks=[autotvm.callback.log_to_file(log)],
    )

    with autotvm.apply_history_best(log):
        s, arg_bufs = matmul(N, L, M, "float32")
        func = build(s, arg_bufs)

    a_np = np.random.uniform(size=(N, L)).astype(np.float32)
    b_np = np.random.uniform(size=(L, M)).astype(np.float32)
    c_np = a_np.dot(b_np)

    c_tvm = nd.empty(c_np.shape)
    func(nd.array(a_np), nd.array(b_np), c_tvm)

    np.testing.assert_allclose(c_np, c_tvm.numpy(), rtol=1e-4)
    print(f"best of {len(open(log).readlines())} trials: {tuner.best_config}, {tuner.best_cost * 1e3:.3f} ms; "
          "the result equals NumPy's")


if __name__ == "__main__":  # worker processes import this file again
    main()
