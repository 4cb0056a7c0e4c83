"""A schedule's history (TVM's ``te.keep_schedule_record``): created inside a PassContext that
sets the flag, a schedule keeps a copy of itself after each primitive (``schedule_record``)
and the primitive's name (``primitive_record``), the first entry being the vanilla schedule."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])


def recorded(fn: F) -> F:
    """Record the schedule after *fn*, a primitive of a stage or a schedule (once per outermost
    call: ``tile``'s two splits and its reorder are three entries, as in TVM)."""
    name = fn.__name__

    @functools.wraps(fn)
    def primitive(self: Any, *args: Any, **kwargs: Any) -> Any:
        sch = getattr(self, "_schedule", self)
        if sch is None or not getattr(sch, "keep_schedule_record", False):
            return fn(self, *args, **kwargs)
        sch._record_depth += 1
        try:
            out = fn(self, *args, **kwargs)
        finally:
            sch._record_depth -= 1
        if sch._record_depth == 0:
            sch.record(name)
        return out

    return primitive  # type: ignore[return-value]
