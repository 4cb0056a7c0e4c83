"""Loop arithmetic narrowed to *target_bits* where the ranges allow (TVM's NarrowDataType).

A loop (or thread) variable of a wider integer type (int64, or int32 for 16 bits) becomes
``int<target_bits>``, or the next type up that is still narrower than its own, when its range
and every expression of its type it takes part in stay within that type under the loop ranges;
an expression that also involves a variable that cannot be narrowed (a wide shape parameter, a
read of wide memory) keeps all of its variables wide. Narrowed expressions are rebuilt in the
narrow type and cast back where a wide value is still needed (a store into wide memory, a let
of a wide variable). The widest type is narrowed first (int64 to int16 or int32, then int32
to int16).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import Any

from bound import Analyzer
from lower.ir.stmt import AttrStmt, For, LetStmt, Load, Stmt, Store
from lower.ir.stmt_functor import StmtMutator, StmtVisitor
from schedule import arith
from schedule.ir.expr import Call, Cast, Expr, IntImm, ProducerLoad, Var
from schedule.ir.functor import distinct_post_order, field_names, free_vars
from schedule.ir.itervar import IterVar, Range


@dataclass(frozen=True)
class _Width:
    """Narrowing *wide* to *narrow*, whose values are ``[lo, hi]``."""

    wide: str
    narrow: str
    lo: int
    hi: int


def narrow_datatype(stmt: Stmt, target_bits: int = 32) -> Stmt:
    """*stmt* with each wide loop variable in the narrowest type, no narrower than
    ``int<target_bits>``, that holds its values and those of its expressions (see above)."""
    for wide in ("int64", "int32", "int16"):
        for narrow in (8, 16, 32):  # the narrowest that holds a variable's values wins
            if target_bits <= narrow < int(wide[3:]):
                stmt = _narrowed(stmt, _Width(wide, f"int{narrow}", -(2 ** (narrow - 1)), 2 ** (narrow - 1) - 1))
    return stmt


def _narrowed(stmt: Stmt, w: _Width) -> Stmt:
    found = _Collect(w)
    found(stmt)
    if not found.wide:
        return stmt
    analyzer = Analyzer()
    for v, r in found.loops.items():
        analyzer.bind(v, r)
    new_vars = {v: Var(v.name, w.narrow) for v in _decide(found, analyzer, w)}
    return _Rewrite(_Narrow(new_vars, analyzer, w))(stmt)


class _Collect(StmtVisitor):
    """The loop and thread variables with their ranges, and every expression."""

    def __init__(self, w: _Width) -> None:
        self.w = w
        self.loops: dict[Var, Range] = {}
        self.exprs: list[Expr] = []
        self.wide = False  # whether any int64 expression is there to narrow

    def visit_for(self, s: For) -> Generator[Any, Any, None]:
        self.loops[s.loop_var] = Range.from_min_extent(s.min, s.extent)
        yield from self.visit_default(s)

    def visit_attr_stmt(self, s: AttrStmt) -> Generator[Any, Any, None]:
        if s.key in ("thread_extent", "virtual_thread") and isinstance(s.node, IterVar):
            self.loops.setdefault(s.node.var, Range.from_min_extent(arith.const(0, s.value.dtype), s.value))
        yield from self.visit_default(s)

    def visit_expr(self, e: Expr) -> None:
        self.exprs.append(e)
        self.wide = self.wide or any(x.dtype == self.w.wide for x in distinct_post_order(e))


def _fits(bound: tuple[Any, Any], w: _Width) -> bool:
    lo, hi = bound
    return lo is not None and hi is not None and w.lo <= lo and hi <= w.hi


def _decide(found: _Collect, analyzer: Analyzer, w: _Width) -> set[Var]:
    candidates = {v for v, r in found.loops.items() if v.dtype == w.wide and _fits(analyzer.const_bound(r.min), w)
                  and _fits(analyzer.const_bound(arith.add(r.min, r.extent)), w)}
    groups: list[tuple[set[Var], bool]] = []  # the int64 variables of each int64 node, and whether it fits
    for e in found.exprs:
        for node in distinct_post_order(e):
            if node.dtype != w.wide or isinstance(node, (IntImm, Var)):
                continue
            source = isinstance(node, (Load, ProducerLoad)) or (isinstance(node, Call) and node.name != "likely")
            used = {v for v in free_vars([node]) if v.dtype == w.wide}
            groups.append((used, not source and _fits(analyzer.const_bound(node), w)))
    wide = {v for g, _ in groups for v in g} - candidates
    changed = True
    while changed:
        changed = False
        for used, ok in groups:
            if (not ok or used & wide) and used & candidates - wide:
                wide |= used & candidates
                changed = True
    return candidates - wide


class _Rewrite(StmtMutator):
    def __init__(self, narrow: _Narrow) -> None:
        self.new_vars = narrow.new_vars
        self.dtype = narrow.w.narrow
        self.itervars: dict[IterVar, IterVar] = {}
        self.narrow = narrow

    def mutate_expr(self, e: Expr) -> Expr:
        return _as(self.narrow(e), e.dtype)  # a field keeps its type

    def visit_for(self, s: For) -> Generator[Any, Any, Stmt]:
        body = yield s.body
        if s.loop_var not in self.new_vars:
            return replace(s, min=self.mutate_expr(s.min), extent=self.mutate_expr(s.extent), body=body)
        return For(self.new_vars[s.loop_var], _as(self.narrow(s.min), self.dtype),
                   _as(self.narrow(s.extent), self.dtype), s.kind, body, s.annotations)

    def visit_attr_stmt(self, s: AttrStmt) -> Generator[Any, Any, Stmt]:
        body = yield s.body
        iv = s.node
        if isinstance(iv, IterVar) and iv.var in self.new_vars:
            if iv not in self.itervars:
                self.itervars[iv] = IterVar(iv.dom, self.new_vars[iv.var], iv.iter_type, iv.thread_tag)
            return AttrStmt(self.itervars[iv], s.key, _as(self.narrow(s.value), self.dtype), body)
        if not isinstance(s.value, Expr):
            return replace(s, body=body)
        dtype = iv.var.dtype if isinstance(iv, IterVar) and s.key == "thread_extent" else s.value.dtype
        return replace(s, value=_as(self.narrow(s.value), dtype), body=body)

    def visit_store(self, s: Store) -> Stmt:
        return replace(s, value=self.mutate_expr(s.value), index=self.narrow(s.index),
                       checks=tuple(self.narrow(c) for c in s.checks))

    def visit_let_stmt(self, s: LetStmt) -> Generator[Any, Any, Stmt]:
        body = yield s.body
        return replace(s, value=_as(self.narrow(s.value), s.var.dtype), body=body)


def _as(e: Expr, dtype: str) -> Expr:
    """*e* in *dtype* (an int32 result where an int64 one was)."""
    if e.dtype == dtype:
        return e
    if isinstance(e, IntImm):
        return arith.const(e.value, dtype)
    if isinstance(e, Cast) and e.value.dtype == dtype:
        return e.value
    return Cast(dtype, e)


class _Narrow:
    """Rebuild an expression bottom up: an int64 node whose variables are all narrowed becomes
    int32; operands that must agree take int32 only if they all can."""

    def __init__(self, new_vars: dict[Var, Var], analyzer: Analyzer, w: _Width) -> None:
        self.new_vars = new_vars
        self.analyzer = analyzer
        self.w = w
        self.fit: dict[int, bool] = {}

    def __call__(self, e: Expr) -> Expr:
        done: dict[int, Expr] = {}
        for node in distinct_post_order(e):
            done[id(node)] = self._rebuild(node, done)
        return done[id(e)]

    def _narrowable(self, node: Expr) -> bool:
        """An int64 node whose variables are all narrowed and whose values fit in int32."""
        if isinstance(node, (Load, ProducerLoad)) or (isinstance(node, Call) and node.name != "likely"):
            return False
        if not all(v in self.new_vars for v in free_vars([node]) if v.dtype == self.w.wide):
            return False
        if id(node) not in self.fit:
            self.fit[id(node)] = _fits(self.analyzer.const_bound(node), self.w)
        return self.fit[id(node)]

    def _rebuild(self, node: Expr, done: dict[int, Expr]) -> Expr:
        if isinstance(node, Var):
            return self.new_vars.get(node, node)
        if isinstance(node, IntImm):
            return node
        changed: dict[str, Any] = {}
        wide = [getattr(node, n) for n in field_names(node)
                if isinstance(getattr(node, n), Expr) and getattr(node, n).dtype == self.w.wide]
        independent = isinstance(node, (Load, ProducerLoad, Cast))
        # Operands that must agree narrow together: with the node itself if it is int64 (its
        # value must fit too), else (a comparison) when every one of them can.
        together = self._narrowable(node) if node.dtype == self.w.wide else all(self._narrowable(x) for x in wide)
        agree = self.w.narrow if wide and together else self.w.wide
        for name in field_names(node):
            old = getattr(node, name)
            if isinstance(old, Expr):
                new = self._child(old, done, independent, agree)
            elif isinstance(old, tuple) and old and all(isinstance(x, Expr) for x in old):
                new = tuple(self._child(x, done, independent, agree) for x in old)
                new = old if all(a is b for a, b in zip(new, old)) else new
            else:
                continue
            if new is not old:
                changed[name] = new
        if isinstance(node, Cast):
            value = changed.get("value", node.value)
            if node.dtype == self.w.wide and self._narrowable(node):
                return _as(value, self.w.narrow)
            if value.dtype == node.dtype:  # a cast its narrowed operand no longer needs
                return value
        return replace(node, **changed) if changed else node

    def _child(self, old: Expr, done: dict[int, Expr], independent: bool, agree: str) -> Expr:
        new = done[id(old)]
        if old.dtype != self.w.wide:
            return new
        if independent:
            return new if self._narrowable(old) else _as(new, self.w.wide)
        return _as(new, agree)
