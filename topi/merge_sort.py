"""Sorting on a GPU (TVM's ``topi.cuda.sort``, ``argsort`` and ``topk``): a bottom-up merge
sort whose passes are kernels, one thread per element.

Each pass merges neighbouring sorted runs of every line: an element's place in the merged run
is its place in its own run plus the number of elements of the other run that come before it,
found by a binary search. Elements of the left run go before equal ones of the right, so the
sort is stable, as NumPy's. NaN comes last, in either order; with a ``valid_count``, elements
past each line's count stay where they are. The line length must be known: a symbolic one is
sorted on the host (:mod:`topi.sort`)."""

from __future__ import annotations

import math
from typing import Any

import schedule as te
from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from schedule.ir.dtype import is_float
from topi.extern_items import each_item
from topi.sort import argsort as host_argsort
from topi.sort import axis_of, check_topk, check_valid_count
from topi.sort import sort as host_sort
from topi.sort import topk as host_topk
from topi.utils import get_const_tuple


def _lines(data: Tensor, axis: int) -> tuple[int, int, int] | None:
    """(lines, their length, the stride between a line's elements), or None for a symbolic shape."""
    shape = [arith.value_of(d) for d in data.shape]
    if any(d is None for d in shape):
        return None
    return math.prod(shape) // max(shape[axis], 1), shape[axis], math.prod(shape[axis + 1:])


