"""Non-maximum suppression of every class separately (TVM's
``topi.vision.all_class_non_max_suppression``: ONNX's NonMaxSuppression, or TensorFlow's
combined NMS with ``output_format="tensorflow"``).

Each (batch, class) line of scores is sorted descending (an argsort); the boxes scoring above
``score_threshold`` are candidates; the best remaining candidate is selected and every
candidate overlapping it by at least ``iou_threshold`` is dropped, until
``max_output_boxes_per_class`` are selected. A second kernel lays the selections out."""

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
from topi.vision.nms import scalar


def all_class_non_max_suppression(boxes: Tensor, scores: Tensor, max_output_boxes_per_class: Any,
                                  iou_threshold: Any, score_threshold: Any, output_format: str = "onnx",
                                  gpu: bool = False) -> list[Tensor]:
    """Boxes ``(batch, num_boxes, 4)`` (two opposite corners) and scores ``(batch, num_classes,
    num_boxes)`` to the selected boxes.

    ``"onnx"``: ``[indices, count]``, rows ``(batch, class, box)`` (int64) of the selections,
    batch by batch and class by class, each class's in descending score, and their number
    (shape ``(1,)``); rows past it are 0. ``"tensorflow"``: ``[indices, scores, count]`` per
    batch item, rows ``(class, box)`` with their scores, and the number per item.
    """
    op = "all_class_non_max_suppression"
    boxes, scores = tensor(f"vision.{op}", boxes), tensor(f"vision.{op}", scores)
    if output_format not in ("onnx", "tensorflow"):
        raise ValueError(f"topi.vision.{op}: output_format is 'onnx' or 'tensorflow', not {output_format!r}")
    if len(boxes.shape) != 3 or get_const_tuple(boxes.shape)[2] != 4 or len(scores.shape) != 3:
        raise ValueError(f"topi.vision.{op}: boxes is (batch, num_boxes, 4) and scores (batch, num_classes, "
                         f"num_boxes), got {list(map(str, boxes.shape))} and {list(map(str, scores.shape))}")
    batch, num_boxes, _ = get_const_tuple(boxes.shape)
    s_batch, classes, s_boxes = get_const_tuple(scores.shape)
    if (s_batch, s_boxes) != (batch, num_boxes):
        raise ValueError(f"topi.vision.{op}: scores (batch, num_classes, num_boxes) must agree with boxes' "
                         f"({batch}, {num_boxes}), got {list(map(str, scores.shape))}")
    limit = scalar(op, "max_output_boxes_per_class", max_output_boxes_per_class, "int32")
    overlap = scalar(op, "iou_threshold", iou_threshold, "float32")
    floor = scalar(op, "score_threshold", score_threshold, scores.dtype)
    lines = batch * classes
    flat = te.compute((lines, num_boxes), lambda i, j: scores[i // classes, i % classes, j], name="T_reshape",
                      tag="injective")
    order = (merge_sort.argsort if gpu else argsort)(flat, axis=1, is_ascend=False, dtype="int32")
    ranked = te.compute((lines, num_boxes), lambda i, j: flat[i, order[i, j]], name="T_gather", tag="injective")
    with_scores = output_format == "tensorflow"

    def select(box: Any, ranked: Any, order: Any, chosen: Any, *rest: Any) -> Any:
        ib = ir_builder.create()
        box, ranked, order, chosen = (ib.buffer_ptr(b) for b in (box, ranked, order, chosen))
        kept_score = ib.buffer_ptr(rest[0]) if with_scores else None
        count = ib.buffer_ptr(rest[-1])
        with each_item(ib, lines, gpu) as i:
            lo, hi = ib.allocate("int32", (1,), "lo", "local"), ib.allocate("int32", (1,), "hi", "local")
            lo[0], hi[0] = 0, num_boxes
            with ib.while_loop(lo[0] < hi[0]):  # the candidates: a prefix of the descending scores
                mid = (lo[0] + hi[0]) >> 1
                with ib.if_scope(ranked[i, mid] > floor):
                    lo[0] = mid + 1
                with ib.else_scope():
                    hi[0] = mid
            candidates = lo[0]
            most = te.if_then_else(limit > 0, limit, candidates)
            count[0, i] = 0
            with ib.if_scope(te.all(overlap > arith.const(0.0, "float32"), candidates > 0)):
                left = ib.allocate(ranked.dtype, (num_boxes,), "out_scores", "local")
                with ib.for_range(0, candidates, "j") as j:
                    left[j] = ranked[i, j]
                base = (i // classes) * num_boxes

                def corners_of(j: Any, side: str) -> Any:
                    edges = corners(lambda c: box[(base + order[i, j]) * 4 + c])
                    return tuple(ib.let(f"{side}_{edge}", e) for edge, e in zip("ltrb", edges))
                at = ib.allocate("int32", (1,), "box_idx", "local")
                at[0] = 0
                with ib.while_loop(te.all(at[0] < candidates, count[0, i] < most)):
                    j = at[0]
                    with ib.if_scope(left[j] > arith.const(-1.0, ranked.dtype)):
                        chosen[i, count[0, i]] = order[i, j]
                        if kept_score is not None:
                            kept_score[i, count[0, i]] = ranked[i, j]
                        count[0, i] = count[0, i] + 1
                        a = corners_of(j, "a")
                        with ib.for_range(0, candidates - j - 1, "_k") as k:
                            k = j + 1 + k
                            with ib.if_scope(left[k] > arith.const(0.0, ranked.dtype)):
                                b = corners_of(k, "b")
                                with ib.if_scope(iou(a, b, boxes.dtype, bind=ib.let) >= overlap):
                                    left[k] = arith.const(-1.0, ranked.dtype)
                    at[0] = at[0] + 1
        return ib.get()

    shapes = [(lines, num_boxes)] * (2 if with_scores else 1) + [(1, lines)]
    dtypes = ["int32"] + (["float32"] if with_scores else []) + ["int32"]
    picked = extern(shapes, [boxes, ranked, order], lambda ins, outs: select(*ins, *outs), dtype=dtypes,
                    name="all_class_nms", tag="all_class_nms")
    if with_scores:
        return _collect_per_batch(picked, batch, classes, num_boxes, gpu)
    return _collect(picked, classes, num_boxes, gpu)


def _collect(picked: list[Tensor], classes: int, num_boxes: int, gpu: bool) -> list[Tensor]:
    """ONNX's layout: one ``(batch, class, box)`` row per selection, then zeros; the count (a
    running offset: one pass, one thread on a GPU)."""
    chosen, count = picked
    lines = get_const_tuple(chosen.shape)[0]

    def body(chosen: Any, count: Any, out: Any, total: Any) -> Any:
        ib = ir_builder.create()
        chosen, count, out, total = (ib.buffer_ptr(b) for b in (chosen, count, out, total))
        with each_item(ib, 1, gpu, "only"):
            row = ib.allocate("int64", (1,), "row", "local")
            row[0] = arith.const(0, "int64")
            with ib.for_range(0, lines, "i") as i:
                with ib.for_range(0, count[0, i], "j") as j:
                    r = row[0] + j.astype("int64")
                    out[r, 0] = (i // classes).astype("int64")
                    out[r, 1] = (i % classes).astype("int64")
                    out[r, 2] = chosen[i, j].astype("int64")
                row[0] = row[0] + count[0, i].astype("int64")
            with ib.for_range(row[0], arith.const(lines * num_boxes, "int64"), "r") as r:
                with ib.for_range(0, 3, "c") as c:
                    out[r, c] = arith.const(0, "int64")
            total[0] = row[0]
        return ib.get()

    return extern([(lines * num_boxes, 3), (1,)], [chosen, count], lambda ins, outs: body(*ins, *outs),
                  dtype=["int64", "int64"], name="collect_indices", tag="collect_indices")


def _collect_per_batch(picked: list[Tensor], batch: int, classes: int, num_boxes: int,
                       gpu: bool) -> list[Tensor]:
    """TensorFlow's layout: per batch item, ``(class, box)`` rows and their scores, then zeros;
    the count per item."""
    span = classes * num_boxes

    def body(chosen: Any, kept: Any, count: Any, out: Any, out_scores: Any, total: Any) -> Any:
        ib = ir_builder.create()
        chosen, kept, count, out, out_scores, total = (
            ib.buffer_ptr(b) for b in (chosen, kept, count, out, out_scores, total))
        with each_item(ib, batch, gpu, "b") as b:
            row = ib.allocate("int64", (1,), "row", "local")
            row[0] = arith.const(0, "int64")
            with ib.for_range(0, classes, "c") as c:
                line = b * classes + c
                with ib.for_range(0, count[0, line], "j") as j:
                    r = row[0] + j.astype("int64")
                    out[b, r, 0] = c.astype("int64")
                    out[b, r, 1] = chosen[line, j].astype("int64")
                    out_scores[b, r] = kept[line, j]
                row[0] = row[0] + count[0, line].astype("int64")
            with ib.for_range(row[0], arith.const(span, "int64"), "r") as r:
                out[b, r, 0] = arith.const(0, "int64")
                out[b, r, 1] = arith.const(0, "int64")
                out_scores[b, r] = arith.const(0.0, "float32")
            total[b] = row[0]
        return ib.get()

    return extern([(batch, span, 2), (batch, span), (batch,)], picked, lambda ins, outs: body(*ins, *outs),
                  dtype=["int64", "float32", "int64"], name="collect_indices_and_scores",
                  tag="collect_indices_and_scores")
