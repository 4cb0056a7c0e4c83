"""The detection operators of ``topi.vision`` (valid counts, non-maximum suppression per box and
per class, SSD's multibox, R-CNN's proposals) against NumPy references written from their
definitions, in their generic and CUDA forms, and their refusals."""

from __future__ import annotations

import math

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target

RNG = np.random.default_rng(2024)
f32 = np.float32
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.fixture(autouse=True)
def _same_data_in_any_order():
    """Each test draws the same data whichever tests ran before it in its process."""
    global RNG
    RNG = np.random.default_rng(2024)


def _run(outs, inputs, arrays, style="generic", schedule="schedule_nms"):
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    with Target("cuda" if style == "cuda" else "llvm"):
        s = getattr(getattr(topi, style), schedule)(outs)
    results = [np.full([int(d) for d in o.shape], -7, o.dtype) for o in outs]
    build(s, [*inputs, *outs])(*arrays, *results)
    return results


def _ops(style):
    return topi.cuda if style == "cuda" else topi.vision


# -- references -------------------------------------------------------------------------------

def _iou(a, b, pixel=False):
    """IoU of two boxes given by two corners each, in float32 as the kernels compute it."""
    one = f32(1.0 if pixel else 0.0)
    if not pixel:
        a = [min(a[0], a[2]), min(a[1], a[3]), max(a[0], a[2]), max(a[1], a[3])]
        b = [min(b[0], b[2]), min(b[1], b[3]), max(b[0], b[2]), max(b[1], b[3])]
    a, b = [f32(v) for v in a], [f32(v) for v in b]
    w = max(f32(0), min(a[2], b[2]) - max(a[0], b[0]) + one)
    h = max(f32(0), min(a[3], b[3]) - max(a[1], b[1]) + one)
    inter = f32(w * h)
    union = f32((a[2] - a[0] + one) * (a[3] - a[1] + one) + (b[2] - b[0] + one) * (b[3] - b[1] + one) - inter)
    return f32(0) if union <= 0 else f32(inter / union)


def _valid_counts(data, threshold, id_index, score_index):
    batch, anchors, _ = data.shape
    count, out, where = np.zeros(batch, "int32"), np.full_like(data, -1), np.full((batch, anchors), -1, "int32")
    for i in range(batch):
        rows = [j for j in range(anchors) if data[i, j, score_index] > f32(threshold)
                and (id_index < 0 or data[i, j, id_index] >= 0)]
        count[i] = len(rows)
        out[i, :len(rows)], where[i, :len(rows)] = data[i, rows], rows
    return count, out, where


def _suppresses(rows, k, j, score_index, id_index, force_suppress, coord_start, iou_threshold):
    """Whether kept box *k* drops box *j* (a later one) of the same batch item's *rows*."""
    if rows[k, score_index] <= 0 or (id_index >= 0 and rows[k, id_index] < 0):
        return False
    if not force_suppress and id_index >= 0 and rows[j, id_index] != rows[k, id_index]:
        return False
    box = slice(coord_start, coord_start + 4)
    return _iou(rows[j, box], rows[k, box]) >= f32(iou_threshold)


