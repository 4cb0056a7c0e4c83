"""Errors of lowering."""

from __future__ import annotations

from schedule.base.errors import TeError


class LoweringError(TeError, ValueError):
    """A schedule that cannot be turned into loops; the message names the stage or tensor."""


class GpuLimitError(LoweringError):
    """A kernel over its GPU's limits (threads or shared memory per block), refused before it
    compiles, as TVM's ``VerifyGPUCode`` refuses it (autotvm counts it an invalid configuration)."""


class OutsideReadWarning(UserWarning):
    """``lower`` met a read outside a tensor: the IR is returned, as TVM's is, and ``build``
    refuses it."""
