"""Buffer positions whose value nothing reads before it is overwritten, flowing backward
through a statement (TVM's control-flow graph's unused indices, for ``RemoveNoOp``'s
dataflow option): a store whose positions are all unused right after it changes nothing.

A store makes the positions it writes unused before it, a read makes them used. At the end
of an iteration, a position is unused if a later iteration surely writes it and none reads
it; before a loop, if the loop surely writes it or it is unused after the loop, and the loop
does not read it. Nothing is unused at the end of the function.
"""

from __future__ import annotations

from bound.isl.positions import Region, Regions
from lower.ir.stmt import Allocate, AttrStmt, Evaluate, IfThenElse, LetStmt, SeqStmt, Stmt, Store
from schedule.ir import arith
from schedule.ir.expr import Expr, Var
from tebound.tvm.tir.dataflow.accesses import Access, Accesses, Kind, loop_of, restrict, strip_likely, union
from tebound.tvm.tir.dataflow.facts import lanes_of


def _minus(unused: Access, used: Access) -> Access:
    out: Access = {}
    for k, (buf, r) in unused.items():
        hit = used.get(k)
        if hit is None:
            out[k] = (buf, r)
        elif hit[1] is not None and r is not None:
            out[k] = (buf, r.subtract(hit[1]))
    return out


class UnusedValues:
    """See the module's docstring. :meth:`overwritten` answers for a store of *body*."""

    def __init__(self, body: Stmt, removed: set[int], regions: Regions | None = None) -> None:
        self.regions = regions or Regions()
        self.accesses = Accesses(self.regions, removed)
        self.removed = removed
        #: For each store: the unused positions right after it, and where control is.
        self.after: dict[int, tuple[Access, Region]] = {}
        try:
            self.visit(body, {}, self.regions.universe())
        except RecursionError:
            self.after.clear()

    def overwritten(self, s: Store) -> bool:
        """Whether every position *s* writes is overwritten before anything reads it."""
        record = self.after.get(id(s))
        if record is None:
            return False
        unused, context = record
        index, _, lanes = lanes_of(s.index, s.value, self.accesses.lane)
        at = self.regions.position(index, lanes)
        hit = unused.get(id(s.buffer))
        if at is None or hit is None or hit[1] is None:
            return False
        at = at.intersect(context)
        return not at.is_empty() and at.is_subset(hit[1])

    def visit(self, s: Stmt, unused: Access, context: Region) -> Access:
        if loop_of(s) is not None:
            return self._loop(s, unused, context)
        method = getattr(self, "_" + type(s).__name__.lower(), None)
        if method is None:
            return _minus(unused, self.accesses(s, Kind.MAY_READ))
        return method(s, unused, context)

    def _seqstmt(self, s: SeqStmt, unused: Access, context: Region) -> Access:
        for x in reversed(s.seq):
            unused = self.visit(x, unused, context)
        return unused

    def _store(self, s: Store, unused: Access, context: Region) -> Access:
        if id(s) in self.removed:
            return unused
        self.after[id(s)] = (unused, context)
        written = self.accesses(s, Kind.MUST_WRITE)
        return _minus(union(unused, restrict(written, context)), self.accesses(s, Kind.MAY_READ))

    def _evaluate(self, s: Evaluate, unused: Access, context: Region) -> Access:
        return _minus(unused, self.accesses(s, Kind.MAY_READ))

    def _ifthenelse(self, s: IfThenElse, unused: Access, context: Region) -> Access:
        where = self.regions.condition(strip_likely(s.condition))
        then_ctx = context if where is None else context.intersect(where)
        else_ctx = context if where is None else context.intersect(where.complement())
        then_in = self.visit(s.then_case, unused, then_ctx)
        else_in = self.visit(s.else_case, unused, else_ctx) if s.else_case is not None else unused
        if where is not None:
            joined = union(restrict(then_in, where), restrict(else_in, where.complement()))
        else:
            joined = {k: (buf, r.intersect(else_in[k][1]))  # type: ignore[union-attr]
                      for k, (buf, r) in then_in.items()
                      if r is not None and k in else_in and else_in[k][1] is not None}
        return _minus(joined, self.accesses.of_expr([s.condition]))

    def _letstmt(self, s: LetStmt, unused: Access, context: Region) -> Access:
        bound = self.regions.condition(arith.eq_node(s.var, s.value)) if s.var.dtype.startswith("int") else None
        inner = self.visit(s.body, unused, context if bound is None else context.intersect(bound))
        out: Access = {}
        for k, (buf, r) in inner.items():
            if r is not None:
                out[k] = (buf, self.regions.exists(r, s.var, bound) if bound is not None
                          else self.regions.forall(r, s.var))
        return _minus(out, self.accesses.of_expr([s.value]))

    def _allocate(self, s: Allocate, unused: Access, context: Region) -> Access:
        # Past the end of its scope, nothing reads an allocation.
        dead = {**unused, id(s.buffer): (s.buffer, self.regions.universe())}
        inner = self.visit(s.body, dead, context)
        return {k: v for k, v in inner.items() if k != id(s.buffer)}

    def _attrstmt(self, s: AttrStmt, unused: Access, context: Region) -> Access:
        inner = self.visit(s.body, unused, context)
        return _minus(inner, self.accesses.of_expr([s.value] if isinstance(s.value, Expr) else []))

    def _later(self, access: Access, var: Var, lo: Expr, hi: Expr, must: bool = False) -> Access:
        """*access* (a family over *var*) of the iterations ``lo <= u < hi``. What cannot be
        told is anywhere for a "may" access and left out for a "must" one."""
        out: Access = {}
        for k, (buf, r) in access.items():
            got = self.regions.over(r, var, lo, hi)
            if got is not None or not must:
                out[k] = (buf, got)
        return out

    def _loop(self, s: Stmt, unused: Access, context: Region) -> Access:
        var, lo, extent, body = loop_of(s)  # type: ignore[misc]
        hi = arith.add(lo, extent)
        where = self.regions.condition(arith.logical_and(arith.ge(var, lo), arith.lt(var, hi)))
        reads = self.accesses(body, Kind.MAY_READ)
        if where is None:
            everywhere = {k: (buf, None) for k, (buf, _) in reads.items()}
            after_body = _minus(unused, everywhere)
            self.visit(body, after_body, context)
            return _minus(after_body, self.accesses.of_expr([lo, extent]))
        writes = self.accesses(body, Kind.MUST_WRITE)
        at_end = _minus(union(unused, self._later(writes, var, arith.add(var, 1), hi, must=True)),
                        self._later(reads, var, arith.add(var, 1), hi))
        self.visit(body, at_end, context.intersect(where))
        before = _minus(union(unused, self._later(writes, var, lo, hi, must=True)), self._later(reads, var, lo, hi))
        return _minus(before, self.accesses.of_expr([lo, extent]))
