"""The schedule TVM's tests pick for a target (``topi.testing.dispatch`` and
``get_injective_schedule`` ...): the first of the target's keys the table names, else its
``generic`` entry."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

import schedule as te
from lower.build import build
from lower.target import Target
from topi import cuda, generic, nn, x86


def dispatch(target: Any, dispatch_map: Mapping[str, Callable[..., Any]]) -> Callable[..., Any]:
    """The entry of *dispatch_map* for *target* (a Target or its text)."""
    target = target if isinstance(target, Target) else Target(target)
    for key in target.keys:
        if key in dispatch_map:
            return dispatch_map[key]
    return dispatch_map["generic"]


def _table(name: str) -> dict[str, Callable[..., Any]]:
    return {"generic": getattr(generic, name), "cpu": getattr(x86, name), "gpu": getattr(cuda, name)}


def get_injective_schedule(target: Any) -> Callable[..., Any]:
    """``schedule_injective`` for *target*."""
    return dispatch(target, _table("schedule_injective"))


def get_broadcast_schedule(target: Any) -> Callable[..., Any]:
    """``schedule_broadcast`` for *target*."""
    return dispatch(target, _table("schedule_broadcast"))


def get_elemwise_schedule(target: Any) -> Callable[..., Any]:
    """``schedule_elemwise`` for *target*."""
    return dispatch(target, _table("schedule_elemwise"))


def get_reduce_schedule(target: Any) -> Callable[..., Any]:
    """``schedule_reduce`` for *target*."""
    return dispatch(target, _table("schedule_reduce"))


def get_conv2d_nchw_implement(target: Any) -> tuple[Callable[..., Any], Callable[..., Any]]:
    """(``nn.conv2d_nchw``, its schedule for *target*)."""
    return nn.conv2d_nchw, dispatch(target, _table("schedule_conv2d_nchw"))


def compare_numpy_tvm(inputs: Sequence[np.ndarray], output: np.ndarray, target: Any, device: Any,
                      compute: Callable[..., Any], schedule: Callable[..., Any]) -> None:
    """Build ``compute`` over placeholders of *inputs*' shapes and dtypes, scheduled by
    *schedule* under *target*, run it on *inputs*, and check its output against *output*
    (*device* is accepted: the arrays are NumPy's).

    :raises AssertionError: where the output differs beyond 1e-4.
    """
    placeholders = [te.placeholder(a.shape, dtype=str(a.dtype), name=f"input{k}") for k, a in enumerate(inputs)]
    # Our reference target "python" schedules as the CPU does.
    with target if isinstance(target, Target) else Target("llvm" if target == "python" else target):
        out = compute(*placeholders)
        s = schedule([out])
    result = np.zeros(output.shape, output.dtype)
    build(s, [*placeholders, out], target)(*inputs, result)
    np.testing.assert_allclose(result, output, atol=1e-4, rtol=1e-4)
