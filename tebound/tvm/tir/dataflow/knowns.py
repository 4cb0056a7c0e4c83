"""Known buffer values, flowing forward through a statement (what TVM's control-flow graph
propagates for ``Simplify``'s ``propagate_knowns_*`` and ``RemoveNoOp``'s dataflow option).

A store whose value is known in terms of the position (``A[i] = i``, ``B[i] = 0``) makes a
fact, a ``T.assume(A[i] == v)`` or a branch on ``A[i] == v`` another; a store kills the
facts at the positions it writes. A loop's body starts each iteration with the facts from
before the loop where no earlier iteration wrote, the facts every iteration keeps (found by
narrowing until nothing changes), and the facts earlier iterations left; after the loop,
the same taken at the end. A branch on an affine condition keeps each side's facts where
its condition holds. The state at the start of each statement is kept for the passes.
"""

from __future__ import annotations

from dataclasses import dataclass

from bound.isl.positions import AXIS, Region, Regions
from lower.ir.stmt import Allocate, AttrStmt, Evaluate, IfThenElse, LetStmt, Load, SeqStmt, Stmt, Store
from schedule.ir import arith
from schedule.ir.expr import EQ, NE, And, Call, Expr, Or, Var
from schedule.ir.functor import free_vars, structural_equal, substitute
from tebound.tvm.arith.analyzer import Analyzer
from tebound.tvm.tir.dataflow.accesses import Access, Accesses, Kind, loop_of, strip_likely
from tebound.tvm.tir.dataflow.facts import (
    Fact,
    ReplaceLoads,
    has_load,
    in_axis_terms,
    lanes_of,
    loads,
    merge,
    same_facts,
)

#: Passes over a loop's body while narrowing its kept facts, or growing its carried ones.
_PASSES = 4
#: Statements visited in all before the analysis gives up (and knows nothing).
_BUDGET = 200_000
#: Pieces a store's value is split into by what is known of the loads in it.
_PIECES = 64


class _OutOfBudget(Exception):
    pass


@dataclass(frozen=True)
class State:
    """Where control is (a region constraining only the variables), the assumptions in force
    that name no buffer, and the facts."""

    context: Region
    assumptions: tuple[Expr, ...]
    facts: tuple[Fact, ...]

    def with_facts(self, facts: list[Fact] | tuple[Fact, ...]) -> State:
        return State(self.context, self.assumptions, tuple(facts))


def _terms(e: Expr, kind: type) -> list[Expr]:
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, kind):
            stack += [x.b, x.a]
        else:
            out.append(x)
    return out


