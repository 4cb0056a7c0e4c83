"""Box arithmetic shared by the detection operators: a box's corners and the overlap (IoU) of
two boxes, as expressions over loaded coordinates."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import schedule as te
from schedule.ir import arith

Corners = tuple[Any, Any, Any, Any]


def corners(coord: Callable[[int], Any]) -> Corners:
    """``(left, top, right, bottom)`` of the box whose four coordinates ``coord(0..3)`` are two
    opposite corners in either order."""
    x1, y1, x2, y2 = (coord(c) for c in range(4))
    return te.min(x1, x2), te.min(y1, y2), te.max(x1, x2), te.max(y1, y2)


def _same(name: str, value: Any) -> Any:
    return value


def iou(a: Corners, b: Corners, dtype: str, pixel: bool = False,
        bind: Callable[[str, Any], Any] = _same) -> Any:
    """The intersection over union of boxes *a* and *b* (0 when the union is empty). With
    *pixel*, coordinates are inclusive pixel indices: each side is one longer (R-CNN's).
    *bind* names the intersection and union (``ib.let``) to keep a kernel's text short."""
    zero = arith.const(0.0, dtype)
    one = arith.const(1.0 if pixel else 0.0, dtype)
    w = te.max(zero, te.min(a[2], b[2]) - te.max(a[0], b[0]) + one)
    h = te.max(zero, te.min(a[3], b[3]) - te.max(a[1], b[1]) + one)
    inter = bind("area", w * h)
    union = bind("u", (a[2] - a[0] + one) * (a[3] - a[1] + one) + (b[2] - b[0] + one) * (b[3] - b[1] + one) - inter)
    return te.if_then_else(union <= zero, zero, inter / union)
