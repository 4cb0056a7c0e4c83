"""Named bounds: exact mode's loop-dependent ranges, each standing for its definition.

A stage's exact range is an expression in the loops it is computed inside of, and that
expression contains its consumer's range, which contains its own consumer's, and so on: written
out, bounds grow with the nesting depth of compute_at, and every later step (isl, the
simplifier) pays for the size. Exact mode names each such bound by a fresh variable with its
definition and constant bounds, like a ``let``. A producer's region is then computed in terms
of its consumer's named bounds, which is exact: at run time the name has one value. The names
are written out again (:meth:`BoundSymbols.restore`) only in the final result, or where a
producer relaxes a loop the bound depends on (:meth:`BoundSymbols.expand`).
"""

from __future__ import annotations

from collections.abc import Set

from bound.arith.analyzer import Analyzer
from schedule.ir.expr import Expr, IntImm, Var
from schedule.ir.functor import children, substitute
from schedule.ir.itervar import Range


class BoundSymbols:
    """The named bounds of one InferBound run; *loop_vars* are the schedule's loop variables."""

    def __init__(self, loop_vars: Set[Var], analyzer: Analyzer) -> None:
        self.definitions: dict[Var, Expr] = {}
        self.bounds: dict[Var, tuple[int | None, int | None]] = {}
        self._loop_vars = loop_vars
        self._analyzer = analyzer
        self._deps: dict[Var, frozenset[Var]] = {}
        self._restored: dict[Var, Expr] = {}

    def uses(self, e: Expr) -> frozenset[Var]:
        """The loop variables *e* depends on, through the definitions of the names it uses."""
        found: set[Var] = set()
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, Var):
                if x in self._loop_vars:
                    found.add(x)
                found |= self._deps.get(x, frozenset())
            else:
                stack.extend(children(x))
        return frozenset(found)

    def name(self, e: Expr, hint: str) -> Expr:
        """A fresh name for *e* if it depends on a loop, else *e* itself."""
        if isinstance(e, (IntImm, Var)):
            return e
        deps = self.uses(e)
        if not deps:
            return e
        v = Var(hint, e.dtype)
        self.definitions[v] = e
        self._deps[v] = deps
        self.bounds[v] = self._analyzer.const_bound(e)
        self._analyzer.bind(v, self.bounds[v])
        return v

    def name_range(self, r: Range, hint: str) -> Range:
        return Range.from_min_extent(self.name(r.min, hint + ".min"), self.name(r.extent, hint + ".extent"))

    def expand(self, e: Expr, loops: Set[Var]) -> Expr:
        """*e* with every name that depends on one of *loops* replaced by its definition."""
        if not self.definitions or not loops:
            return e
        vmap = {}
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, Var):
                if x in self.definitions and x not in vmap and not self._deps[x].isdisjoint(loops):
                    vmap[x] = self.expand(self.definitions[x], loops)
            else:
                stack.extend(children(x))
        return substitute(e, vmap) if vmap else e

    def expand_range(self, r: Range, loops: Set[Var]) -> Range:
        lo, ext = self.expand(r.min, loops), self.expand(r.extent, loops)
        return r if lo is r.min and ext is r.extent else Range.from_min_extent(lo, ext)

    def restore(self, e: Expr) -> Expr:
        """*e* written in loop variables only; definitions are shared, not copied."""
        vmap = {}
        stack = [e]
        while stack:
            x = stack.pop()
            if isinstance(x, Var):
                if x in self.definitions and x not in vmap:
                    vmap[x] = self._restore_name(x)
            else:
                stack.extend(children(x))
        return substitute(e, vmap) if vmap else e

    def _restore_name(self, v: Var) -> Expr:
        done = self._restored.get(v)
        if done is None:
            done = self._restored[v] = self.restore(self.definitions[v])
        return done