def _nms(data, valid, indices, max_output_size=-1, iou_threshold=0.5, force_suppress=False, top_k=-1,
         coord_start=2, score_index=1, id_index=0, return_indices=True, invalid_to_bottom=False):
    batch, anchors, length = data.shape
    out, kept = np.full_like(data, -1), np.full((batch, anchors), -1, "int32")
    for i in range(batch):
        n = min(int(valid[i]), anchors)
        if iou_threshold > 0:
            order = np.argsort(-data[i, :n, score_index], kind="stable")
            nkeep = min(n, top_k) if top_k > 0 else n
            out[i, :nkeep], kept[i, :nkeep] = data[i, order[:nkeep]], order[:nkeep]
            survivors = 0
            for j in range(n):
                if survivors == max_output_size:
                    out[i, j], kept[i, j] = -1, -1
                    continue
                if out[i, j, score_index] <= 0:
                    continue  # a box scoring 0 or less stays where it is, uncounted

                if any(_suppresses(out[i], k, j, score_index, id_index, force_suppress, coord_start, iou_threshold)
                       for k in range(j)):
                    out[i, j], kept[i, j] = -1, -1
                else:
                    survivors += 1
        else:
            out[i, :n], kept[i, :n] = data[i, :n], np.arange(n)
        if return_indices:
            kept[i, :n] = np.where(kept[i, :n] >= 0, indices[i, np.maximum(kept[i, :n], 0)], -1)
    if return_indices:
        top, count = np.full_like(kept, -1), np.zeros((batch, 1), "int32")
        for i in range(batch):
            chosen = kept[i][kept[i] >= 0]
            top[i, :len(chosen)], count[i, 0] = chosen, len(chosen)
        return [top, count]
    if invalid_to_bottom:
        top = np.full_like(out, -1)
        for i in range(batch):
            rows = out[i][out[i, :, 0] >= 0]
            top[i, :len(rows)] = rows
        return [top]
    return [out]


def _all_class_nms(boxes, scores, most, iou_threshold, score_threshold):
    """The selections of every (batch, class): lists of box indices in selection order."""
    picks = {}
    for b in range(scores.shape[0]):
        for c in range(scores.shape[1]):
            order = np.argsort(-scores[b, c], kind="stable")
            ranked = scores[b, c][order]
            candidates = int((ranked > f32(score_threshold)).sum())
            limit = most if most > 0 else candidates
            left, chosen = ranked[:candidates].copy(), []
            if iou_threshold > 0:
                for j in range(candidates):
                    if len(chosen) >= limit:
                        break
                    if left[j] > -1:
                        chosen.append(int(order[j]))
                        for k in range(j + 1, candidates):
                            if left[k] > 0 and _iou(boxes[b, order[j]], boxes[b, order[k]]) >= f32(iou_threshold):
                                left[k] = -1
            picks[b, c] = chosen
    return picks


def _boxes(batch, count, spread=4.0):
    centre = RNG.uniform(0, spread, (batch, count, 2))
    half = RNG.uniform(0.5, 1.5, (batch, count, 2))
    corners = np.concatenate([centre - half, centre + half], -1)
    swap = RNG.random((batch, count, 1)) < 0.3
    return np.where(swap, corners[..., [2, 3, 0, 1]], corners).astype("float32")


def _detections(batch, count, classes=(-1, 0, 1, 2), scores=(-0.3, 1.0)):
    label = RNG.choice(classes, (batch, count, 1)).astype("float32")
    score = RNG.uniform(*scores, (batch, count, 1)).astype("float32")
    return np.concatenate([label, score, _boxes(batch, count)], -1)


# -- get_valid_counts -------------------------------------------------------------------------

@pytest.mark.parametrize("style", ["generic", "cuda"])
@pytest.mark.parametrize("threshold, id_index, score_index, length", [
    (0.3, 0, 1, 6), (0.0, -1, 1, 6), (-1.0, 0, 1, 6), (0.5, -1, 0, 5)])
def test_get_valid_counts_moves_the_boxes_above_the_threshold_to_the_top(style, threshold, id_index,
                                                                        score_index, length):
    data = _detections(3, 40)[..., 6 - length:] if length == 5 else _detections(3, 40)
    D = te.placeholder(data.shape, name="data")
    with Target("cuda" if style == "cuda" else "llvm"):
        outs = _ops(style).get_valid_counts(D, threshold, id_index, score_index)
    got = _run(outs, [D], [data], style, "schedule_get_valid_counts")
    for g, w in zip(got, _valid_counts(data, threshold, id_index, score_index)):
        np.testing.assert_array_equal(g, w)
    assert 0 < got[0].min() and got[0].max() < 40 or threshold < -0.5


# -- non_max_suppression ----------------------------------------------------------------------

