"""SSD's multibox operators (TVM's ``topi.vision.ssd``): the prior (anchor) boxes centred on
each cell of a feature map, the decoding of predicted offsets into boxes, and the detection
that suppresses overlapping ones."""

from __future__ import annotations

import math
from typing import Any

import schedule as te
from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from topi.extern_items import each_item
from topi.math import clip as clip_values
from topi.transform.shape import tensor
from topi.utils import get_const_tuple
from topi.vision.nms import non_max_suppression, scalar


def _numbers(op: str, name: str, values: Any, count: int | None = None) -> tuple[float, ...]:
    values = tuple(values) if isinstance(values, (list, tuple)) else (values,)
    if not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values) or (
            count is not None and len(values) != count):
        want = f"{count} numbers" if count else "numbers"
        raise ValueError(f"topi.vision.ssd.{op}: {name} is a tuple of {want}, got {values!r}")
    return tuple(float(v) for v in values)


def multibox_prior(data: Tensor, sizes: Any = (1,), ratios: Any = (1,), steps: Any = (-1, -1),
                   offsets: Any = (0.5, 0.5), clip: bool = False) -> Tensor:
    """The prior boxes of NCHW *data*'s feature map: ``(1, H * W * (len(sizes) +
    len(ratios) - 1), 4)`` float32 corners ``(left, top, right, bottom)``, as fractions of the
    map. Each cell has one box per size (ratio 1) and one per further ratio (the first size);
    a step of -1 is one cell; *clip* keeps them inside ``[0, 1]``."""
    data = tensor("vision.ssd.multibox_prior", data)
    if len(data.shape) != 4:
        raise ValueError(f"topi.vision.ssd.multibox_prior: data is NCHW, got shape {list(map(str, data.shape))}")
    sizes, ratios = _numbers("multibox_prior", "sizes", sizes), _numbers("multibox_prior", "ratios", ratios)
    steps, offsets = _numbers("multibox_prior", "steps", steps, 2), _numbers("multibox_prior", "offsets", offsets, 2)
    height, width = get_const_tuple(data.shape)[2:]
    step_h = steps[0] if steps[0] > 0 else 1.0 / height
    step_w = steps[1] if steps[1] > 0 else 1.0 / width
    # each cell's boxes: half width and half height, by size then by ratio
    halves = [(s * height / width / 2.0, s / 2.0) for s in sizes]
    halves += [(sizes[0] * height / width * math.sqrt(r) / 2.0, sizes[0] / math.sqrt(r) / 2.0) for r in ratios[1:]]
    per_cell = len(halves)

    def half(k: Any, axis: int) -> Any:
        value = arith.const(halves[-1][axis], "float32")
        for n in range(per_cell - 2, -1, -1):
            value = te.if_then_else(k == n, arith.const(halves[n][axis], "float32"), value)
        return value

    def element(_: Any, box: Any, c: Any) -> Any:
        k, cell = box % per_cell, box // per_cell
        centre_w = ((cell % width).astype("float32") + offsets[1]) * step_w
        centre_h = ((cell // width).astype("float32") + offsets[0]) * step_h
        centre = te.if_then_else(c % 2 == 0, centre_w, centre_h)
        extent = te.if_then_else(c % 2 == 0, half(k, 0), half(k, 1))
        return te.if_then_else(c < 2, centre - extent, centre + extent)

    out = te.compute((1, height * width * per_cell, 4), element, name="multibox_prior", tag="multibox_prior")
    return clip_values(out, 0, 1) if clip else out


def multibox_transform_loc(cls_prob: Tensor, loc_pred: Tensor, anchor: Tensor, clip: bool = True,
                           threshold: float = 0.01, variances: Any = (0.1, 0.1, 0.2, 0.2),
                           gpu: bool = False) -> list[Tensor]:
    """``[boxes, valid_count]``: for each anchor whose best class (class 0 is background) has a
    probability of at least *threshold*, a row ``[class - 1, probability, left, top, right,
    bottom]`` decoded from *loc_pred* (centre offsets and log sizes, scaled by *variances*),
    moved to the top in anchor order; the rest of the rows -1.

    *cls_prob* is ``(batch, num_classes, num_anchors)``, *loc_pred* ``(batch, num_anchors * 4)``,
    *anchor* ``(1, num_anchors, 4)`` corners.
    """
    op = "multibox_transform_loc"
    cls_prob, loc_pred, anchor = (tensor(f"vision.ssd.{op}", t) for t in (cls_prob, loc_pred, anchor))
    if len(cls_prob.shape) != 3 or len(loc_pred.shape) != 2 or len(anchor.shape) != 3:
        raise ValueError(f"topi.vision.ssd.{op}: cls_prob is (batch, classes, anchors), loc_pred (batch, anchors * 4), "
                         f"anchor (1, anchors, 4); got {list(map(str, cls_prob.shape))}, "
                         f"{list(map(str, loc_pred.shape))}, {list(map(str, anchor.shape))}")
    batch, classes, anchors = get_const_tuple(cls_prob.shape)
    if get_const_tuple(loc_pred.shape) != (batch, anchors * 4) or get_const_tuple(anchor.shape)[1:] != (anchors, 4):
        raise ValueError(f"topi.vision.ssd.{op}: loc_pred must be ({batch}, {anchors * 4}) and anchor "
                         f"(1, {anchors}, 4) for cls_prob {list(map(str, cls_prob.shape))}")
    vx, vy, vw, vh = _numbers(op, "variances", variances, 4)
    dtype = loc_pred.dtype
    least = scalar(op, "threshold", threshold, cls_prob.dtype)

    def decode(p: Any, a: Any, i: Any, j: Any) -> list[Any]:
        al, at, ar, ab = (a[0, j, c] for c in range(4))
        px, py, pw, ph = (p[i, j * 4 + c] for c in range(4))
        aw, ah = ar - al, ab - at
        ox, oy = px * vx * aw + (al + ar) / 2.0, py * vy * ah + (at + ab) / 2.0
        ow, oh = te.exp(pw * vw) * aw / 2.0, te.exp(ph * vh) * ah / 2.0
        edges = [ox - ow, oy - oh, ox + ow, oy + oh]
        zero, one = arith.const(0.0, dtype), arith.const(1.0, dtype)
        return [te.max(zero, te.min(one, e)) for e in edges] if clip else edges

    def body(prob: Any, p: Any, a: Any, out: Any, count: Any) -> Any:
        ib = ir_builder.create()
        prob, p, a, out, count = (ib.buffer_ptr(b) for b in (prob, p, a, out, count))
        with each_item(ib, batch, gpu) as i:
            count[i] = 0
            with ib.for_range(0, anchors, "j") as j:
                best = ib.allocate(cls_prob.dtype, (1,), "score", "local")
                label = ib.allocate("int32", (1,), "cls_id", "local")
                best[0], label[0] = -1.0, 0
                with ib.for_range(1, classes, "k") as k:
                    with ib.if_scope(prob[i, k, j] > best[0]):
                        label[0] = k
                        best[0] = prob[i, k, j]
                with ib.if_scope(te.all(label[0] > 0, best[0] >= least)):
                    row = count[i]
                    out[i, row, 0] = (label[0] - 1).astype(dtype)
                    out[i, row, 1] = best[0].astype(dtype)
                    for c, edge in enumerate(decode(p, a, i, j)):
                        out[i, row, 2 + c] = edge
                    count[i] = row + 1
            with ib.for_range(count[i], anchors, "j") as j:
                with ib.for_range(0, 6, "k") as k:
                    out[i, j, k] = arith.const(-1, dtype)
        return ib.get()

    return extern([(batch, anchors, 6), (batch,)], [cls_prob, loc_pred, anchor],
                  lambda ins, outs: body(*ins, *outs), dtype=[dtype, "int32"],
                  name="hybrid_multibox_transform_loc", tag="multibox_transform_loc")


def multibox_detection(cls_prob: Tensor, loc_pred: Tensor, anchor: Tensor, clip: bool = True,
                       threshold: float = 0.01, nms_threshold: float = 0.5, force_suppress: bool = False,
                       variances: Any = (0.1, 0.1, 0.2, 0.2), nms_topk: int = -1, gpu: bool = False) -> Tensor:
    """The detections ``(batch, num_anchors, 6)``: :func:`multibox_transform_loc`'s boxes after
    non-maximum suppression, in descending probability, removed ones -1."""
    boxes, count = multibox_transform_loc(cls_prob, loc_pred, anchor, clip, threshold, variances, gpu)
    return non_max_suppression(boxes, count, None, max_output_size=-1, iou_threshold=nms_threshold,
                               force_suppress=force_suppress, top_k=nms_topk, return_indices=False, gpu=gpu)
