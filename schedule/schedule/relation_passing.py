"""Message passing over a stage's relations: domains down, indices up and down, bound checks.

These follow TVM's ``message_passing.cc``. Proofs (does the factor divide the extent? is the
extent below the factor?) go through a :class:`Prover`; the default one only trusts constants,
and the bound package passes a range-aware one.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping
from typing import Protocol

from schedule.base.errors import ScheduleError
from schedule.ir import arith
from schedule.ir.expr import Expr
from schedule.ir.functor import free_vars
from schedule.ir.itervar import IterVar, Range
from schedule.schedule.relations import Fuse, Rebase, Singleton, Split
from schedule.schedule.stage import Stage


class Prover(Protocol):
    def can_prove(self, cond: Expr) -> bool: ...
    def simplify(self, e: Expr) -> Expr: ...


class ConstProver:
    """Proves what folds to a true constant; simplifies nothing."""

    def can_prove(self, cond: Expr) -> bool:
        v = arith.value_of(cond)
        return v is not None and bool(v)

    def simplify(self, e: Expr) -> Expr:
        return e


def ceil_div(a: Expr, b: Expr, prover: Prover) -> Expr:
    """``ceil(a / b)`` for a positive *b*, plain ``a // b`` when *b* provably divides *a*."""
    if prover.can_prove(arith.equal(arith.floormod(a, b), 0)):
        return prover.simplify(arith.floordiv(a, b))
    return prover.simplify(arith.floordiv(a + (b - 1), b))


def thread_bound_ivs(stage: Stage) -> dict[IterVar, bool]:
    """For each IterVar, whether some leaf derived from it is bound to a thread."""
    state = {iv: stage.bound_thread(iv) is not None for iv in stage.leaf_iter_vars}
    for rel in reversed(stage.relations):
        match rel:
            case Split(parent=p, outer=o, inner=i):
                state[p] = state.get(i, False) or state.get(o, False)
            case Fuse(outer=o, inner=i, fused=f):
                state[o] = state[i] = state.get(f, False)
            case Rebase(parent=p, rebased=r):
                state[p] = state.get(r, False)
    return state


def _update(dom_map: MutableMapping[IterVar, Range], iv: IterVar, r: Range, prover: Prover) -> None:
    old = dom_map.get(iv)
    if old is None:
        dom_map[iv] = r
        return
    if not (arith.value_of(r.min) == 0 and prover.can_prove(arith.equal(old.extent, r.extent))):
        raise ScheduleError(f"IterVar '{iv.name}' gets two domains, extent {old.extent} and {r.extent}; "
                            "a thread axis must be bound to loops of one extent")


def pass_down_domain(stage: Stage, dom_map: MutableMapping[IterVar, Range], prover: Prover | None = None,
                     *, allow_missing: bool = False, tighten_split: bool = True) -> None:
    """Extend *dom_map* from the root IterVars of *stage* to all the others.

    Split children start at 0: the inner one is ``factor`` long (``min(extent, factor)`` with
    *tighten_split* when that is provably shorter and no thread is bound below), the outer one
    ``ceil(extent / factor)``; nparts is symmetric. A fused IterVar is as long as the product.

    :arg allow_missing: skip relations whose inputs have no domain instead of failing.
    """
    prover = prover or ConstProver()
    bound_below = thread_bound_ivs(stage)

    def child_extent(iv: IterVar, parent: Range, given: Expr) -> Expr:
        if not tighten_split or bound_below.get(iv, False) or allow_missing \
                or arith.value_of(parent.extent) == 0:
            return given
        if prover.can_prove(arith.lt(parent.extent, given)):
            return prover.simplify(parent.extent)
        return prover.simplify(given)

    for rel in stage.relations:
        match rel:
            case Split(parent=p, outer=o, inner=i, factor=f, nparts=n):
                if p not in dom_map:
                    _missing(stage, p, allow_missing)
                    continue
                rp = dom_map[p]
                dtype = rp.extent.dtype
                # The child whose extent was given keeps it (possibly tightened); the other one
                # gets the ceiling of the parent's extent divided by it.
                given, rest = (i, o) if f is not None else (o, i)
                amount = arith.cast(dtype, f if f is not None else n)
                extent = arith.cast(dtype, child_extent(given, rp, amount))
                _update(dom_map, given, Range.from_min_extent(0, extent), prover)
                _update(dom_map, rest, Range.from_min_extent(0, ceil_div(rp.extent, amount, prover)), prover)
            case Fuse(outer=o, inner=i, fused=fz):
                if o not in dom_map or i not in dom_map:
                    _missing(stage, o if o not in dom_map else i, allow_missing)
                    continue
                extent = prover.simplify(dom_map[o].extent * dom_map[i].extent)
                dom_map[fz] = Range.from_min_extent(0, extent)
            case Rebase(parent=p, rebased=r):
                if p not in dom_map:
                    _missing(stage, p, allow_missing)
                    continue
                _update(dom_map, r, Range.from_min_extent(0, dom_map[p].extent), prover)
            case Singleton(iter=it):
                _update(dom_map, it, Range.from_min_extent(0, 1), prover)
    for iv in stage.leaf_iter_vars:
        thread = stage.bound_thread(iv)
        if thread is not None and iv in dom_map:
            _update(dom_map, thread, launch_range(dom_map[iv], prover), prover)


