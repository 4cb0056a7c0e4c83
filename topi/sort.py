"""Sorting (TVM's ``topi.sort``, ``topi.argsort`` and ``topi.topk``): extern operations whose
packed functions (registered under TVM's names, ``tvm.contrib.sort.*``) sort with NumPy's
stable sort along one axis, ascending or descending; equal elements keep their order. An
argsort given a ``valid_count`` sorts only that many leading elements of each line (TVM's
``argsort_nms``, which non-maximum suppression uses) and leaves the rest in place."""

from __future__ import annotations

from typing import Any

import numpy as np

from schedule import Tensor, extern, get_global_func, register_func
from schedule.ir import arith
from schedule.ir.buffer import call_packed

SORT, ARGSORT, TOPK = "tvm.contrib.sort.sort", "tvm.contrib.sort.argsort", "tvm.contrib.sort.topk"
ARGSORT_NMS = "tvm.contrib.sort.argsort_nms"


def _order(data: np.ndarray, axis: int, ascend: int) -> np.ndarray:
    """The stable sorting permutation of *data* along *axis*."""
    if ascend:
        keys = data
    elif data.dtype.kind in "ib":  # ~x reverses the order of signed integers and bools, exactly
        keys = ~data
    elif data.dtype.kind == "u":
        keys = np.iinfo(data.dtype).max - data
    else:
        keys = -data
    return np.argsort(keys, axis=axis, kind="stable")


def _sort(data: np.ndarray, out: np.ndarray, axis: int, ascend: int) -> None:
    out[...] = np.take_along_axis(data, _order(data, axis, ascend), axis=axis)


def _argsort(data: np.ndarray, out: np.ndarray, axis: int, ascend: int) -> None:
    out[...] = _order(data, axis, ascend).astype(out.dtype)


def _argsort_nms(data: np.ndarray, count: np.ndarray, out: np.ndarray, axis: int, ascend: int) -> None:
    """The stable order of each line's first ``count`` elements along *axis*; the positions
    past them hold their own index."""
    lines = np.moveaxis(data, axis, -1).reshape(-1, data.shape[axis])
    result = np.moveaxis(out, axis, -1).reshape(-1, data.shape[axis]).copy()
    for line, n, row in zip(lines, count.reshape(-1), result):
        n = int(min(max(int(n), 0), len(line)))
        row[...] = np.arange(len(line))
        row[:n] = _order(line[:n], 0, ascend)
    out[...] = np.moveaxis(result.reshape(np.moveaxis(out, axis, -1).shape), -1, axis)


def _register() -> None:
    for name, fn in ((SORT, _sort), (ARGSORT, _argsort), (ARGSORT_NMS, _argsort_nms)):
        if get_global_func(name, allow_missing=True) is None:  # a user's registration stays
            register_func(name, fn)


def check_valid_count(data: Tensor, valid_count: Any, axis: int) -> None:
    """Refuse a *valid_count* that is not an int32 tensor of *data*'s shape without *axis*."""
    lines = [d for k, d in enumerate(data.shape) if k != axis]
    if not isinstance(valid_count, Tensor) or valid_count.dtype != "int32" or [
            arith.value_of(d) for d in valid_count.shape] != [arith.value_of(d) for d in lines]:
        raise ValueError(f"topi.argsort: valid_count is an int32 tensor of shape {list(map(str, lines))} "
                         f"(data's shape without axis {axis}), got {valid_count!r}")


def check_topk(data: Tensor, k: int, axis: int, ret_type: str) -> Any:
    """The number of elements topk keeps along *axis* (all for *k* below 1).

    :raises ValueError: for another *ret_type* or a *k* past the axis' extent."""
    if ret_type not in ("both", "values", "indices"):
        raise ValueError(f"topi.topk: ret_type is 'both', 'values' or 'indices', not {ret_type!r}")
    extent = data.shape[axis]
    known = getattr(extent, "value", None)
    if isinstance(known, int) and k > known:
        raise ValueError(f"topi.topk: k={k} is more than the {known} elements along axis {axis}")
    return (known if isinstance(known, int) else extent) if k < 1 else k