NMS_CASES = {
    "per_class": dict(iou_threshold=0.5),
    "forced_top_k_max": dict(max_output_size=5, iou_threshold=0.4, force_suppress=True, top_k=10),
    "to_bottom": dict(iou_threshold=0.3, invalid_to_bottom=True),
    "indices": dict(max_output_size=7, iou_threshold=0.45, top_k=20),
    "no_suppression": dict(iou_threshold=0.0),
    "no_suppression_indices": dict(iou_threshold=-1.0, top_k=3),
    "no_class": dict(iou_threshold=0.5, coord_start=1, score_index=0, id_index=-1),
}


@pytest.mark.parametrize("style", ["generic", "cuda"])
@pytest.mark.parametrize("case", sorted(NMS_CASES))
@pytest.mark.parametrize("return_indices", [False, True])
def test_non_max_suppression_equals_the_reference(style, case, return_indices):
    kw = dict(NMS_CASES[case])
    data = _detections(2, 30)
    if kw.get("id_index") == -1:
        data = data[..., 1:]
    valid = np.array([24, 30], "int32")
    indices = np.stack([RNG.permutation(30) for _ in range(2)]).astype("int32")
    D = te.placeholder(data.shape, name="data")
    V, idx = te.placeholder((2,), "int32", "valid"), te.placeholder((2, 30), "int32", "indices")
    with Target("cuda" if style == "cuda" else "llvm"):
        outs = _ops(style).non_max_suppression(D, V, idx, return_indices=return_indices, **kw)
    inputs = [D, V, idx] if return_indices else [D, V]
    arrays = [data, valid, indices] if return_indices else [data, valid]
    got = _run(outs, inputs, arrays, style)
    want = _nms(data, valid, indices, return_indices=return_indices, **kw)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g, w)
    removed = (got[0] == -1).all(axis=-1) if not return_indices else got[0] == -1
    assert removed.any() and not removed.all()


def test_a_valid_count_outside_the_rows_is_clamped_on_both_targets():
    """A count past the rows takes them all; a negative one none (every row -1)."""
    data = _detections(1, 6, classes=(0, 1), scores=(0.1, 1.0))
    D, V = te.placeholder(data.shape, name="data"), te.placeholder((1,), "int32", "valid")
    out = topi.vision.non_max_suppression(D, V, None, iou_threshold=0.5, return_indices=False)
    whole = _run(out, [D, V], [data, np.array([99], "int32")])[0]
    np.testing.assert_array_equal(whole, _nms(data, [6], None, return_indices=False)[0])
    none = _run(out, [D, V], [data, np.array([-3], "int32")])[0]
    assert (none == -1).all()


def test_non_max_suppression_keeps_nonpositive_scores_and_drops_class_minus_one_to_bottom():
    """v0.13's rules: a box scoring 0 or less is neither suppressed nor counted; moving the
    boxes to the top keeps only rows of a non-negative class."""
    data = np.array([[[0, 0.9, 0, 0, 4, 4], [0, -0.5, 0, 0, 4, 4], [-1, 0.8, 0, 0, 4, 4], [0, 0.7, 0, 0, 4, 4]]],
                    "float32")
    D, V = te.placeholder(data.shape, name="data"), te.placeholder((1,), "int32", "valid")
    plain = topi.vision.non_max_suppression(D, V, None, iou_threshold=0.5, return_indices=False)
    got = _run(plain, [D, V], [data, np.array([4], "int32")])[0]
    # 0.9 kept; 0.8 (class -1) kept, never suppressing; 0.7 suppressed by 0.9; -0.5 stays last
    np.testing.assert_array_equal(got, [[data[0, 0], data[0, 2], [-1] * 6, data[0, 1]]])
    bottom = topi.vision.non_max_suppression(D, V, None, iou_threshold=0.5, return_indices=False,
                                             invalid_to_bottom=True)
    got = _run(bottom, [D, V], [data, np.array([4], "int32")])[0]
    np.testing.assert_array_equal(got, [[data[0, 0], data[0, 1], [-1] * 6, [-1] * 6]])


# -- all_class_non_max_suppression ------------------------------------------------------------

