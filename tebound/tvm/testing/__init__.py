"""TVM's ``tvm.testing``: ``assert_allclose`` with TVM's tolerances, ``main`` (a no-op runner
entry: tests here run under pytest), and TVM's markers (which change nothing here)."""

from tebound.tvm.testing.checks import assert_allclose, main
from tebound.tvm.testing.markers import requires_cuda, requires_gpu, requires_llvm, skip_if_wheel_test, uses_gpu

__all__ = ["assert_allclose", "main", "requires_cuda", "requires_gpu", "requires_llvm", "skip_if_wheel_test",
           "uses_gpu"]
