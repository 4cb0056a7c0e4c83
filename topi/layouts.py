"""Layouts as TVM writes them (``NCHW16c``: capitals for axes, a factor and a small letter for
a block of one), and the shape a tensor takes from one layout to another."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from schedule.ir import arith

_LAYOUT = re.compile(r"(\d*)([A-Za-z])")


def parse_layout(text: Any) -> list[tuple[str, int | None]]:
    """``"NCHW16c"`` as ``[("N", None), ("C", None), ("H", None), ("W", None), ("C", 16)]``: a
    primal axis in capitals, a sub-axis as its factor and the letter in lower case."""
    if not isinstance(text, str) or "".join(m.group(0) for m in _LAYOUT.finditer(text)) != text or not text:
        raise ValueError(f"topi.layout_transform: {text!r} is not a layout (capitals for axes, a factor and a "
                         f"small letter for a split axis, as NCHW16c)")
    parts = []
    for m in _LAYOUT.finditer(text):
        factor, letter = m.groups()
        if letter.isupper() == bool(factor) or (factor and int(factor) < 1):
            raise ValueError(f"topi.layout_transform: {text!r}: a capital takes no factor, a small letter needs one")
        parts.append((letter.upper(), int(factor) if factor else None))
    primal = [p for p, f in parts if f is None]
    subs = [p for p, f in parts if f is not None]
    if len(set(primal)) != len(primal) or len(set(subs)) != len(subs) or not set(subs) <= set(primal):
        raise ValueError(f"topi.layout_transform: {text!r} names an axis twice, or splits an axis it lacks")
    return parts


def split_shape(shape: Sequence[Any], src: list[tuple[str, int | None]], dst: list[tuple[str, int | None]]
                ) -> tuple[dict[str, Any], list[Any]]:
    """The length of each primal axis of *shape* in layout *src*, and the shape in layout *dst*
    (an axis split by a factor that does not divide it rounded up)."""
    sub_src = {p: f for p, f in src if f is not None}
    sub_dst = {p: f for p, f in dst if f is not None}
    full = {}
    for (p, f), d in zip(src, shape):
        if f is None:
            full[p] = arith.mul(d, sub_src[p]) if p in sub_src else d
    out = []
    for p, f in dst:
        if f is not None:
            out.append(f)
        elif p in sub_dst:
            out.append(arith.floordiv(arith.add(full[p], sub_dst[p] - 1), sub_dst[p]))
        else:
            out.append(full[p])
    return full, out


def layout_shape(shape: Sequence[Any], src_layout: str, dst_layout: str) -> list[Any]:
    """*shape*, in layout *src_layout*, as it is in *dst_layout* (TVM's ``bijective_layout(src,
    dst).forward_shape``).

    :raises ValueError: for layouts that do not hold the same axes, or a shape of another length.
    """
    src, dst = parse_layout(src_layout), parse_layout(dst_layout)
    if len(src) != len(shape):
        raise ValueError(f"topi: layout {src_layout!r} has {len(src)} axes, the shape {len(shape)}")
    if sorted(p for p, f in src if f is None) != sorted(p for p, f in dst if f is None):
        raise ValueError(f"topi: {src_layout!r} and {dst_layout!r} do not hold the same axes")
    return split_shape([arith.convert(d) for d in shape], src, dst)[1]
