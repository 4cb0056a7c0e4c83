"""Faster R-CNN's region proposals (TVM's ``topi.vision.rcnn.proposal``): anchors at every
cell of the feature map, moved by the predicted deltas and clipped to the image, ranked by
their foreground score, thinned by non-maximum suppression, the best ``rpn_post_nms_top_n``
of each image kept (repeated in turn when fewer survive)."""

from __future__ import annotations

import math
from typing import Any

import schedule as te
from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from topi import merge_sort
from topi.extern_items import each_item
from topi.sort import argsort
from topi.transform.shape import tensor
from topi.utils import get_const_tuple
from topi.vision.boxes import iou

Box = tuple[Any, Any, Any, Any]


def _anchor(ratio: float, scale: float, base: float) -> Box:
    """The anchor of *ratio* (height over width) and *scale* around a *base*-pixel cell at the
    origin, as inclusive pixel corners (the area kept, the sides rounded)."""
    centre = 0.5 * (base - 1.0)
    width = math.floor(math.sqrt(math.floor(base * base / ratio)) + 0.5) * scale
    height = math.floor(width / scale * ratio + 0.5) * scale
    return (centre - 0.5 * (width - 1.0), centre - 0.5 * (height - 1.0),
            centre + 0.5 * (width - 1.0), centre + 0.5 * (height - 1.0))


def _moved(box: Box, delta: Box, iou_loss: bool) -> Box:
    """*box* moved by *delta*: corner offsets (IoU loss), or a centre shift in box sizes and
    log-scaled sides."""
    if iou_loss:
        return tuple(c + d for c, d in zip(box, delta))  # type: ignore[return-value]
    x1, y1, x2, y2 = box
    dx, dy, dw, dh = delta
    w, h = x2 - x1 + 1.0, y2 - y1 + 1.0
    cx, cy = dx * w + x1 + 0.5 * (w - 1.0), dy * h + y1 + 0.5 * (h - 1.0)
    pw, ph = te.exp(dw) * w, te.exp(dh) * h
    return cx - 0.5 * (pw - 1.0), cy - 0.5 * (ph - 1.0), cx + 0.5 * (pw - 1.0), cy + 0.5 * (ph - 1.0)