@pytest.mark.parametrize("style", ["generic", "cuda"])
@pytest.mark.parametrize("most, iou_threshold, score_threshold", [(5, 0.5, 0.2), (-1, 0.3, 0.0), (2, 0.0, 0.1),
                                                                  (30, 0.7, 0.95), (-1, 0.2, -0.4)])
def test_all_class_nms_in_onnx_layout(style, most, iou_threshold, score_threshold):
    """A candidate scoring 0 or less is selected in turn but suppresses no other (v0.13's rule)."""
    boxes, scores = _boxes(2, 30), RNG.uniform(-0.5, 1, (2, 3, 30)).astype("float32")
    B, S = te.placeholder(boxes.shape, name="boxes"), te.placeholder(scores.shape, name="scores")
    with Target("cuda" if style == "cuda" else "llvm"):
        outs = _ops(style).all_class_non_max_suppression(B, S, most, iou_threshold, score_threshold)
    rows, count = _run(outs, [B, S], [boxes, scores], style)
    picks = _all_class_nms(boxes, scores, most, iou_threshold, score_threshold)
    want = [(b, c, k) for (b, c), chosen in sorted(picks.items()) for k in chosen]
    assert rows.shape == (2 * 3 * 30, 3) and count.tolist() == [len(want)]
    np.testing.assert_array_equal(rows[:len(want)], np.array(want, "int64").reshape(-1, 3))
    assert (rows[len(want):] == 0).all()
    assert (len(want) > 0) == (iou_threshold > 0)


@pytest.mark.parametrize("style", ["generic", "cuda"])
def test_all_class_nms_in_tensorflow_layout(style):
    boxes, scores = _boxes(3, 20), RNG.uniform(0, 1, (3, 4, 20)).astype("float32")
    B, S = te.placeholder(boxes.shape, name="boxes"), te.placeholder(scores.shape, name="scores")
    with Target("cuda" if style == "cuda" else "llvm"):
        outs = _ops(style).all_class_non_max_suppression(B, S, 4, 0.4, 0.3, output_format="tensorflow")
    rows, kept, count = _run(outs, [B, S], [boxes, scores], style)
    picks = _all_class_nms(boxes, scores, 4, 0.4, 0.3)
    for b in range(3):
        want = [(c, k) for c in range(4) for k in picks[b, c]]
        n = len(want)
        assert count[b] == n > 0
        np.testing.assert_array_equal(rows[b, :n], np.array(want, "int64"))
        np.testing.assert_array_equal(kept[b, :n], [scores[b, c, k] for c, k in want])
        assert (rows[b, n:] == 0).all() and (kept[b, n:] == 0).all()


# -- SSD multibox -----------------------------------------------------------------------------

def _prior(height, width, sizes, ratios, steps, offsets, clip):
    step_h = steps[0] if steps[0] > 0 else 1.0 / height
    step_w = steps[1] if steps[1] > 0 else 1.0 / width
    shapes = [(s * height / width / 2, s / 2) for s in sizes]
    shapes += [(sizes[0] * height / width * math.sqrt(r) / 2, sizes[0] / math.sqrt(r) / 2) for r in ratios[1:]]
    out = [[(j + offsets[1]) * step_w - w, (i + offsets[0]) * step_h - h, (j + offsets[1]) * step_w + w,
            (i + offsets[0]) * step_h + h] for i in range(height) for j in range(width) for w, h in shapes]
    out = np.array(out, "float32")[None]
    return np.clip(out, 0, 1) if clip else out


@pytest.mark.parametrize("style", ["generic", "cuda"])
@pytest.mark.parametrize("shape, sizes, ratios, steps, offsets, clip", [
    ((1, 3, 8, 8), (1,), (1,), (-1, -1), (0.5, 0.5), False),
    ((2, 3, 12, 7), (0.5, 0.25, 0.1), (1, 2, 0.5), (-1, -1), (0.5, 0.5), False),
    ((1, 4, 6, 6), (0.5, 0.25), (1, 2), (0.2, 0.1), (0.3, 0.6), True)])