def axis_of(op: str, data: Tensor, axis: int) -> int:
    if not isinstance(data, Tensor):
        raise TypeError(f"topi.{op}: sorts a tensor, not {data!r}")
    if not isinstance(axis, int) or not -len(data.shape) <= axis < len(data.shape):
        raise ValueError(f"topi.{op}: axis {axis!r} is out of range for {len(data.shape)} dimensions")
    return axis % len(data.shape)


def sort(data: Tensor, axis: int = -1, is_ascend: bool = True) -> Tensor:
    """*data* sorted along *axis*."""
    axis = axis_of("sort", data, axis)
    _register()
    return extern(data.shape, [data], lambda ins, outs: call_packed(SORT, ins[0], outs[0], axis, int(is_ascend)),
                  name="sort", dtype=data.dtype, tag="sort")


def argsort(data: Tensor, valid_count: Any = None, axis: int = -1, is_ascend: bool = True,
            dtype: str = "float32") -> Tensor:
    """The indices that sort *data* along *axis*, as *dtype*. With *valid_count* (an int32
    tensor of *data*'s shape without *axis*), only each line's first ``valid_count`` elements
    are sorted, the others keep their index, and the indices are int32 (as TVM's).

    :raises ValueError: for a *valid_count* of another shape or dtype.
    """
    axis = axis_of("argsort", data, axis)
    _register()
    if valid_count is not None:
        check_valid_count(data, valid_count, axis)
        return extern(data.shape, [data, valid_count],
                      lambda ins, outs: call_packed(ARGSORT_NMS, ins[0], ins[1], outs[0], axis, int(is_ascend)),
                      name="argsort_nms_cpu", dtype="int32", tag="argsort_nms_cpu")
    return extern(data.shape, [data], lambda ins, outs: call_packed(ARGSORT, ins[0], outs[0], axis, int(is_ascend)),
                  name="argsort", dtype=dtype, tag="argsort")


def topk(data: Tensor, k: int = 1, axis: int = -1, ret_type: str = "both", is_ascend: bool = False,
         dtype: str = "int64") -> Any:
    """The *k* largest (smallest with *is_ascend*) elements along *axis*, in order, and or their
    indices (as *dtype*): *ret_type* is ``"both"`` (a list of the two), ``"values"`` or
    ``"indices"``; *k* below 1 takes them all.

    :raises ValueError: for another *ret_type* or a *k* past the axis' extent.
    """
    axis = axis_of("topk", data, axis)
    count = check_topk(data, k, axis, ret_type)
    shape = tuple(count if d == axis else s for d, s in enumerate(data.shape))
    kinds = {"both": [data.dtype, dtype], "values": [data.dtype], "indices": [dtype]}[ret_type]
    name = f"{TOPK}.{ret_type}"
    if get_global_func(name, allow_missing=True) is None:
        register_func(name, _topk_of(ret_type))
    outs = extern([shape] * len(kinds), [data],
                  lambda ins, outs: call_packed(name, ins[0], *outs, count, axis, int(is_ascend)),
                  name="topk", dtype=kinds, tag="topk")
    outs = outs if isinstance(outs, list) else [outs]
    return outs if ret_type == "both" else outs[0]


def _topk_of(ret_type: str) -> Any:
    """The packed function of topk returning *ret_type*."""

    def run(data: np.ndarray, *rest: Any) -> None:
        *outs, k, axis, ascend = rest
        order = np.take(_order(data, axis, ascend), np.arange(k), axis=axis)
        if ret_type in ("both", "values"):
            outs[0][...] = np.take_along_axis(data, order, axis=axis)
        if ret_type in ("both", "indices"):
            outs[-1][...] = order.astype(outs[-1].dtype)

    return run
