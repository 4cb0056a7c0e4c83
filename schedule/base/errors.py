"""The error hierarchy shared by every package.

User mistakes raise :class:`ScheduleError` (schedule and DSL), ``bound.BoundError`` or
``lower.LoweringError``; :class:`InternalError` means an invariant of ours is broken.
"""

from __future__ import annotations


class TeError(RuntimeError):
    """Base of every error this project raises on purpose.

    A ``RuntimeError``, as TVM's ``TVMError`` is, so that ``pytest.raises(RuntimeError)`` in
    ported TVM tests catches it; the subclasses are also ``ValueError`` or ``TypeError``.
    """


class ScheduleError(TeError, ValueError):
    """A schedule primitive or a DSL call was given something it cannot accept.

    Raised before any state changes: the schedule is left as it was.
    """


class InternalError(TeError):
    """A broken invariant: a bug in this project, not in the user's program."""


class ScheduleTypeError(ScheduleError, TypeError):
    """A DSL argument of the wrong type (a float index, a string factor ...)."""