def test_multibox_prior_places_boxes_of_each_size_and_ratio_on_every_cell(style, shape, sizes, ratios, steps,
                                                                          offsets, clip):
    D = te.placeholder(shape, name="data")
    with Target("cuda" if style == "cuda" else "llvm"):
        out = (topi.cuda.multibox_prior if style == "cuda" else topi.vision.ssd.multibox_prior)(
            D, sizes, ratios, steps, offsets, clip)
    got = _run(out, [D], [np.zeros(shape, "float32")], style, "schedule_multibox_prior")[0]
    np.testing.assert_allclose(got, _prior(shape[2], shape[3], sizes, ratios, steps, offsets, clip),
                               rtol=1e-6, atol=1e-6)


def _transform_loc(prob, loc, anchor, clip, threshold, variances):
    batch, classes, anchors = prob.shape
    out, count = np.full((batch, anchors, 6), -1, "float32"), np.zeros(batch, "int32")
    for i in range(batch):
        for j in range(anchors):
            k = 1 + int(np.argmax(prob[i, 1:, j]))  # the first of equal best classes, as the kernel
            if prob[i, k, j] < threshold:
                continue
            al, at, ar, ab = anchor[0, j].astype("float64")
            px, py, pw, ph = loc[i, 4 * j:4 * j + 4].astype("float64")
            aw, ah = ar - al, ab - at
            ox, oy = px * variances[0] * aw + (al + ar) / 2, py * variances[1] * ah + (at + ab) / 2
            ow, oh = math.exp(pw * variances[2]) * aw / 2, math.exp(ph * variances[3]) * ah / 2
            edges = [ox - ow, oy - oh, ox + ow, oy + oh]
            out[i, count[i]] = [k - 1, prob[i, k, j]] + [min(max(e, 0), 1) if clip else e for e in edges]
            count[i] += 1
    return out, count


@pytest.mark.parametrize("style", ["generic", "cuda"])
@pytest.mark.parametrize("clip, threshold", [(True, 0.01), (False, 0.3)])
def test_multibox_detection_decodes_then_suppresses(style, clip, threshold):
    batch, classes, anchors = 2, 4, 25
    prob = RNG.dirichlet(np.ones(classes), (batch, anchors)).transpose(0, 2, 1).astype("float32")
    loc = RNG.normal(0, 0.5, (batch, anchors * 4)).astype("float32")
    anchor = (_boxes(1, anchors) / 5).astype("float32")
    variances = (0.1, 0.1, 0.2, 0.2)
    P, L, A = (te.placeholder(a.shape, name=n) for a, n in ((prob, "cls_prob"), (loc, "loc_pred"), (anchor, "a")))
    ops = topi.cuda if style == "cuda" else topi.vision.ssd
    with Target("cuda" if style == "cuda" else "llvm"):
        decoded = ops.multibox_transform_loc(P, L, A, clip, threshold, variances)
        detected = ops.multibox_detection(P, L, A, clip, threshold, 0.45, False, variances, -1)
    boxes, count = _transform_loc(prob, loc, anchor, clip, threshold, variances)
    got = _run(decoded, [P, L, A], [prob, loc, anchor], style, "schedule_multibox_transform_loc")
    np.testing.assert_array_equal(got[1], count)
    np.testing.assert_allclose(got[0], boxes, rtol=1e-5, atol=1e-6)
    got = _run(detected, [P, L, A], [prob, loc, anchor], style, "schedule_multibox_detection")[0]
    want = _nms(boxes, count, None, return_indices=False, iou_threshold=0.45)[0]
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    assert (got[:, :, 0] == -1).any() and (got[:, :, 0] >= 0).any()


# -- proposal ---------------------------------------------------------------------------------

