"""Errors of lowering."""

from __future__ import annotations

from schedule.base.errors import TeError


class LoweringError(TeError, ValueError):
    """A schedule that cannot be turned into loops; the message names the stage or tensor."""
