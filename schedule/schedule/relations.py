"""The relations between a stage's IterVars: split, fuse, rebase, singleton."""

from __future__ import annotations

from dataclasses import dataclass

from schedule.ir.expr import Expr
from schedule.ir.itervar import IterVar

_record = dataclass(frozen=True, eq=False)


@_record
class Split:
    """``parent = outer * inner_extent + inner``; exactly one of *factor* and *nparts* is set."""

    parent: IterVar
    outer: IterVar
    inner: IterVar
    factor: Expr | None
    nparts: Expr | None

    def __repr__(self) -> str:
        how = f"factor={self.factor}" if self.factor is not None else f"nparts={self.nparts}"
        return f"split(parent={self.parent.name}, outer={self.outer.name}, inner={self.inner.name}, {how})"


@_record
class Fuse:
    """``fused = outer * inner_extent + inner``."""

    outer: IterVar
    inner: IterVar
    fused: IterVar

    def __repr__(self) -> str:
        return f"fuse(outer={self.outer.name}, inner={self.inner.name}, fused={self.fused.name})"


@_record
class Rebase:
    """``parent = rebased + parent.min``: a loop that starts at 0 (made by normalize)."""

    parent: IterVar
    rebased: IterVar

    def __repr__(self) -> str:
        return f"rebase(parent={self.parent.name}, rebased={self.rebased.name})"


@_record
class Singleton:
    """A loop of one iteration (the result of fusing nothing)."""

    iter: IterVar

    def __repr__(self) -> str:
        return f"singleton(iter={self.iter.name})"


IterVarRelation = Split | Fuse | Rebase | Singleton