def _proposal(prob, delta, info, scales, ratios, stride, threshold, pre, post, min_size, iou_loss):
    batch, _, height, width = prob.shape
    per_cell = len(scales) * len(ratios)
    rows = []
    for b in range(batch):
        boxes = []
        for h in range(height):
            for w in range(width):
                for k in range(per_cell):
                    ratio, scale = ratios[k // len(scales)], scales[k % len(scales)]
                    centre = 0.5 * (stride - 1)
                    side_w = math.floor(math.sqrt(math.floor(stride * stride / ratio)) + 0.5) * scale
                    side_h = math.floor(side_w / scale * ratio + 0.5) * scale
                    x1, y1 = centre - 0.5 * (side_w - 1) + w * stride, centre - 0.5 * (side_h - 1) + h * stride
                    x2, y2 = centre + 0.5 * (side_w - 1) + w * stride, centre + 0.5 * (side_h - 1) + h * stride
                    d = [float(delta[b, 4 * k + c, h, w]) for c in range(4)]
                    if iou_loss:
                        x1, y1, x2, y2 = x1 + d[0], y1 + d[1], x2 + d[2], y2 + d[3]
                    else:
                        bw, bh = x2 - x1 + 1, y2 - y1 + 1
                        cx, cy = d[0] * bw + x1 + 0.5 * (bw - 1), d[1] * bh + y1 + 0.5 * (bh - 1)
                        pw, ph = math.exp(d[2]) * bw, math.exp(d[3]) * bh
                        x1, y1, x2, y2 = cx - 0.5 * (pw - 1), cy - 0.5 * (ph - 1), cx + 0.5 * (pw - 1), cy + 0.5 * (ph - 1)
                    im_h, im_w, im_scale = (float(v) for v in info[b])
                    x1, x2 = (min(max(v, 0.0), im_w - 1) for v in (x1, x2))
                    y1, y2 = (min(max(v, 0.0), im_h - 1) for v in (y1, y2))
                    score = float(prob[b, per_cell + k, h, w])
                    if h >= int(im_h / stride) or w >= int(im_w / stride):
                        score = -1.0
                    least = im_scale * min_size
                    if x2 - x1 + 1 < least or y2 - y1 + 1 < least:
                        x1, y1, x2, y2, score = x1 - least / 2, y1 - least / 2, x2 + least / 2, y2 + least / 2, -1.0
                    boxes.append([x1, y1, x2, y2, score])
        boxes = np.array(boxes, "float32")
        ranked = boxes[np.argsort(-boxes[:, 4], kind="stable")][:pre if pre > 0 else len(boxes)]
        removed = [False] * len(ranked)
        for i in range(len(ranked) - 1):
            if not removed[i]:
                for j in range(i + 1, len(ranked)):
                    if _iou(ranked[i, :4], ranked[j, :4], pixel=True) > f32(threshold):
                        removed[j] = True
        survivors = [r for r, gone in zip(ranked, removed) if not gone]
        chosen = [survivors[n % len(survivors)] for n in range(post)]
        rows += [[b, *r[:4]] for r in chosen]
    return np.array(rows, "float32")


@pytest.mark.parametrize("style", ["generic", "cuda"])
@pytest.mark.parametrize("iou_loss", [False, True])
@pytest.mark.parametrize("scales, ratios, pre, post", [((0.5,), (0.5,), 200, 4), ((1.0, 2.0), (0.5, 1.0, 2.0), 30, 12),
                                                       ((4.0,), (1.0,), -1, 40)])
def test_proposal_ranks_suppresses_and_keeps_the_best(style, iou_loss, scales, ratios, pre, post):
    batch, height, width, per_cell = 2, 5, 6, len(scales) * len(ratios)
    prob = RNG.uniform(0, 1, (batch, 2 * per_cell, height, width)).astype("float32")
    delta = RNG.normal(0, 0.4 if not iou_loss else 3.0, (batch, 4 * per_cell, height, width)).astype("float32")
    info = np.array([[80.0, 96.0, 1.0], [64.0, 70.0, 0.5]], "float32")
    attrs = dict(scales=scales, ratios=ratios, feature_stride=16, threshold=0.6, rpn_pre_nms_top_n=pre,
                 rpn_post_nms_top_n=post, rpn_min_size=8, iou_loss=iou_loss)
    C, D, I = (te.placeholder(a.shape, name=n) for a, n in ((prob, "cls_prob"), (delta, "bbox_pred"), (info, "info")))
    with Target("cuda" if style == "cuda" else "llvm"):
        out = (topi.cuda.proposal if style == "cuda" else topi.vision.rcnn.proposal)(C, D, I, **attrs)
    got = _run(out, [C, D, I], [prob, delta, info], style, "schedule_proposal")[0]
    want = _proposal(prob, delta, info, scales, ratios, 16, 0.6, pre, post, 8, iou_loss)
    np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-3)


