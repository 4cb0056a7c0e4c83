"""TVM's ``tvm.testing``: ``assert_allclose`` with TVM's tolerances, and ``main`` (a no-op
runner entry: tests here run under pytest)."""

from tebound.tvm.testing.checks import assert_allclose, main

__all__ = ["assert_allclose", "main"]
