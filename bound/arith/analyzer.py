"""The analyzer: variables with known ranges (or bound to expressions), and simplification,
proofs, constant bounds, modular sets and interval sets under them. Besides our own calls it
answers to TVM's ``tvm.arith.Analyzer`` methods (``const_int_bound``, ``modular_set``,
``canonical_simplify``, ``update``, ``constraint_scope`` ...)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from bound.arith.const_bound import Bound, ConstBounds
from bound.arith.modular import ModularSet, modular_set
from bound.arith.simplify import _add_range, _quick_proof, _Rewriter, _simplify, var_bounds_of
from schedule.ir.arith import convert
from schedule.ir.expr import EQ, GE, GT, LE, LT, And, Expr, FloorMod, IntImm, Mod, Var
from schedule.ir.functor import free_vars, structural_equal
from schedule.ir.itervar import IterVar, Range


def _range_vars(r: Any) -> frozenset[Var]:
    """The variables a range (a Range, interval, pair or bound expression) is written in."""
    if isinstance(r, Expr):
        return frozenset(free_vars([r]))
    ends = [r.min, r.extent] if isinstance(r, Range) else \
        [x for x in (getattr(r, "min_value", None), getattr(r, "max_value", None)) if isinstance(x, Expr)]
    return frozenset(free_vars(ends))


def _conjuncts(cond: Expr) -> list[Expr]:
    out, stack = [], [cond]
    while stack:
        c = stack.pop()
        if isinstance(c, And):
            stack += [c.b, c.a]
        else:
            out.append(c)
    return out


#: A comparison ``var OP c`` as the bounds it gives var: (lower, upper) from c.
_BOUND_OF = {LT: lambda c: (None, c - 1), LE: lambda c: (None, c), GT: lambda c: (c + 1, None),
             GE: lambda c: (c, None), EQ: lambda c: (c, c)}
_MIRROR = {LT: GT, LE: GE, GT: LT, GE: LE, EQ: EQ}


class Analyzer:
    """Variables with known ranges (or bound to expressions), and simplification, proofs,
    constant bounds and modular sets under them; ``constraint_scope`` adds facts for a block."""

    _STATE = ("_ranges", "_bounds", "_subst", "_uses", "_users", "_order", "_modular", "_facts")

    def __init__(self, ranges: Mapping[Any, Any] | None = None) -> None:
        self._ranges: dict[Var, Any] = {}
        # Constant bounds of the ranges so far, kept up to date as ranges are added; replacing
        # a range recomputes them (later ranges may have been bounded through it).
        self._bounds: dict[Var, Bound] | None = {}
        self._subst: dict[Var, Expr] = {}
        self._uses: dict[Var, frozenset[Var]] = {}  # the variables each range is written in
        self._users: dict[Var, tuple[Var, ...]] = {}  # the variables whose ranges mention each
        self._order: dict[Var, int] = {}  # when each variable was first bound
        self._modular: dict[Var, ModularSet] = {}  # residues known from constraints
        self._facts: list[Expr] = []  # the conditions of the enclosing constraint scopes
        for k, v in (ranges or {}).items():
            self.bind(k, v)

    def bind(self, var: Var | IterVar, r: Any) -> None:
        """Record (or replace) the range of *var*: a Range, an inclusive ``(lo, hi)`` pair (None
        for an open end), an interval, or an expression *var* equals."""
        v = var.var if isinstance(var, IterVar) else var
        old = self._ranges.get(v)
        if old is r:
            return
        self._ranges[v] = r
        uses = self._uses[v] = _range_vars(r)
        self._order.setdefault(v, len(self._order))
        for u in uses:
            self._users[u] = (*self._users.get(u, ()), v)
        if self._bounds is None:
            return
        if old is None:
            _add_range(self._bounds, self._subst, v, r)
            return
        # A replaced range: recompute it and the later ranges bounded through it.
        first = self._order[v]
        changed = {v}
        pending = [v]
        while pending:
            for k in self._users.get(pending.pop(), ()):
                if k not in changed and self._order[k] > first and not self._uses[k].isdisjoint(changed):
                    changed.add(k)
                    pending.append(k)
        for k in sorted(changed, key=self._order.__getitem__):
            _add_range(self._bounds, self._subst, k, self._ranges[k])

    def knows(self, var: Var) -> bool:
        """Whether *var* has a range here."""
        return var in self._ranges

    def range_of(self, var: Var) -> Any:
        """What *var* was bound to (a Range, pair, interval or expression), or None."""
        return self._ranges.get(var)

    @property
    def facts(self) -> tuple[Expr, ...]:
        """The conditions of the enclosing constraint scopes, conjunct by conjunct."""
        return tuple(self._facts)

    def _var_bounds(self) -> tuple[dict[Var, Bound], dict[Var, Expr]]:
        if self._bounds is None:
            self._bounds, self._subst = var_bounds_of(self._ranges)
        return self._bounds, self._subst

    def copy(self) -> Analyzer:
        new = Analyzer()
        self._var_bounds()
        for name in self._STATE:
            value = getattr(self, name)
            setattr(new, name, value.copy() if value is not None else None)
        return new

    @contextmanager
    def rebound(self, variables: list[Var]) -> Iterator[Analyzer]:
        """This analyzer, for a block that binds *variables* anew; their ranges are put back
        after it. Where one of them had no range, a copy is used instead (what the block binds
        then stays in the copy); a copy costs as much as the ranges known, this nothing."""
        old = [(v, self._ranges.get(v)) for v in variables]
        if any(r is None for _, r in old):
            yield self.copy()
            return
        try:
            yield self
        finally:
            for v, r in old:
                if self._ranges.get(v) is not r:
                    self.bind(v, r)

    @contextmanager
    def constraint_scope(self, cond: Any) -> Iterator[None]:
        """Within the block, *cond* holds: its conjuncts ``v OP c`` tighten v's bounds, and
        ``v % c == b`` (floor or truncated) gives v's residue; every conjunct is a known fact."""
        saved = {name: (v.copy() if (v := getattr(self, name)) is not None else None) for name in self._STATE}
        try:
            if not isinstance(cond, bool):
                self._assume(convert(cond))
            yield
        finally:
            for name, value in saved.items():
                setattr(self, name, value)

    def _assume(self, cond: Expr) -> None:
        for c in _conjuncts(cond):
            self._facts.append(c)
            if not isinstance(c, tuple(_BOUND_OF)):
                continue
            a, b, kind = c.a, c.b, type(c)
            if isinstance(a, IntImm) and isinstance(b, Var):
                a, b, kind = b, a, _MIRROR[kind]
            if isinstance(a, Var) and isinstance(b, IntImm):
                lo, hi = _BOUND_OF[kind](b.value)
                old_lo, old_hi = self.const_bound(a)
                lo = old_lo if lo is None else (lo if old_lo is None else max(lo, old_lo))
                hi = old_hi if hi is None else (hi if old_hi is None else min(hi, old_hi))
                self.bind(a, (lo, hi))
            elif (kind is EQ and isinstance(a, (FloorMod, Mod)) and isinstance(a.a, Var)
                  and isinstance(a.b, IntImm) and isinstance(b, IntImm) and a.b.value != 0):
                residue = ModularSet.of(a.b.value, b.value)
                old = self._modular.get(a.a)
                self._modular[a.a] = old.intersect(residue) or residue if old is not None else residue

    def modular_set(self, e: Expr) -> ModularSet:
        """The modular set of *e*: residues from constraints and from expressions variables are
        bound to; truncated division counts on a non-negative dividend where bounds prove it."""
        known = dict(self._modular)
        _, subst = self._var_bounds()
        nonneg = lambda x: (lo := self.const_bound(x)[0]) is not None and lo >= 0  # noqa: E731
        for v in sorted(subst, key=lambda k: self._order.get(k, 0)):
            if isinstance(self._ranges.get(v), Expr):
                found = modular_set(subst[v], known, nonneg)
                known[v] = known[v].intersect(found) or found if v in known else found
        return modular_set(convert(e), known, nonneg)

    def simplify(self, e: Expr) -> Expr:
        return _simplify(e, *self._var_bounds())

    def can_prove(self, cond: Expr) -> bool:
        """Whether *cond* holds at every point of the known ranges (False if unknown)."""
        if self._facts and any(structural_equal(cond, f) for f in self._facts):
            return True
        quick = _quick_proof(cond, *self._var_bounds())
        if quick is not None:
            return quick
        out = self.simplify(cond)
        return isinstance(out, IntImm) and out.value != 0

    def const_bounds(self) -> ConstBounds:
        """Constant bounds under the known ranges, without simplifying first (memoized per node)."""
        return ConstBounds(self._var_bounds()[0])

    def const_bound(self, e: Expr) -> Bound:
        bounds, subst = self._var_bounds()
        return ConstBounds(bounds)(_Rewriter(bounds, subst)(e))
