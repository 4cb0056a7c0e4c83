"""Errors of bound inference."""

from __future__ import annotations

from schedule.base.errors import TeError


class BoundError(TeError, ValueError):
    """Bound inference cannot handle this schedule (the message names the stage)."""


class NonAffineError(BoundError):
    """Internal signal: an expression is not quasi-affine; callers fall back to intervals."""
