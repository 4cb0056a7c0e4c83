"""TVM's ``tvm.script.tir`` (``T``): ``@T.prim_func`` reads the decorated function's source
into a lowered function (nothing in its body runs). The other names (``T.Buffer``,
``T.int32``, ``T.grid`` ...) are what Python evaluates in a signature's annotations: markers
that stand for themselves."""

from __future__ import annotations

from typing import Any

from lower.lower import LoweredFunc
from lower.tvmscript import read_decorated


def prim_func(fn: Any = None, **options: Any) -> Any:
    """``@T.prim_func`` or ``@T.prim_func(check_well_formed=False)``: the function, read."""
    if fn is None:
        return lambda f: read_decorated(f)
    if not callable(fn):
        raise TypeError(f"T.prim_func decorates a function, got {type(fn).__name__}")
    return read_decorated(fn)


class _Marker:
    """A name of ``T`` as Python sees it in an annotation: callable and indexable."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, *args: Any, **kwargs: Any) -> _Marker:
        return self

    def __getitem__(self, item: Any) -> _Marker:
        return self

    def __repr__(self) -> str:
        return f"T.{self.name}"


def __getattr__(name: str) -> _Marker:
    if name.startswith("__"):
        raise AttributeError(name)
    return _Marker(name)


__all__ = ["LoweredFunc", "prim_func"]
