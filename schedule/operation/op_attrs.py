"""An operation's attributes (``compute(..., attrs={...})``) as TVM keeps them: numbers become
constant expressions (``attrs["n"].value``), lists stay lists, tensors stay tensors (as in
``layout_free_placeholders``), and ``str()`` is JSON (a tensor by its name)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from schedule.base.errors import ScheduleTypeError
from schedule.ir import arith
from schedule.ir.expr import Expr, FloatImm, IntImm, StringImm


class AttrMap(dict):
    """The attributes of an operation, by name."""

    def __str__(self) -> str:
        return json.dumps({k: _plain(v) for k, v in self.items()})


def attr_map(attrs: Mapping[str, Any] | None, where: str) -> AttrMap:
    """*attrs* with numbers as constants, strings as string constants, lists and dicts inside.

    :raises ScheduleTypeError: for a key that is not a string or a value of another kind.
    """
    out = AttrMap()
    for k, v in (attrs or {}).items():
        if not isinstance(k, str):
            raise ScheduleTypeError(f"{where}: attribute names are strings, not {k!r}")
        out[k] = _convert(v, f"{where}: attribute '{k}'")
    return out


def _convert(v: Any, where: str) -> Any:
    if v is None or isinstance(v, Expr):
        return v
    if isinstance(v, str):
        return StringImm(v)
    if isinstance(v, (bool, int, float)):
        return arith.const(v)
    if isinstance(v, (list, tuple)):
        return [_convert(x, where) for x in v]
    if isinstance(v, Mapping):
        return AttrMap({str(k): _convert(x, where) for k, x in v.items()})
    if hasattr(v, "as_expr"):
        return v.as_expr()
    if hasattr(v, "op") and hasattr(v, "shape"):  # a tensor (layout_free_placeholders=[B])
        return v
    raise ScheduleTypeError(f"{where}: a {type(v).__name__} is no attribute value (numbers, strings, "
                            "expressions, tensors and lists of them are)")


def _plain(v: Any) -> Any:
    if isinstance(v, (IntImm, FloatImm, StringImm)):
        return v.value
    if isinstance(v, list):
        return [_plain(x) for x in v]
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if hasattr(v, "op") and hasattr(v, "shape"):
        return v.name
    return None if v is None else str(v)