# -- refusals ---------------------------------------------------------------------------------

def test_bad_operands_are_refused_by_name():
    D = te.placeholder((1, 10, 6), name="data")
    V, idx = te.placeholder((1,), "int32", "valid"), te.placeholder((1, 10), "int32", "indices")
    with pytest.raises(TypeError, match="get_valid_counts"):
        topi.vision.get_valid_counts(None)
    with pytest.raises(ValueError, match="batch, num_anchors"):
        topi.vision.get_valid_counts(te.placeholder((10, 6), name="flat"))
    with pytest.raises(TypeError, match="score_threshold"):
        topi.vision.get_valid_counts(D, "high")
    with pytest.raises(ValueError, match="score_index"):
        topi.vision.non_max_suppression(D, V, idx, score_index=6)
    with pytest.raises(ValueError, match="indices is"):
        topi.vision.non_max_suppression(D, V, te.placeholder((1, 9), "int32", "short"))
    with pytest.raises(TypeError, match="iou_threshold"):
        topi.vision.non_max_suppression(D, V, idx, iou_threshold=None)
    with pytest.raises(ValueError, match="valid_count"):
        topi.argsort(te.placeholder((2, 5), name="x"), valid_count=te.placeholder((3,), "int32", "c"), axis=1)
    boxes, scores = te.placeholder((1, 10, 4), name="b"), te.placeholder((1, 2, 10), name="s")
    with pytest.raises(ValueError, match="output_format"):
        topi.vision.all_class_non_max_suppression(boxes, scores, 3, 0.5, 0.1, output_format="coco")
    with pytest.raises(ValueError, match="must agree"):
        topi.vision.all_class_non_max_suppression(boxes, te.placeholder((1, 2, 9), name="s9"), 3, 0.5, 0.1)
    with pytest.raises(ValueError, match="NCHW"):
        topi.vision.ssd.multibox_prior(te.placeholder((3, 8, 8), name="chw"))
    with pytest.raises(ValueError, match="sizes"):
        topi.vision.ssd.multibox_prior(te.placeholder((1, 3, 8, 8), name="d"), sizes=())
    with pytest.raises(ValueError, match="variances"):
        topi.vision.ssd.multibox_transform_loc(te.placeholder((1, 3, 5), name="p"), te.placeholder((1, 20), name="l"),
                                               te.placeholder((1, 5, 4), name="a"), variances=(0.1, 0.2))
    with pytest.raises(ValueError, match="loc_pred must be"):
        topi.vision.ssd.multibox_transform_loc(te.placeholder((1, 3, 5), name="p"), te.placeholder((1, 16), name="l"),
                                               te.placeholder((1, 5, 4), name="a"))
    with pytest.raises(ValueError, match="anchors a cell"):
        topi.vision.rcnn.proposal(te.placeholder((1, 4, 3, 3), name="c"), te.placeholder((1, 4, 3, 3), name="d"),
                                  te.placeholder((1, 3), name="i"), (1.0,), (1.0,), 16, 0.7, 10, 4, 8, False)
    with pytest.raises(ValueError, match="rpn_post_nms_top_n"):
        topi.vision.rcnn.proposal(te.placeholder((1, 2, 3, 3), name="c"), te.placeholder((1, 4, 3, 3), name="d"),
                                  te.placeholder((1, 3), name="i"), (1.0,), (1.0,), 16, 0.7, 10, 0, 8, False)
