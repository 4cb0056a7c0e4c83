"""Helpers TVM's operators share (``topi.utils``): constant shapes, stride and dilation pairs,
and the four sides of a 2-d padding (``topi.nn.get_pad_tuple``); ``traverse_inline`` is TVM's
too, kept in :mod:`topi.traverse`."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schedule.ir import arith
from schedule.ir import expr as te_expr
from topi.layouts import layout_shape


def const_value(x: Any) -> Any:
    """*x*'s value when it is a number or a constant expression, else None."""
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return x
    return arith.value_of(x) if isinstance(x, te_expr.Expr) else None


def get_const_int(x: Any) -> int:
    """*x* as an int (an int, or an expression that is a constant).

    :raises ValueError: for an expression that is not a constant.
    """
    value = const_value(x)
    if not isinstance(value, int):
        raise ValueError(f"topi: expected a constant integer, got {x}")
    return value


def get_const_tuple(shape: Sequence[Any]) -> tuple[Any, ...]:
    """*shape* with each constant dimension as an int; a symbolic one stays an expression."""
    return tuple(d if const_value(d) is None else const_value(d) for d in shape)


def pair(op: str, what: str, value: Any, size: int = 2) -> tuple[Any, ...]:
    """*value* (a number, or *size* numbers) as a tuple of *size* ints, each at least 1 (at
    least 0 for a padding).

    :raises ValueError: naming *op* and *what* for anything else.
    """
    if isinstance(value, (list, tuple)):
        if len(value) != size:
            raise ValueError(f"topi.nn.{op}: {what} takes one value or {size}, got {list(value)}")
        values = tuple(value)
    else:
        values = (value,) * size
    for v in values:
        if not isinstance(const_value(v), int):
            raise ValueError(f"topi.nn.{op}: {what} must be integers, got {value!r}")
        least = 0 if "padding" in what else 1
        if const_value(v) < least:
            raise ValueError(f"topi.nn.{op}: {what} {value!r} must be at least {least}")
    return tuple(const_value(v) for v in values)


def get_pad_tuple(padding: Any, kernel: Sequence[Any], op: str = "conv2d") -> tuple[int, int, int, int]:
    """The padding (top, left, bottom, right) TVM reads from *padding*: an int for all four sides,
    a pair (rows, columns) for both sides of each, four values as they are, or ``"VALID"`` (none)
    and ``"SAME"`` (the output as large as the input at stride 1; an odd excess before, as
    in TVM: a kernel of 2 pads one row on top and none below).

    :raises ValueError: for any other value.
    """
    if isinstance(padding, str):
        if padding == "VALID":
            return 0, 0, 0, 0
        if padding == "SAME":
            rows, cols = (get_const_int(k) - 1 for k in kernel)
            return (rows + 1) // 2, (cols + 1) // 2, rows // 2, cols // 2
        raise ValueError(f"topi.nn.{op}: padding {padding!r} is neither 'SAME' nor 'VALID'")
    if isinstance(padding, (list, tuple)) and len(padding) == 4:
        return pair(op, "padding", padding, 4)  # type: ignore[return-value]
    rows, cols = pair(op, "padding", padding)
    return rows, cols, rows, cols


def get_pad_tuple_generic(padding: Any, kernel: Sequence[Any], op: str = "conv") -> tuple[list[int], list[int]]:
    """The padding before and after each of the spatial dimensions *kernel* spans: an int for
    every side, one value per dimension (both its sides), one per side (all the befores, then
    the afters), ``"VALID"`` or ``"SAME"`` (as :func:`get_pad_tuple`).

    :raises ValueError: for any other value.
    """
    dims = len(kernel)
    if isinstance(padding, str):
        if padding not in ("SAME", "VALID"):
            raise ValueError(f"topi.nn.{op}: padding {padding!r} is neither 'SAME' nor 'VALID'")
        total = [get_const_int(k) - 1 if padding == "SAME" else 0 for k in kernel]
        return [(t + 1) // 2 for t in total], [t // 2 for t in total]
    if isinstance(padding, (list, tuple)) and len(padding) == 2 * dims:
        sides = pair(op, "padding", padding, 2 * dims)
        return list(sides[:dims]), list(sides[dims:])
    if isinstance(padding, (list, tuple)) and len(padding) not in (1, dims):
        raise ValueError(f"topi.nn.{op}: padding takes one value, {dims} (one per dimension) or {2 * dims} (before, "
                         f"then after), got {list(padding)}")
    each = pair(op, "padding", padding[0] if isinstance(padding, (list, tuple)) and len(padding) == 1 else padding,
                dims)
    return list(each), list(each)


def get_pad_tuple1d(padding: Any, kernel: Sequence[Any], op: str = "conv1d") -> tuple[int, int]:
    """The padding (left, right) of a 1-d window (see :func:`get_pad_tuple_generic`)."""
    before, after = get_pad_tuple_generic(padding, kernel, op)
    return before[0], after[0]


def get_pad_tuple3d(padding: Any, kernel: Sequence[Any], op: str = "conv3d") -> tuple[int, ...]:
    """The padding (front, top, left, back, bottom, right) of a 3-d window."""
    before, after = get_pad_tuple_generic(padding, kernel, op)
    return (*before, *after)


def get_shape(src_shape: Sequence[Any], src_layout: str, dst_layout: str) -> tuple[Any, ...]:
    """*src_shape* (in *src_layout*) in *dst_layout*: ``(1, 3, 224, 224)`` from ``NCHW`` to
    ``NHWC`` is ``(1, 224, 224, 3)``; split axes (``NCHW16c``) split or join."""
    return get_const_tuple(layout_shape(src_shape, src_layout, dst_layout))


from topi.traverse import traverse_inline  # noqa: E402 - TVM keeps it in topi.utils


def nchw_pack_layout(layout_info: str) -> bool:
    """Whether *layout_info* is a packed NCHW layout such as ``NCHW4n4c`` (TVM's check)."""
    return layout_info[:4] == "NCHW" and "c" in layout_info and "n" in layout_info


__all__ = ["const_value", "get_const_int", "get_const_tuple", "get_pad_tuple", "get_pad_tuple1d", "get_pad_tuple3d",
           "get_pad_tuple_generic", "get_shape", "nchw_pack_layout", "pair", "traverse_inline"]
