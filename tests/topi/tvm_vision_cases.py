"""Detection cases computed by TVM's own topi and by ours (``make_tvm_vision_outputs.py`` saves
TVM's outputs; ``test_tvm_outputs.py`` compares). Each case: a name, a function of a NumPy
generator giving the input arrays, a function of ``(topi, te, *placeholders)`` giving the
output tensors, and, per output, how many leading rows TVM defines (``None``: all; an int:
that output's first element counts the rows of output 0 that are defined; TVM's later versions
size the rest of ONNX's rows by ``max_output_boxes_per_class``, v0.13 and ours by the boxes)."""

from __future__ import annotations

import numpy as np


def _boxes(rng, batch, count, spread=4.0, size=(1.0, 3.0)):
    """Corner boxes crowded into a small square, so that many overlap; corners in either order."""
    centre = rng.uniform(0, spread, (batch, count, 2))
    half = rng.uniform(*size, (batch, count, 2)) / 2
    first, second = centre - half, centre + half
    swap = rng.random((batch, count, 1)) < 0.3
    return np.where(swap, np.concatenate([second, first], -1), np.concatenate([first, second], -1)).astype("float32")


def _detections(rng, batch, count, with_class=True):
    """Rows [class, score, x1, y1, x2, y2] (or without the class)."""
    parts = [rng.integers(-1, 3, (batch, count, 1)).astype("float32")] if with_class else []
    parts += [rng.uniform(-0.2, 1.0, (batch, count, 1)).astype("float32"), _boxes(rng, batch, count)]
    return np.concatenate(parts, -1).astype("float32")


def _nms_inputs(rng, batch=2, count=30, with_class=True):
    """Detections with positive scores and classes: TVM's later versions drop a box scoring 0 or
    less, and move one of class -1 to the top, where v0.13 (and ours) keeps the first in place
    and drops the second."""
    data = _detections(rng, batch, count, with_class)
    score = 1 if with_class else 0
    data[..., score] = np.abs(data[..., score]) + 0.01
    if with_class:
        data[..., 0] = np.abs(data[..., 0])
    valid = np.array([count - 5, count][:batch], "int32")
    indices = np.stack([rng.permutation(count) for _ in range(batch)]).astype("int32")
    return [data, valid, indices]


def _nms(return_indices, **kw):
    def make(topi, te, data, valid, indices):
        out = topi.vision.non_max_suppression(data, valid, indices, return_indices=return_indices, **kw)
        return list(out) if return_indices else [out]
    return make


def cases():
    return [
        ("valid_counts", lambda rng: [_detections(rng, 3, 40)],
         lambda topi, te, d: list(topi.vision.get_valid_counts(d, 0.3, 0, 1)), [None, None, None]),
        ("valid_counts_no_id", lambda rng: [_detections(rng, 2, 25, with_class=False)],
         lambda topi, te, d: list(topi.vision.get_valid_counts(d, 0.1, -1, 0)), [None, None, None]),
        ("nms_per_class", _nms_inputs,
         _nms(False, iou_threshold=0.5, force_suppress=False), [None]),
        ("nms_forced_top_k", _nms_inputs,
         _nms(False, max_output_size=5, iou_threshold=0.4, force_suppress=True, top_k=10), [None]),
        ("nms_to_bottom", _nms_inputs,
         _nms(False, iou_threshold=0.3, invalid_to_bottom=True), [None]),
        ("nms_indices", _nms_inputs,
         _nms(True, max_output_size=7, iou_threshold=0.45, top_k=20), [None, None]),
        ("nms_no_class", lambda rng: _nms_inputs(rng, with_class=False),
         _nms(True, iou_threshold=0.5, coord_start=1, score_index=0, id_index=-1), [None, None]),
        ("all_class_onnx", lambda rng: [_boxes(rng, 2, 30), rng.uniform(0, 1, (2, 3, 30)).astype("float32")],
         lambda topi, te, b, s: list(topi.vision.all_class_non_max_suppression(b, s, 5, 0.5, 0.2)), [1, None]),
        ("all_class_onnx_low", lambda rng: [_boxes(rng, 1, 25), rng.uniform(0, 1, (1, 2, 25)).astype("float32")],
         lambda topi, te, b, s: list(topi.vision.all_class_non_max_suppression(b, s, 25, 0.3, 0.0)), [1, None]),
        ("all_class_tf", lambda rng: [_boxes(rng, 2, 30), rng.uniform(0, 1, (2, 3, 30)).astype("float32")],
         lambda topi, te, b, s: list(topi.vision.all_class_non_max_suppression(b, s, 4, 0.5, 0.3, "tensorflow")),
         [None, None, None]),
    ]
