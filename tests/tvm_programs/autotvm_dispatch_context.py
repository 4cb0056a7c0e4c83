"""TVM's test_autotvm_dispatch_context (v0.14), written anew: a template called with no
configuration known gets the fallback. (Its tophub case needs TVM's pre-tuned logs, which
are downloaded: offline, tophub.context is empty, which is checked instead.)"""

import warnings

import tvm
from tvm import autotvm


@autotvm.template("testing/dispatch_fallback")
def uses_the_fallback(a, b):
    cfg = autotvm.get_config()
    assert cfg.is_fallback
    assert tvm.target.Target.current() is None or a == 2


def test_fallback():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        uses_the_fallback(2, 3)


def test_tophub_offline_is_empty():
    context = autotvm.tophub.context("llvm -device=arm_cpu -mtriple=aarch64-linux-gnu -mattr=+neon")
    assert context.best_by_targetkey == {} and context.best_by_workload == {}


if __name__ == "__main__":
    test_fallback()
    test_tophub_offline_is_empty()
