"""A small IR builder (``te.ir_builder.create()``), as TVM's: a tensor intrinsic's body, reset
and update are calls emitted one after the other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schedule import arith
from schedule.errors import ScheduleTypeError
from schedule.expr import Expr


@dataclass(frozen=True)
class Emitted:
    """Expressions evaluated in order for their effect (calls into external functions)."""

    calls: tuple[Expr, ...]


class IRBuilder:
    """Collects the calls of an intrinsic's statement: ``ib.emit(call)``, then ``ib.get()``."""

    def __init__(self) -> None:
        self._calls: list[Expr] = []

    def emit(self, value: Any) -> None:
        """Evaluate *value* (a call) at this point of the statement."""
        if isinstance(value, Emitted):
            self._calls.extend(value.calls)
            return
        try:
            self._calls.append(arith.convert(value))
        except TypeError as err:
            raise ScheduleTypeError(f"ir_builder.emit: expected a call expression: {err}") from None

    def get(self) -> Emitted:
        """The statement built so far."""
        return Emitted(tuple(self._calls))

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise ScheduleTypeError(f"ir_builder: '{name}' is not supported; an intrinsic's statement is a "
                                "sequence of calls made with emit()")


def create() -> IRBuilder:
    """A new builder."""
    return IRBuilder()


def as_emitted(where: str, value: Any) -> Emitted | None:
    """*value* (None, a call, or a builder's statement) as a sequence of calls."""
    if value is None or isinstance(value, Emitted):
        return value
    try:
        return Emitted((arith.convert(value),))
    except TypeError:
        raise ScheduleTypeError(f"{where}: expected a call expression or ir_builder.get(), not "
                                f"{type(value).__name__}") from None
