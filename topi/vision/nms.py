"""Non-maximum suppression for object detection (TVM's ``topi.vision.get_valid_counts`` and
``non_max_suppression``), as extern ``ir_builder`` kernels, one batch item at a time.

Boxes are rows ``[class id, score, 4 coordinates ...]`` (the positions configurable). A removed
or missing box is a row of -1. ``get_valid_counts`` moves the boxes above a score threshold to
the top; ``non_max_suppression`` takes them in descending score (an argsort of the valid part),
keeps ``top_k``, and drops each box that overlaps a kept box of its class (of any class with
``force_suppress``) by at least ``iou_threshold``."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from topi import merge_sort
from topi.extern_items import each_item
from topi.sort import argsort
from topi.transform.shape import tensor
from topi.utils import get_const_tuple
from topi.vision.boxes import corners, iou


def scalar(op: str, name: str, value: Any, dtype: str) -> Any:
    """*value* (a Python number or a scalar expression) as an expression of *dtype*."""
    if isinstance(value, bool) or not isinstance(value, (int, float, arith.Expr)):
        raise TypeError(f"topi.vision.{op}: {name} is a number or a scalar expression, got {value!r}")
    return arith.const(value, dtype) if isinstance(value, (int, float)) else value.astype(dtype)


def _boxes(op: str, data: Any) -> tuple[Tensor, int, int, int]:
    data = tensor(f"vision.{op}", data)
    if len(data.shape) != 3:
        raise ValueError(f"topi.vision.{op}: data is (batch, num_anchors, box length), got shape "
                         f"{list(map(str, data.shape))}")
    return (data, *get_const_tuple(data.shape))


def _fill_row(ib: Any, out: Any, i: Any, j: Any, length: int, value: Any) -> None:
    with ib.for_range(0, length, "k") as k:
        out[i, j, k] = value


def get_valid_counts(data: Tensor, score_threshold: Any = 0, id_index: int = 0, score_index: int = 1,
                     gpu: bool = False) -> list[Tensor]:
    """``[valid_count, out, out_indices]``: per batch item, the number of boxes whose score
    exceeds *score_threshold* (and whose class id, unless *id_index* is -1, is not negative),
    those boxes moved to the top in their order, and the index each came from; the rest -1."""
    data, batch, anchors, length = _boxes("get_valid_counts", data)
    threshold = scalar("get_valid_counts", "score_threshold", score_threshold, data.dtype)
    minus = arith.const(-1, data.dtype)

    def body(d: Any, count: Any, out: Any, where: Any) -> Any:
        ib = ir_builder.create()
        d, count, out, where = (ib.buffer_ptr(b) for b in (d, count, out, where))
        with each_item(ib, batch, gpu) as i:
            count[i] = 0
            with ib.for_range(0, anchors, "j") as j:
                valid = d[i, j, score_index] > threshold
                if id_index >= 0:
                    valid = te.all(valid, d[i, j, id_index] >= arith.const(0, data.dtype))
                with ib.if_scope(valid):
                    with ib.for_range(0, length, "k") as k:
                        out[i, count[i], k] = d[i, j, k]
                    where[i, count[i]] = j
                    count[i] = count[i] + 1
                with ib.if_scope(j >= count[i]):
                    _fill_row(ib, out, i, j, length, minus)
                    where[i, j] = -1
        return ib.get()

    return extern([(batch,), data.shape, (batch, anchors)], [data], lambda ins, outs: body(ins[0], *outs),
                  dtype=["int32", data.dtype, "int32"], name="get_valid_counts", tag="get_valid_counts")


def non_max_suppression(data: Tensor, valid_count: Tensor, indices: Tensor, max_output_size: Any = -1,
                        iou_threshold: Any = 0.5, force_suppress: bool = False, top_k: int = -1,
                        coord_start: int = 2, score_index: int = 1, id_index: int = 0,
                        return_indices: bool = True, invalid_to_bottom: bool = False,
                        gpu: bool = False) -> Any:
    """The boxes of *data* that survive suppression, in descending score, removed ones -1.

    With *return_indices*, ``[indices, valid_box_count]``: the kept boxes' indices in the
    original data (*indices* maps a row of *data* to it, as ``get_valid_counts`` gives), moved
    to the top, and their number per batch item. Otherwise the boxes, moved to the top when
    *invalid_to_bottom*. *max_output_size* below 0 keeps every box; *top_k* below 1 takes
    every valid box into the suppression.
    """
    op = "non_max_suppression"
    data, batch, anchors, length = _boxes(op, data)
    valid_count = tensor(f"vision.{op}", valid_count)
    for name, index, last in (("coord_start", coord_start, 3), ("score_index", score_index, 0),
                              ("id_index", id_index, 0)):
        if isinstance(index, bool) or not isinstance(index, int) or not -1 <= index < length - last or (
                index < 0 and name != "id_index"):
            raise ValueError(f"topi.vision.{op}: {name} must index a box of length {length}, got {index!r}")
    if not isinstance(top_k, int):
        raise TypeError(f"topi.vision.{op}: top_k is an int, got {top_k!r}")
    limit = scalar(op, "max_output_size", max_output_size, "int32")
    threshold = scalar(op, "iou_threshold", iou_threshold, data.dtype)
    if return_indices:
        indices = tensor(f"vision.{op}", indices)
        if get_const_tuple(indices.shape) != (batch, anchors):
            raise ValueError(f"topi.vision.{op}: indices is (batch, num_anchors) = ({batch}, {anchors}), got "
                             f"{list(map(str, indices.shape))}")
    score = te.compute((batch, anchors), lambda i, j: data[i, j, score_index], name="compute")
    order = (merge_sort.argsort if gpu else argsort)(score, valid_count=valid_count, axis=1, is_ascend=False)
    dtype = data.dtype
    minus, zero = arith.const(-1, dtype), arith.const(0, dtype)

    def body(d: Any, sort: Any, count: Any, where: Any, out: Any, kept: Any) -> Any:
        ib = ir_builder.create()
        d, sort, count, out, kept = (ib.buffer_ptr(b) for b in (d, sort, count, out, kept))
        where = ib.buffer_ptr(where) if where is not None else None

        def box(j: Any, side: str) -> Any:
            edges = corners(lambda c: out[i, j, coord_start + c])
            return tuple(ib.let(f"{side}_{edge}", e) for edge, e in zip("ltrb", edges))

        def drop(j: Any) -> None:
            _fill_row(ib, out, i, j, length, minus)
            kept[i, j] = -1

        def suppress() -> None:
            nkeep = te.min(n, arith.const(top_k, "int32")) if top_k > 0 else n
            with ib.for_range(0, nkeep, "j") as j:
                with ib.for_range(0, length, "k") as k:
                    out[i, j, k] = d[i, sort[i, j], k]
                kept[i, j] = sort[i, j]
            if top_k > 0:
                with ib.for_range(nkeep, n, "j") as j:
                    drop(j)
            survivors = ib.allocate("int32", (1,), "num_valid_boxes", "local")
            survivors[0] = 0
            alive = ib.allocate("int32", (1,), "is_valid_box", "local")
            with ib.for_range(0, n, "j") as j:
                with ib.if_scope(survivors[0] == limit):
                    drop(j)
                with ib.else_scope():
                    with ib.if_scope(out[i, j, score_index] > zero):
                        alive[0] = 1
                        a = box(j, "a")
                        with ib.for_range(0, j, "k") as k:
                            check = [alive[0] == 1, out[i, k, score_index] > zero]
                            if id_index >= 0:
                                check.append(out[i, k, id_index] >= zero)
                                if not force_suppress:
                                    check.append(out[i, j, id_index] == out[i, k, id_index])
                            with ib.if_scope(te.all(*check)):
                                with ib.if_scope(iou(a, box(k, "b"), dtype, bind=ib.let) >= threshold):
                                    alive[0] = 0
                        with ib.if_scope(alive[0] == 0):
                            drop(j)
                        with ib.else_scope():
                            survivors[0] = survivors[0] + 1

        def copy() -> None:
            with ib.for_range(0, n, "j") as j:
                with ib.for_range(0, length, "k") as k:
                    out[i, j, k] = d[i, j, k]
                kept[i, j] = j
        with each_item(ib, batch, gpu) as i:
            # a count past the rows reads no further, a negative one reads none
            n = te.max(te.min(count[i], arith.const(anchors, "int32")), arith.const(0, "int32"))
            positive = arith.value_of(threshold)
            if positive is not None:
                (suppress if positive > 0 else copy)()
            else:
                with ib.if_scope(threshold > zero):
                    suppress()
                with ib.else_scope():
                    copy()
            with ib.for_range(n, anchors, "j") as j:
                drop(j)
            if where is not None:
                with ib.for_range(0, n, "j") as j:
                    with ib.if_scope(kept[i, j] >= 0):
                        kept[i, j] = where[i, kept[i, j]]
        return ib.get()

    inputs = [data, order, valid_count] + ([indices] if return_indices else [])
    out, kept = extern([data.shape, (batch, anchors)], inputs,
                       lambda ins, outs: body(ins[0], ins[1], ins[2], ins[3] if return_indices else None, *outs),
                       dtype=[dtype, "int32"], name="hybrid_nms", tag="nms")
    if return_indices:
        return _indices_to_top(kept, gpu)
    return _boxes_to_top(out, gpu) if invalid_to_bottom else out


def _indices_to_top(kept: Tensor, gpu: bool) -> list[Tensor]:
    """``[indices, count]``: each row's non-negative indices moved to the top in order, the
    rest -1, and their number (an index out of the row's range counts as 0, as TVM's)."""
    batch, anchors = get_const_tuple(kept.shape)

    def body(src: Any, out: Any, count: Any) -> Any:
        ib = ir_builder.create()
        src, out, count = ib.buffer_ptr(src), ib.buffer_ptr(out), ib.buffer_ptr(count)
        with each_item(ib, batch, gpu) as i:
            top = ib.allocate("int32", (1,), "valid_indices", "local")
            top[0] = 0
            with ib.for_range(0, anchors, "j") as j:
                with ib.if_scope(src[i, j] >= 0):
                    out[i, top[0]] = src[i, j]
                    top[0] = top[0] + 1
                with ib.if_scope(te.any(src[i, j] > anchors, src[i, j] < -anchors)):
                    out[i, top[0]] = 0
                    top[0] = top[0] + 1
                with ib.if_scope(j >= top[0]):
                    out[i, j] = -1
            count[i, 0] = top[0]
        return ib.get()

    return extern([(batch, anchors), (batch, 1)], [kept], lambda ins, outs: body(ins[0], *outs),
                  dtype=["int32", "int32"], name="hybrid_rearrange_indices_out", tag="nms")


def _boxes_to_top(boxes: Tensor, gpu: bool) -> Tensor:
    """The rows whose first element is not negative moved to the top in order, the rest -1."""
    batch, anchors, length = get_const_tuple(boxes.shape)
    minus = arith.const(-1, boxes.dtype)

    def body(src: Any, out: Any) -> Any:
        ib = ir_builder.create()
        src, out = ib.buffer_ptr(src), ib.buffer_ptr(out)
        with each_item(ib, batch, gpu) as i:
            top = ib.allocate("int32", (1,), "valid_indices", "local")
            top[0] = 0
            with ib.for_range(0, anchors, "j") as j:
                with ib.if_scope(src[i, j, 0] >= arith.const(0, boxes.dtype)):
                    with ib.for_range(0, length, "k") as k:
                        out[i, top[0], k] = src[i, j, k]
                    top[0] = top[0] + 1
                with ib.if_scope(j >= top[0]):
                    _fill_row(ib, out, i, j, length, minus)
        return ib.get()

    return extern([boxes.shape], [boxes], lambda ins, outs: body(ins[0], outs[0]), dtype=[boxes.dtype],
                  name="hybrid_rearrange_box_out", tag="nms")