class KnownValues:
    """See the module's docstring. :meth:`state_at` gives the state at a statement of *body*."""

    def __init__(self, body: Stmt, removed: set[int], regions: Regions | None = None) -> None:
        self.regions = regions or Regions()
        self.accesses = Accesses(self.regions, removed)
        self.removed = removed
        self.analyzer = Analyzer()
        self.at: dict[int, State] = {}
        self.recording = True
        self.steps = 0
        self._fresh = 0
        try:
            self.visit(body, State(self.regions.universe(), (), ()))
        except (_OutOfBudget, RecursionError):
            self.at.clear()

    def state_at(self, s: Stmt) -> State | None:
        return self.at.get(id(s))

    # ---------------------------------------------------------------- statements

    def visit(self, s: Stmt, st: State) -> State:
        self.steps += 1
        if self.steps > _BUDGET:
            raise _OutOfBudget
        if self.recording:
            self.at[id(s)] = st
        method = getattr(self, "_" + type(s).__name__.lower(), None)
        if loop_of(s) is not None:
            return self._loop(s, st)
        return method(s, st) if method is not None else self._opaque(s, st)

    def _opaque(self, s: Stmt, st: State) -> State:
        """A statement this analysis does not follow: what it may write is no longer known."""
        return st.with_facts(self._kill(st.facts, self.accesses(s, Kind.MAY_WRITE)))

    def _seqstmt(self, s: SeqStmt, st: State) -> State:
        for x in s.seq:
            st = self.visit(x, st)
        return st

    def _allocate(self, s: Allocate, st: State) -> State:
        fresh = st.with_facts([f for f in st.facts if f.buffer is not s.buffer])
        end = self.visit(s.body, fresh)
        return end.with_facts([f for f in end.facts if f.buffer is not s.buffer])

    def _attrstmt(self, s: AttrStmt, st: State) -> State:
        return self.visit(s.body, st)

    def _letstmt(self, s: LetStmt, st: State) -> State:
        bound = self.regions.condition(arith.eq_node(s.var, s.value)) if s.var.dtype.startswith("int") else None
        inner = State(st.context if bound is None else st.context.intersect(bound), st.assumptions, st.facts)
        end = self.visit(s.body, inner)
        kept = []
        for f in end.facts:
            if s.var in free_vars([f.value]):
                continue
            region = (self.regions.exists(f.region, s.var, bound) if bound is not None
                      else self.regions.forall(f.region, s.var))
            kept.append(Fact(f.buffer, f.value, region))
        return st.with_facts(merge(kept))

    def _evaluate(self, s: Evaluate, st: State) -> State:
        v = s.value
        if not (isinstance(v, Call) and v.name == "assume" and v.args):
            return st
        cond = v.args[0]
        if not has_load(cond):
            where = self.regions.condition(cond)
            context = st.context if where is None else st.context.intersect(where)
            return State(context, st.assumptions + (cond,), st.facts)
        return st.with_facts(merge(st.facts, self._assumed(cond, st)))

    def _assumed(self, cond: Expr, st: State) -> list[Fact]:
        """``T.assume(c1 or ... or buf[i] == v)``: ``buf[i] == v`` where the others fail."""
        terms = _terms(cond, Or)
        with_loads = [t for t in terms if has_load(t)]
        if len(with_loads) != 1:
            return []
        fact = self._equality(with_loads[0], st)
        if fact is None:
            return []
        others = [t for t in terms if t is not with_loads[0]]
        if not others:
            return [fact]
        where = self.regions.condition(arith.logical_not(_any(others)))
        return [] if where is None else [Fact(fact.buffer, fact.value, fact.region.intersect(where))]

    def _equality(self, e: Expr, st: State) -> Fact | None:
        """``buf[i] == v`` (either way round, *v* reading no buffer) as a fact in *st*'s context."""
        if not isinstance(e, EQ):
            return None
        for load, value in ((e.a, e.b), (e.b, e.a)):
            if isinstance(load, Load) and not has_load(value) and load.index.dtype == load.index.dtype.split("x")[0]:
                at = self.regions.position(load.index)
                if at is not None:
                    value = in_axis_terms(self.analyzer.simplify(value), load.index, self.analyzer)
                    return Fact(load.buffer, value, at.intersect(st.context))
        return None

    def _ifthenelse(self, s: IfThenElse, st: State) -> State:
        cond = strip_likely(s.condition)
        where = self.regions.condition(cond)
        then_in = State(st.context if where is None else st.context.intersect(where), st.assumptions,
                        tuple(merge(st.facts, self._branch_facts(cond, st, True))))
        else_in = State(st.context if where is None else st.context.intersect(where.complement()),
                        st.assumptions, tuple(merge(st.facts, self._branch_facts(cond, st, False))))
        then_out = self.visit(s.then_case, then_in)
        else_out = self.visit(s.else_case, else_in) if s.else_case is not None else else_in
        if where is not None:
            joined = merge([_restrict(f, where) for f in then_out.facts],
                           [_restrict(f, where.complement()) for f in else_out.facts])
        else:
            joined = _intersect(then_out.facts, else_out.facts)
        return st.with_facts(joined)

    def _branch_facts(self, cond: Expr, st: State, taken: bool) -> list[Fact]:
        if taken:
            found = [self._equality(t, st) for t in _terms(cond, And)]
        else:
            found = [self._equality(EQ(cond.a, cond.b), st)] if isinstance(cond, NE) else []
        return [f for f in found if f is not None]

    def _store(self, s: Store, st: State) -> State:
        if id(s) in self.removed:
            return st
        lane = self.accesses.lane
        index, value, lanes = lanes_of(s.index, s.value, lane)
        at = self.regions.position(index, lanes)
        if at is None:
            return st.with_facts([f for f in st.facts if f.buffer is not s.buffer])
        written = at.intersect(st.context)
        new = []
        for piece, known in self.pieces(value, st):
            known = self.analyzer.simplify(known)
            if has_load(known):
                continue
            known = in_axis_terms(known, index, self.analyzer)
            if lanes is not None and lane in free_vars([known]):
                continue
            new.append(Fact(s.buffer, known, written.intersect(piece)))
        kept = [Fact(f.buffer, f.value, f.region.subtract(written)) if f.buffer is s.buffer else f
                for f in st.facts]
        return st.with_facts(merge(kept, new))

    # ---------------------------------------------------------------- loops

    def _loop(self, s: Stmt, st: State) -> State:
        var, lo, extent, body = loop_of(s)  # type: ignore[misc]
        hi = arith.add(lo, extent)
        where = self.regions.condition(arith.logical_and(arith.ge(var, lo), arith.lt(var, hi)))
        writes = self.accesses(body, Kind.MAY_WRITE)
        if where is None:
            kept = st.with_facts(self._kill(st.facts, self.accesses(s, Kind.MAY_WRITE)))
            self.visit(body, kept)
            return kept
        inner = State(st.context.intersect(where), st.assumptions, ())
        base = self._kill(st.facts, self._written_between(writes, var, lo, var))
        invariant = [f for f in st.facts if id(f.buffer) in writes]
        saved, self.recording = self.recording, False
        try:
            for _ in range(_PASSES):
                end = self.visit(body, inner.with_facts(merge(base, invariant)))
                narrowed = [self._narrow(f, end, var, where) for f in invariant]
                if same_facts(merge(narrowed), merge(invariant)):
                    break
                invariant = narrowed
            else:
                invariant = []
            carried: list[Fact] = []
            for _ in range(_PASSES):
                end = self.visit(body, inner.with_facts(merge(base, invariant, carried)))
                grown = self._carry(end, writes, var, lo, var)
                if same_facts(grown, carried):
                    break
                carried = grown
        finally:
            self.recording = saved
        end = self.visit(body, inner.with_facts(merge(base, invariant, carried)))
        after = self._kill(st.facts, self._written_between(writes, var, lo, hi))
        return st.with_facts(merge(after, invariant, self._carry(end, writes, var, lo, hi)))

    def _var(self, hint: str) -> Var:
        self._fresh += 1
        return Var(f"{hint}_{self._fresh}", "int32")

    def _between(self, region: Region | None, var: Var, lo: Expr, hi: Expr) -> Region:
        """What *region* (a family over *var*) may write for some *var* in ``[lo, hi)``: every
        position when that is not known."""
        written = self.regions.over(region, var, lo, hi)
        return self.regions.universe() if written is None else written

    def _written_between(self, writes: Access, var: Var, lo: Expr, hi: Expr) -> Access:
        return {k: (buf, self._between(r, var, lo, hi)) for k, (buf, r) in writes.items()}

    def _kill(self, facts: tuple[Fact, ...] | list[Fact], writes: Access) -> list[Fact]:
        out = []
        for f in facts:
            hit = writes.get(id(f.buffer))
            if hit is None:
                out.append(f)
            elif hit[1] is not None:
                out.append(Fact(f.buffer, f.value, f.region.subtract(hit[1])))
        return out

    def _narrow(self, fact: Fact, end: State, var: Var, where: Region) -> Fact:
        """*fact* where every iteration leaves it as it found it."""
        kept = self.regions.empty()
        for g in end.facts:
            if g.buffer is fact.buffer and structural_equal(g.value, fact.value):
                kept = kept.union(g.region)
        lost = self.regions.exists(fact.region.subtract(kept), var, where)
        return Fact(fact.buffer, fact.value, fact.region.subtract(lost).coalesce())

    def _carry(self, end: State, writes: Access, var: Var, lo: Expr, upto: Expr) -> list[Fact]:
        """What iterations ``lo <= w < upto`` left at their end that no later one before
        *upto* overwrote."""
        w = self._var("w")
        where = self.regions.condition(arith.logical_and(arith.ge(w, lo), arith.lt(w, upto)))
        if where is None:
            return []
        out = []
        for f in end.facts:
            if var in free_vars([f.value]):
                continue
            region = self.regions.rename(f.region, var, w)
            hit = writes.get(id(f.buffer))
            if hit is not None:
                region = region.subtract(self._between(hit[1], var, arith.add(w, 1), upto))
            out.append(Fact(f.buffer, f.value, self.regions.exists(region, w, where)))
        return merge(out)

    # ---------------------------------------------------------------- expressions

    def pieces(self, e: Expr, st: State) -> list[tuple[Region, Expr]]:
        """*e* split by what is known of the loads in it: for each piece of *st*'s context,
        *e* with the loads known there replaced by their values."""
        parts: list[tuple[Region, dict[int, Expr]]] = [(st.context, {})]
        for load in loads(e):
            if load.index.dtype != load.index.dtype.split("x")[0]:
                continue
            at = self.regions.position(load.index)
            if at is None:
                continue
            known, covered = [], self.regions.empty()
            for f in st.facts:
                if f.buffer is load.buffer:
                    where = st.context.intersect_params(at.intersect(f.region).params())
                    if not where.is_empty():
                        known.append((where, substitute(f.value, {AXIS: load.index})))
                        covered = covered.union(where)
            if not known:
                continue
            rest = st.context.subtract(covered)
            options: list[tuple[Region, Expr | None]] = [(rest, None)] if not rest.is_empty() else []
            options += known
            parts = [(p.intersect(q), {**vals, id(load): v} if v is not None else vals)
                     for p, vals in parts for q, v in options if not p.intersect(q).is_empty()][:_PIECES]
        return [(p, ReplaceLoads(vals)(e) if vals else e) for p, vals in parts]

    def substitute_known(self, e: Expr, st: State) -> Expr:
        """*e* with each load whose position holds a known value throughout *st*'s context
        replaced by that value (TVM's ``SubstituteKnownBufferValues``)."""
        values: dict[int, Expr] = {}
        for load in loads(e):
            if load.index.dtype != load.index.dtype.split("x")[0]:
                continue
            at = self.regions.position(load.index)
            if at is None:
                continue
            at = at.intersect(st.context)
            for f in st.facts:
                if f.buffer is load.buffer and at.is_subset(f.region):
                    values[id(load)] = substitute(f.value, {AXIS: load.index})
                    break
        return ReplaceLoads(values)(e) if values else e


def _any(terms: list[Expr]) -> Expr:
    out = terms[0]
    for t in terms[1:]:
        out = arith.logical_or(out, t)
    return out


def _restrict(f: Fact, where: Region) -> Fact:
    return Fact(f.buffer, f.value, f.region.intersect(where))


def _intersect(a: tuple[Fact, ...], b: tuple[Fact, ...]) -> list[Fact]:
    out = []
    for f in a:
        for g in b:
            if f.buffer is g.buffer and structural_equal(f.value, g.value):
                out.append(Fact(f.buffer, f.value, f.region.intersect(g.region)))
    return merge(out)
