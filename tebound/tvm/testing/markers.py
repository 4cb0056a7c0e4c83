"""TVM's test markers that mean nothing here: every target runs on this machine and the
project is not a wheel of TVM, so the marked tests run as they are."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _unchanged(fn: Callable[..., Any]) -> Callable[..., Any]:
    return fn


skip_if_wheel_test = _unchanged
uses_gpu = _unchanged
requires_llvm = _unchanged
requires_gpu = _unchanged
requires_cuda = _unchanged