def launch_range(r: Range, prover: Prover) -> Range:
    """The range a thread bound to a loop over *r* is launched with: *r*, or ``[0, c)`` for the
    constant bound ``c`` of an extent that varies with the loops *prover* knows (exact regions
    at a tail); the loop then runs only for the threads below its extent."""
    const_bound = getattr(prover, "const_bound", None)
    knows = getattr(prover, "knows", None)
    if arith.value_of(r.extent) is not None or const_bound is None or knows is None:
        return r
    if not any(knows(v) for v in free_vars([r.extent])):
        return r  # shape variables only: the same for every iteration
    hi = const_bound(r.extent)[1]
    if hi is None or hi >= 2**31 - 1:
        return r
    return Range.from_min_extent(r.min, arith.const(max(hi, 0), r.extent.dtype))


def _missing(stage: Stage, iv: IterVar, allow_missing: bool) -> None:
    if not allow_missing:
        raise ScheduleError(f"stage '{stage.name}': IterVar '{iv.name}' has no domain to pass down")


def pass_up_index(stage: Stage, dom_map: Mapping[IterVar, Range], value_map: MutableMapping[IterVar, Expr],
                  *, allow_missing: bool = False) -> None:
    """Extend *value_map* (leaf -> index expression) up to the root IterVars of *stage*.

    A split parent is ``inner + outer * inner_extent`` (+ its min), a fused pair is
    ``fused // inner_extent`` and ``fused % inner_extent`` (+ their mins), a rebased parent
    ``rebased + parent.min``.
    """
    for rel in reversed(stage.relations):
        match rel:
            case Split(parent=p, outer=o, inner=i):
                if o not in value_map or i not in value_map:
                    _missing(stage, o if o not in value_map else i, allow_missing)
                    continue
                value = value_map[i] + value_map[o] * dom_map[i].extent
                value_map[p] = value + dom_map[p].min
            case Fuse(outer=o, inner=i, fused=fz):
                if fz not in value_map:
                    _missing(stage, fz, allow_missing)
                    continue
                factor = dom_map[i].extent
                outer = arith.floordiv(value_map[fz], factor) + dom_map[o].min
                inner = arith.floormod(value_map[fz], factor) + dom_map[i].min
                value_map[o] = arith.cast(o.var.dtype, outer)
                value_map[i] = arith.cast(i.var.dtype, inner)
            case Rebase(parent=p, rebased=r):
                if r not in value_map:
                    _missing(stage, r, allow_missing)
                    continue
                value_map[p] = value_map[r] + dom_map[p].min
            case Singleton():
                pass


def pass_down_index(stage: Stage, dom_map: Mapping[IterVar, Range], value_map: MutableMapping[IterVar, Expr],
                    *, allow_missing: bool = False) -> None:
    """Extend *value_map* (root -> index expression) down to the leaves of *stage*."""
    for rel in stage.relations:
        match rel:
            case Split(parent=p, outer=o, inner=i):
                if p not in value_map:
                    _missing(stage, p, allow_missing)
                    continue
                factor = dom_map[i].extent
                value_map[o] = arith.floordiv(value_map[p], factor)
                value_map[i] = arith.floormod(value_map[p], factor)
            case Fuse(outer=o, inner=i, fused=fz):
                if o not in value_map or i not in value_map:
                    _missing(stage, o if o not in value_map else i, allow_missing)
                    continue
                value_map[fz] = value_map[o] * dom_map[i].extent + value_map[i]
            case Rebase(parent=p, rebased=r):
                if p not in value_map:
                    _missing(stage, p, allow_missing)
                    continue
                value_map[r] = value_map[p] - dom_map[p].min
            case Singleton(iter=it):
                value_map[it] = arith.const(0, it.var.dtype)


def pass_up_bound_check(stage: Stage, dom_map: Mapping[IterVar, Range], prover: Prover | None = None
                        ) -> dict[IterVar, bool]:
    """For each IterVar, whether its index can leave its range (a split that does not divide).

    Leaves start unflagged; a split parent is flagged if a child is, or if
    ``parent.extent == inner.extent * outer.extent`` cannot be proven.
    """
    prover = prover or ConstProver()
    state = {iv: False for iv in stage.leaf_iter_vars}
    for rel in reversed(stage.relations):
        match rel:
            case Split(parent=p, outer=o, inner=i):
                if state.get(o, False) or state.get(i, False) or i not in dom_map or o not in dom_map:
                    state[p] = True
                else:
                    product = dom_map[i].extent * dom_map[o].extent
                    state[p] = not prover.can_prove(arith.equal(dom_map[p].extent, product))
            case Fuse(outer=o, inner=i, fused=fz):
                state[o] = state[i] = state.get(fz, False)
            case Rebase(parent=p, rebased=r):
                state[p] = state.get(r, False)
    return state
