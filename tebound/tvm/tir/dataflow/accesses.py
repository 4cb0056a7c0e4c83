"""The positions a statement may write, must write or may read, per buffer, as regions over the
variables in scope at the statement (the variables it binds itself quantified over their range).
A region isl cannot represent is ``None`` for "may" (anywhere) and left out for "must"."""

from __future__ import annotations

from enum import Enum

from bound.isl.positions import Region, Regions
from lower.ir.stmt import Allocate, AttrStmt, Evaluate, For, IfThenElse, LetStmt, Load, SeqStmt, Stmt, Store, While
from lower.ir.stmt_functor import post_order_visit as stmt_visit
from schedule.ir import arith
from schedule.ir.expr import Call, Expr, Var
from schedule.ir.itervar import IterVar
from tebound.tvm.tir.dataflow.facts import lanes_of, loads

#: Per buffer (by identity): the buffer and its region (``None``: anywhere).
Access = dict[int, tuple[object, "Region | None"]]


class Kind(Enum):
    MAY_WRITE = "may_write"
    MUST_WRITE = "must_write"
    MAY_READ = "may_read"


def strip_likely(cond: Expr) -> Expr:
    return cond.args[0] if isinstance(cond, Call) and cond.name == "likely" and cond.args else cond


def loop_of(s: Stmt) -> tuple[Var, Expr, Expr, Stmt] | None:
    """A serial loop, or a thread launch taken as one: its variable, start, extent and body."""
    if isinstance(s, For):
        return s.loop_var, s.min, s.extent, s.body
    if isinstance(s, AttrStmt) and s.key in ("thread_extent", "virtual_thread") and isinstance(s.node, IterVar):
        return s.node.var, arith.const(0, s.node.var.dtype), s.value, s.body
    return None


def union(a: Access, b: Access) -> Access:
    out = dict(a)
    for k, (buf, r) in b.items():
        if k in out:
            prev = out[k][1]
            out[k] = (buf, None if prev is None or r is None else prev.union(r).coalesce())
        else:
            out[k] = (buf, r)
    return out


class Accesses:
    """See the module's docstring; stores whose identity is in *removed* are skipped."""

    def __init__(self, regions: Regions, removed: set[int]) -> None:
        self.regions = regions
        self.removed = removed
        self.lane = Var("lane", "int32")

    def of_expr(self, exprs: list[Expr]) -> Access:
        """The positions *exprs* may read."""
        out: Access = {}
        for e in exprs:
            for load in loads(e):
                index, _, lanes = lanes_of(load.index, load.index, self.lane)
                out = union(out, {id(load.buffer): (load.buffer, self.regions.position(index, lanes))})
        return out

    def __call__(self, s: Stmt, kind: Kind) -> Access:
        method = getattr(self, "_" + type(s).__name__.lower(), None)
        if method is None:
            return {} if kind is Kind.MUST_WRITE else self._opaque(s, kind)
        return method(s, kind)

    def _opaque(self, s: Stmt, kind: Kind) -> Access:
        """A statement this module does not read: it may touch any buffer it names."""
        out: Access = {}

        def see(x: object) -> None:
            if kind is Kind.MAY_WRITE and isinstance(x, Store):
                out[id(x.buffer)] = (x.buffer, None)
            if kind is Kind.MAY_READ and isinstance(x, Load):
                out[id(x.buffer)] = (x.buffer, None)
        stmt_visit(s, see)
        return out

    def _seqstmt(self, s: SeqStmt, kind: Kind) -> Access:
        out: Access = {}
        for x in s.seq:
            out = union(out, self(x, kind))
        return out

    def _store(self, s: Store, kind: Kind) -> Access:
        if id(s) in self.removed:
            return {}
        if kind is Kind.MAY_READ:
            return self.of_expr([s.value, s.index])
        index, _, lanes = lanes_of(s.index, s.value, self.lane)
        at = self.regions.position(index, lanes)
        if at is None:
            return {} if kind is Kind.MUST_WRITE else {id(s.buffer): (s.buffer, None)}
        return {id(s.buffer): (s.buffer, at)}

    def _evaluate(self, s: Evaluate, kind: Kind) -> Access:
        return self.of_expr([s.value]) if kind is Kind.MAY_READ else {}

    def _ifthenelse(self, s: IfThenElse, kind: Kind) -> Access:
        cond = self.regions.condition(strip_likely(s.condition))
        then_part = self(s.then_case, kind)
        else_part = self(s.else_case, kind) if s.else_case is not None else {}
        if cond is not None:
            then_part = restrict(then_part, cond)
            else_part = restrict(else_part, cond.complement())
        if kind is Kind.MUST_WRITE and cond is None:
            return {k: (buf, r.intersect(else_part[k][1]))  # type: ignore[union-attr]
                    for k, (buf, r) in then_part.items() if k in else_part}
        out = union(then_part, else_part)
        return union(out, self.of_expr([s.condition])) if kind is Kind.MAY_READ else out

    def _for(self, s: Stmt, kind: Kind) -> Access:
        var, lo, extent, body = loop_of(s)  # type: ignore[misc]
        inner = self(body, kind)
        where = self.regions.condition(arith.logical_and(arith.ge(var, lo), arith.lt(var, arith.add(lo, extent))))
        if where is None and kind is Kind.MUST_WRITE:
            return {}
        out = {k: (buf, None if r is None else self.regions.exists(r, var, where)) for k, (buf, r) in inner.items()}
        return union(out, self.of_expr([lo, extent])) if kind is Kind.MAY_READ else out

    def _attrstmt(self, s: AttrStmt, kind: Kind) -> Access:
        if loop_of(s) is not None:
            return self._for(s, kind)
        out = self(s.body, kind)
        value = [s.value] if isinstance(s.value, Expr) else []
        return union(out, self.of_expr(value)) if kind is Kind.MAY_READ else out

    def _letstmt(self, s: LetStmt, kind: Kind) -> Access:
        inner = self(s.body, kind)
        bound = self.regions.condition(arith.eq_node(s.var, s.value)) if s.var.dtype.startswith("int") else None
        out: Access = {}
        for k, (buf, r) in inner.items():
            if r is None:
                out[k] = (buf, None)
            elif bound is not None:
                out[k] = (buf, self.regions.exists(r, s.var, bound))
            elif kind is Kind.MUST_WRITE:
                out[k] = (buf, self.regions.forall(r, s.var))
            else:
                out[k] = (buf, self.regions.exists(r, s.var))
        return union(out, self.of_expr([s.value])) if kind is Kind.MAY_READ else out

    def _allocate(self, s: Allocate, kind: Kind) -> Access:
        return self(s.body, kind)

    def _while(self, s: While, kind: Kind) -> Access:
        return {} if kind is Kind.MUST_WRITE else self._opaque(s, kind)


def restrict(access: Access, where: Region) -> Access:
    return {k: (buf, None if r is None else r.intersect(where)) for k, (buf, r) in access.items()}