def _sorted(data: Tensor, axis: int, ascend: bool, index_dtype: str, valid_count: Tensor | None,
            with_values: bool, name: str) -> list[Tensor]:
    """The extern operation: ``[indices]`` or ``[values, indices]`` of *data* sorted along *axis*."""
    lines, n, after = _lines(data, axis)  # type: ignore[misc]
    total = lines * n
    ranked = is_float(data.dtype) or valid_count is not None  # some elements go last whatever their key

    def address(line: Any, p: Any) -> Any:
        return (line // after) * (n * after) + p * after + line % after

    def body(ins: Any, outs: Any) -> Any:
        ib = ir_builder.create()
        src = ib.buffer_ptr(ins[0])
        count = ib.buffer_ptr(ins[1]) if valid_count is not None else None
        out_values = ib.buffer_ptr(outs[0]) if with_values else None
        out_index = ib.buffer_ptr(outs[-1])
        keys = [ib.allocate(data.dtype, (total,), f"keys{k}", "global") for k in range(2)]
        index = [ib.allocate("int32", (total,), f"index{k}", "global") for k in range(2)]
        rank = [ib.allocate("int8", (total,), f"rank{k}", "global") for k in range(2)] if ranked else None

        def before(ka: Any, ra: Any, kb: Any, rb: Any) -> Any:
            """Whether key *ka* (rank *ra*) sorts strictly before *kb* (rank *rb*)."""
            less = ka < kb if ascend else ka > kb
            if rank is None:
                return less
            return te.any(ra < rb, te.all(ra == rb, ra == arith.const(0, "int8"), less))

        with ib.new_scope():  # the lines into the first buffers, each element with its position
            with each_item(ib, total, True, "e") as e:
                line, p = e // n, e % n
                value = src[address(line, p)]
                keys[0][e] = value
                index[0][e] = p
                if rank is not None:
                    last = arith.const(0, "int8")
                    if is_float(data.dtype):
                        last = te.if_then_else(te.isnan(value), arith.const(1, "int8"), last)
                    if count is not None:
                        last = te.if_then_else(p >= count[line], arith.const(2, "int8"), last)
                    rank[0][e] = last
        width, a = 1, 0
        while width < n:
            b = 1 - a
            with ib.new_scope():
                with each_item(ib, total, True, "e") as e:
                    line, p = ib.let("line", e // n), ib.let("p", e % n)
                    start = ib.let("start", p // (2 * width) * (2 * width))
                    middle = ib.let("middle", te.min(start + width, n))
                    end = te.min(start + 2 * width, n)
                    key = ib.let("key", keys[a][e])
                    own = ib.let("key_rank", rank[a][e]) if rank is not None else None
                    left = ib.let("in_left", p < middle)
                    # the other run, and the test its elements pass when they come before this one
                    lo = ib.allocate("int32", (1,), "lo", "local")
                    hi = ib.allocate("int32", (1,), "hi", "local")
                    first = ib.let("first", te.if_then_else(left, middle, start))
                    lo[0] = first
                    hi[0] = te.if_then_else(left, end, middle)
                    with ib.while_loop(lo[0] < hi[0]):
                        mid = ib.let("mid", (lo[0] + hi[0]) >> 1)
                        other = line * n + mid
                        other_key = ib.let("other_key", keys[a][other])
                        other_rank = ib.let("other_rank", rank[a][other]) if rank is not None else None
                        comes_before = te.if_then_else(
                            left, before(other_key, other_rank, key, own),
                            arith.logical_not(before(key, own, other_key, other_rank)))
                        with ib.if_scope(comes_before):
                            lo[0] = mid + 1
                        with ib.else_scope():
                            hi[0] = mid
                    own_start = te.if_then_else(left, start, middle)
                    place = ib.let("place", line * n + start + (p - own_start) + (lo[0] - first))
                    keys[b][place] = key
                    index[b][place] = index[a][e]
                    if rank is not None:
                        rank[b][place] = own
            width, a = width * 2, b
        with ib.new_scope():
            with each_item(ib, total, True, "e") as e:
                line, p = e // n, e % n
                if out_values is not None:
                    out_values[address(line, p)] = keys[a][e]
                out_index[address(line, p)] = index[a][e].astype(index_dtype)
        return ib.get()

    inputs = [data] + ([valid_count] if valid_count is not None else [])
    shapes = [data.shape] * (2 if with_values else 1)
    dtypes = ([data.dtype] if with_values else []) + [index_dtype]
    outs = extern(shapes, inputs, body, dtype=dtypes, name=name, tag=name)
    return outs if isinstance(outs, list) else [outs]


def _leading(t: Tensor, shape: tuple[Any, ...], name: str) -> Tensor:
    """The first elements of each line of *t*, *shape* of them."""
    return te.compute(shape, lambda *i: t(*i), name=name, tag="topk")


def argsort(data: Tensor, valid_count: Any = None, axis: int = -1, is_ascend: bool = True,
            dtype: str = "float32") -> Tensor:
    """The indices that sort *data* along *axis* (int32 with *valid_count*, as
    :func:`topi.sort.argsort`), sorted on the GPU."""
    axis = axis_of("argsort", data, axis)
    if _lines(data, axis) is None:
        return host_argsort(data, valid_count, axis, is_ascend, dtype)
    if valid_count is not None:
        check_valid_count(data, valid_count, axis)
        dtype = "int32"
    return _sorted(data, axis, is_ascend, dtype, valid_count, False, "argsort_gpu")[0]


def sort(data: Tensor, axis: int = -1, is_ascend: bool = True) -> Tensor:
    """*data* sorted along *axis* on the GPU."""
    axis = axis_of("sort", data, axis)
    if _lines(data, axis) is None:
        return host_sort(data, axis, is_ascend)
    return _sorted(data, axis, is_ascend, "int32", None, True, "sort_gpu")[0]


def topk(data: Tensor, k: int = 1, axis: int = -1, ret_type: str = "both", is_ascend: bool = False,
         dtype: str = "int64") -> Any:
    """The *k* largest (smallest with *is_ascend*) elements along *axis* and or their indices,
    from a GPU sort of each line (see :func:`topi.sort.topk`)."""
    axis = axis_of("topk", data, axis)
    count = check_topk(data, k, axis, ret_type)
    if _lines(data, axis) is None:
        return host_topk(data, k, axis, ret_type, is_ascend, dtype)
    values, order = _sorted(data, axis, is_ascend, dtype, None, True, "topk_gpu")
    shape = tuple(count if d == axis else s for d, s in enumerate(get_const_tuple(data.shape)))
    first = [_leading(t, shape, f"topk_{name}") for t, name in ((values, "values"), (order, "indices"))]
    return {"both": first, "values": first[0], "indices": first[1]}[ret_type]