def proposal(cls_prob: Tensor, bbox_pred: Tensor, im_info: Tensor, scales: Any, ratios: Any,
             feature_stride: int, threshold: float, rpn_pre_nms_top_n: int, rpn_post_nms_top_n: int,
             rpn_min_size: int, iou_loss: bool, gpu: bool = False) -> Tensor:
    """``(batch * rpn_post_nms_top_n, 5)`` rows ``[image, x1, y1, x2, y2]``.

    *cls_prob* is ``(batch, 2 * A, H, W)`` (background then foreground scores of the ``A =
    len(scales) * len(ratios)`` anchors), *bbox_pred* ``(batch, 4 * A, H, W)``, *im_info*
    ``(batch, 3)`` rows ``[height, width, scale]``. Boxes narrower than ``rpn_min_size`` times
    the image's scale, and cells outside the image, score -1. The best ``rpn_pre_nms_top_n``
    (all for -1) go through suppression at *threshold*.
    """
    op = "vision.rcnn.proposal"
    cls_prob, bbox_pred, im_info = (tensor(op, t) for t in (cls_prob, bbox_pred, im_info))
    scales = tuple(scales) if isinstance(scales, (list, tuple)) else (scales,)
    ratios = tuple(ratios) if isinstance(ratios, (list, tuple)) else (ratios,)
    per_cell = len(scales) * len(ratios)
    if len(cls_prob.shape) != 4 or len(bbox_pred.shape) != 4 or len(im_info.shape) != 2:
        raise ValueError(f"topi.{op}: cls_prob and bbox_pred are NCHW and im_info (batch, 3), got "
                         f"{list(map(str, cls_prob.shape))}, {list(map(str, bbox_pred.shape))}, "
                         f"{list(map(str, im_info.shape))}")
    batch, channels, height, width = get_const_tuple(cls_prob.shape)
    if channels != 2 * per_cell or get_const_tuple(bbox_pred.shape) != (batch, 4 * per_cell, height, width) or \
            get_const_tuple(im_info.shape) != (batch, 3):
        raise ValueError(f"topi.{op}: {per_cell} anchors a cell need cls_prob ({batch}, {2 * per_cell}, {height}, "
                         f"{width}), bbox_pred ({batch}, {4 * per_cell}, {height}, {width}) and im_info ({batch}, 3)")
    for name, value in (("rpn_pre_nms_top_n", rpn_pre_nms_top_n), ("rpn_post_nms_top_n", rpn_post_nms_top_n)):
        if not isinstance(value, int) or isinstance(value, bool) or (name == "rpn_post_nms_top_n" and value < 1):
            raise ValueError(f"topi.{op}: {name} is a positive int (-1 for all, before suppression), got {value!r}")
    count = height * width * per_cell
    ranked = min(rpn_pre_nms_top_n, count) if rpn_pre_nms_top_n > 0 else count
    dtype = bbox_pred.dtype
    anchors = [_anchor(float(ratios[k // len(scales)]), float(scales[k % len(scales)]), float(feature_stride))
               for k in range(per_cell)]

    def predict(score: Any, delta: Any, info: Any, out: Any) -> Any:
        ib = ir_builder.create()
        score, delta, info, out = (ib.buffer_ptr(b) for b in (score, delta, info, out))
        with each_item(ib, batch * height * width, gpu, "tid") as tid:
            w, h, b = tid % width, tid // width % height, tid // width // height
            im_h, im_w = info[b, 0], info[b, 1]
            min_size = info[b, 2] * float(rpn_min_size)
            inside = te.all(h < (im_h / float(feature_stride)).astype("int32"),
                            w < (im_w / float(feature_stride)).astype("int32"))
            for k, (ax1, ay1, ax2, ay2) in enumerate(anchors):
                shift_x, shift_y = (w * feature_stride).astype(dtype), (h * feature_stride).astype(dtype)
                box = (shift_x + ax1, shift_y + ay1, shift_x + ax2, shift_y + ay2)
                moved = _moved(box, tuple(delta[b, k * 4 + c, h, w] for c in range(4)), iou_loss)  # type: ignore
                limits = (im_w, im_h, im_w, im_h)
                zero = arith.const(0.0, dtype)
                x1, y1, x2, y2 = (te.max(te.min(v, lim - 1.0), zero) for v, lim in zip(moved, limits))
                row = tid * per_cell + k
                fg = te.if_then_else(inside, score[b, per_cell + k, h, w], arith.const(-1.0, dtype))
                small = te.any(x2 - x1 + 1.0 < min_size, y2 - y1 + 1.0 < min_size)
                half = min_size / 2.0
                minus = arith.const(-1.0, dtype)
                for c, (v, grow) in enumerate(((x1, -half), (y1, -half), (x2, half), (y2, half))):
                    out[row * 5 + c] = te.if_then_else(small, v + grow, v)
                out[row * 5 + 4] = te.if_then_else(small, minus, fg)
        return ib.get()

    bbox = extern([(batch, count, 5)], [cls_prob, bbox_pred, im_info], lambda ins, outs: predict(*ins, outs[0]),
                  dtype=[dtype], name="predict_bbox", tag="predict_bbox")
    score = te.compute((batch, count), lambda b, i: bbox[b, i, 4], name="bbox_score", tag="bbox_score")
    order = (merge_sort.argsort if gpu else argsort)(score, axis=1, is_ascend=False, dtype="int32")
    sorted_bbox = te.compute((batch, ranked, 5), lambda b, i, j: bbox[b, order[b, i], j], name="sorted_bbox",
                             tag="sorted_bbox")

    def suppress(boxes: Any, removed: Any) -> Any:
        ib = ir_builder.create()
        boxes, removed = ib.buffer_ptr(boxes), ib.buffer_ptr(removed)
        with each_item(ib, batch, gpu, "n") as b:
            with ib.for_range(0, ranked, "i") as i:
                removed[b, i] = arith.const(False, "bool")
            with ib.for_range(0, ranked - 1, "l") as kept:
                with ib.if_scope(arith.logical_not(removed[b, kept])):
                    a = tuple(boxes[b, kept, c] for c in range(4))
                    with ib.for_range(kept + 1, ranked, "i") as i:
                        other = tuple(boxes[b, i, c] for c in range(4))
                        with ib.if_scope(iou(a, other, dtype, pixel=True) > arith.const(threshold, dtype)):
                            removed[b, i] = arith.const(True, "bool")
        return ib.get()

    removed = extern([(batch, ranked)], [sorted_bbox], lambda ins, outs: suppress(ins[0], outs[0]), dtype=["bool"],
                     name="nms_remove_mask", tag="nms")
    post = rpn_post_nms_top_n

    def gather(boxes: Any, removed: Any, out: Any) -> Any:
        ib = ir_builder.create()
        boxes, removed, out = ib.buffer_ptr(boxes), ib.buffer_ptr(removed), ib.buffer_ptr(out)
        with each_item(ib, batch, gpu, "b") as b:
            kept = ib.allocate("int32", (1,), "nkeep", "local")
            filled = ib.allocate("int32", (1,), "i", "local")
            kept[0], filled[0] = 0, 0
            with ib.for_range(0, ranked, "j") as j:
                with ib.if_scope(arith.logical_not(removed[b, j])):
                    kept[0] = kept[0] + 1
            with ib.if_scope(kept[0] > 0):
                with ib.for_range(0, (post + kept[0] - 1) // kept[0], "r"):
                    with ib.for_range(0, ranked, "j") as j:
                        with ib.if_scope(te.all(filled[0] < post, arith.logical_not(removed[b, j]))):
                            out[b * post + filled[0], 0] = b.astype(dtype)
                            with ib.for_range(0, 4, "k") as k:
                                out[b * post + filled[0], k + 1] = boxes[b, j, k]
                            filled[0] = filled[0] + 1
            with ib.else_scope():  # no box survives: the image's rows are zero
                with ib.for_range(0, post * 5, "k") as k:
                    out[b * post * 5 + k] = arith.const(0.0, dtype)
        return ib.get()

    return extern([(batch * post, 5)], [sorted_bbox, removed], lambda ins, outs: gather(*ins, outs[0]),
                  dtype=[dtype], name="proposal", tag="proposal")
