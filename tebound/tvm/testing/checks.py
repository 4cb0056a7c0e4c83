"""TVM's checks: ``assert_allclose`` with TVM's tolerances, ``assert_prim_expr_equal`` (the
analyzer proves two expressions equal) and ``check_numerical_grads`` (gradients against finite
differences)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from bound import Analyzer
from schedule.ir.arith import convert, equal


def assert_allclose(actual: Any, desired: Any, rtol: float = 1e-7, atol: float = 1e-7, verbose: bool = True) -> None:
    """Raise AssertionError unless *actual* and *desired* have one shape and agree within
    ``atol + rtol * |desired|`` element by element."""
    actual, desired = np.asarray(actual), np.asarray(desired)
    np.testing.assert_allclose(actual.shape, desired.shape)
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol, verbose=verbose)


def assert_prim_expr_equal(lhs: Any, rhs: Any) -> None:
    """Raise ValueError unless the analyzer proves *lhs* equal to *rhs* (TVM raises ValueError too)."""
    if not Analyzer().can_prove(equal(convert(lhs), convert(rhs))):
        raise ValueError(f"{lhs} and {rhs} are not equal")


def check_numerical_grads(function: Callable[..., Any], input_values: Sequence[Any] | Mapping[str, Any],
                          grad_values: Sequence[Any] | Mapping[str, Any], function_value: Any = None,
                          delta: float = 1e-3, atol: float = 1e-2, rtol: float = 0.1) -> None:
    """Compare the gradients *grad_values* of the scalar *function* at *input_values* (a list
    of positional arrays or a dict of keyword arrays) with central differences of step
    *delta*: the distance between the two must stay within ``atol * sqrt(n) + rtol * |numerical|``.

    :raises AssertionError: for a gradient of the wrong shape or too far from the numerical one.
    :raises ValueError: when a difference is not finite.
    """
    if isinstance(input_values, Mapping):
        names, call = list(input_values), (lambda vals: function(**dict(zip(names, vals))))
        inputs = [np.asarray(input_values[n]) for n in names]
        grads = [np.asarray(grad_values[n]) for n in names]
    else:
        names, call = [str(i) for i in range(len(input_values))], (lambda vals: function(*vals))
        inputs, grads = [np.asarray(v) for v in input_values], [np.asarray(g) for g in grad_values]
    for k, (name, x, grad) in enumerate(zip(names, inputs, grads)):
        if grad.shape != x.shape:
            raise AssertionError(f"Gradient wrt '{name}' has shape {grad.shape}, expected {x.shape}")
        numeric = np.zeros(grad.shape, dtype="float64")
        for j in range(x.size):
            ends = []
            for step in (delta, -delta):
                moved = x.copy()
                moved.reshape(-1)[j] += step
                ends.append(float(np.asarray(call(inputs[:k] + [moved] + inputs[k + 1:]))))
            numeric.reshape(-1)[j] = (ends[0] - ends[1]) / (2 * delta)
        dist = float(np.sqrt(np.sum((numeric - grad) ** 2)))
        norm = float(np.sqrt(np.sum(numeric ** 2)))
        if not (np.isfinite(dist) and np.isfinite(norm)):
            raise ValueError(f"a NaN or infinity in the gradients wrt '{name}':\n"
                             f"analytical {grad}\nnumerical {numeric}")
        if dist > atol * np.sqrt(float(max(grad.size, 1))) + rtol * norm:
            raise AssertionError(f"Analytical and numerical grads wrt '{name}' differ too much (distance {dist}):\n"
                                 f"analytical {grad}\nnumerical {numeric}")


def main() -> None:
    """TVM's test files end with ``tvm.testing.main()``; pytest runs them here, so it does nothing."""
