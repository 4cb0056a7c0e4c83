"""``assert_allclose`` as TVM's: arrays (NumPy or ``nd``) compared with rtol = atol = 1e-7
unless given, after checking that their shapes agree."""

from __future__ import annotations

from typing import Any

import numpy as np


def assert_allclose(actual: Any, desired: Any, rtol: float = 1e-7, atol: float = 1e-7, verbose: bool = True) -> None:
    """Raise AssertionError unless *actual* and *desired* have one shape and agree within
    ``atol + rtol * |desired|`` element by element."""
    actual, desired = np.asarray(actual), np.asarray(desired)
    np.testing.assert_allclose(actual.shape, desired.shape)
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol, verbose=verbose)


def main() -> None:
    """TVM's test files end with ``tvm.testing.main()``; pytest runs them here, so it does nothing."""
