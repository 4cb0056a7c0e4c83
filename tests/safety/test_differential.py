"""C and the checked Python target agree on every call: the same arrays, or the same exception.

Random calls of kernels that can go wrong as users' do (:mod:`kernels`): zero and negative
divisors and factors, indices from data, scalars at the int32 limit, overlapping arrays,
symbolic shapes read past their end, Python functions that raise or return no number, and
random pipelines with random schedules. Hypothesis draws the kernel and its arguments; each
kernel is built once per target."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import lower

from .isolated import TARGETS
from .kernels import KERNELS, Kernel, materialize, register_functions

pytestmark = pytest.mark.skipif(len(TARGETS) < 2, reason="no C compiler: nothing to compare")

register_functions()
_built: dict[tuple[str, str], Any] = {}


def _function(kernel: Kernel, target: str) -> Any:
    key = (kernel.name, target)
    if key not in _built:
        s, args = kernel.make()
        _built[key] = lower.build(s, args, target=target)
    return _built[key]


def _outcome(kernel: Kernel, target: str, specs: list[Any]) -> tuple[str, Any]:
    f = _function(kernel, target)  # every kernel builds: an error here fails the test
    values = materialize(specs)
    try:
        f(*values)
    except Exception as err:  # noqa: BLE001 - the outcome compared
        return "raised", type(err).__name__
    return "returned", [v.copy() for v in values if isinstance(v, np.ndarray)]


def _same(a: tuple[str, Any], b: tuple[str, Any]) -> bool:
    if a[0] != b[0]:
        return False
    if a[0] == "raised":
        return a[1] == b[1]
    for x, y in zip(a[1], b[1]):
        if x.dtype.kind == "f":
            if not np.allclose(x, y, rtol=1e-4, atol=1e-5, equal_nan=True):
                return False
        elif not np.array_equal(x, y):
            return False
    return True


@settings(max_examples=1200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_c_and_python_agree(data):
    kernel = data.draw(st.sampled_from(KERNELS), label="kernel")
    specs = kernel.args(data)
    python, c = (_outcome(kernel, target, specs) for target in ("python", "c"))
    assert _same(python, c), f"{kernel.name}: python {python}, c {c}"
