"""TVM's ``tir.transform.VectorizeLoop`` (v0.13): a vectorized loop of constant extent becomes
one vector statement, its variable a ``Ramp(min, 1, lanes)``: scalars meet vectors as
broadcasts, loads and stores index with ramps, a ``let`` of a vector value binds a vector
variable. What a vector cannot express (a branch on a vector condition, a ``while``, an inner
loop whose extent depends on the lanes, an allocation) stays a serial loop over the lanes, as
TVM scalarizes it. Under ``tir.disable_vectorize`` every vectorized loop is serial.

Our own lowering keeps vectorized loops as loops (the C backend writes their vector code);
this pass is for programs that ask for it, and the backends compute vector stores lane by lane.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from typing import Any

from lower.errors import LoweringError
from lower.ir.stmt import (
    Allocate,
    AttrStmt,
    DeclStore,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    Load,
    SeqStmt,
    Stmt,
    Store,
    While,
)
from lower.ir.stmt_functor import StmtMutator
from lower.ir.substitute import substitute_stmt
from schedule.base.pass_context import options
from schedule.ir import arith
from schedule.ir.dtype import lanes, with_lanes
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Broadcast,
    Call,
    Cast,
    Div,
    Expr,
    FloorDiv,
    FloorMod,
    IntImm,
    Let,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    Ramp,
    Select,
    Sub,
    Var,
)
from schedule.ir.extern_stmt import ElemLoad
from schedule.ir.functor import ExprMutator

Steps = Generator[Any, Any, Stmt]
_BINARY = (Add, Sub, Mul, Div, Mod, FloorDiv, FloorMod, Min, Max, EQ, NE, LT, LE, GT, GE, And, Or)


class _Scalarize(Exception):
    """What is being widened needs the loop kept as a serial loop over its lanes."""


def _broadcast(e: Expr, n: int) -> Expr:
    k = lanes(e.dtype)
    if k == n:
        return e
    if k != 1:
        raise LoweringError(f"VectorizeLoop: cannot widen a vector of {k} lanes to {n}")
    return Broadcast(e, n)


class _Widen(ExprMutator):
    """Expressions of the loop's body with its variable a ramp."""

    def __init__(self, var: Var, ramp: Ramp, n: int) -> None:
        self.var, self.ramp, self.n = var, ramp, n
        self.lets: dict[Var, Var] = {}

    def visit_var(self, e: Var) -> Expr:
        if e is self.var:
            return self.ramp
        return self.lets.get(e, e)

    def visit_default(self, e: Expr, skip: tuple[str, ...] = ()) -> Expr:
        if not isinstance(e, _BINARY):
            return super().visit_default(e, skip)
        a, b = self(e.a), self(e.b)  # type: ignore[attr-defined]
        if a is e.a and b is e.b:  # type: ignore[attr-defined]
            return e
        if lanes(a.dtype) == lanes(b.dtype) == 1:
            return type(e)(a, b)
        if isinstance(e, (Add, Sub)):  # a ramp and a scalar stay a ramp (TVM's AddSubVec)
            fold = arith.add if isinstance(e, Add) else arith.sub
            if lanes(a.dtype) == 1 and isinstance(b, Ramp):
                return Ramp(fold(a, b.base), fold(arith.const(0, b.stride.dtype), b.stride), b.lanes)
            if lanes(b.dtype) == 1 and isinstance(a, Ramp):
                return Ramp(fold(a.base, b), a.stride, a.lanes)
            return fold(_broadcast(a, self.n), _broadcast(b, self.n))
        if isinstance(e, Mul):  # times a positive scalar, too
            if isinstance(a, Ramp) and lanes(b.dtype) == 1 and _positive(b):
                return Ramp(arith.mul(a.base, b), arith.mul(a.stride, b), a.lanes)
            if isinstance(b, Ramp) and lanes(a.dtype) == 1 and _positive(a):
                return Ramp(arith.mul(b.base, a), arith.mul(b.stride, a), b.lanes)
        return type(e)(_broadcast(a, self.n), _broadcast(b, self.n))

    def visit_cast(self, e: Cast) -> Expr:
        value = self(e.value)
        return e if value is e.value else Cast(with_lanes(e.dtype, lanes(value.dtype)), value)

    def visit_not(self, e: Not) -> Expr:
        a = self(e.a)
        return e if a is e.a else Not(a)

    def visit_select(self, e: Select) -> Expr:
        c, t, f = self(e.condition), self(e.true_value), self(e.false_value)
        if c is e.condition and t is e.true_value and f is e.false_value:
            return e
        n = max(lanes(x.dtype) for x in (c, t, f))
        return Select(_broadcast(c, n) if lanes(c.dtype) > 1 else c, _broadcast(t, n), _broadcast(f, n))

    def visit_call(self, e: Call) -> Expr:
        if e.name in ("tvm_if_then_else", "if_then_else"):
            c = self(e.args[0])
            if lanes(c.dtype) > 1:
                raise _Scalarize
            t, f = self(e.args[1]), self(e.args[2])
            if t is e.args[1] and f is e.args[2] and c is e.args[0]:
                return e
            n = max(lanes(t.dtype), lanes(f.dtype))
            return Call(with_lanes(e.dtype, n), e.name, (c, _broadcast(t, n), _broadcast(f, n)))
        args = tuple(self(a) for a in e.args)
        if all(a is b for a, b in zip(args, e.args)):
            return e
        n = max(lanes(a.dtype) for a in args)
        if e.name in ("likely",) or n == 1:
            return Call(with_lanes(e.dtype, n), e.name, args)
        raise _Scalarize  # a call on vectors that may not be elementwise

    def visit_load(self, e: Load) -> Expr:
        index = self(e.index)
        return e if index is e.index else Load(e.buffer, index, e.checks, e.checked)

    def visit_elem_load(self, e: ElemLoad) -> Expr:
        index = self(e.index)
        return e if index is e.index else ElemLoad(e.buffer, index, with_lanes(e.dtype, lanes(index.dtype)))

    def visit_let(self, e: Let) -> Expr:
        raise _Scalarize

    def visit_ramp(self, e: Ramp) -> Expr:
        base, stride = self(e.base), self(e.stride)
        if lanes(base.dtype) > 1 or lanes(stride.dtype) > 1:
            raise _Scalarize  # a vector of vectors: kept lane by lane
        return e if base is e.base and stride is e.stride else Ramp(base, stride, e.lanes)

    def visit_broadcast(self, e: Broadcast) -> Expr:
        value = self(e.value)
        if lanes(value.dtype) > 1:
            raise _Scalarize
        return e if value is e.value else Broadcast(value, e.lanes)


def _positive(e: Expr) -> bool:
    return isinstance(e, IntImm) and e.value > 0


class _Vectorizer(StmtMutator):
    """The statements of one vectorized loop's body."""

    def __init__(self, loop: For, n: int) -> None:
        self.loop, self.n = loop, n
        self.widen = _Widen(loop.loop_var, Ramp(loop.min, arith.const(1, loop.min.dtype), n), n)

    def mutate_expr(self, e: Expr) -> Expr:
        return self.widen(e)

    def dispatch(self, s: Stmt) -> Any:
        """*s* widened, or (where it cannot be) a serial loop over the lanes around it (TVM's
        ``Scalarize``), for the innermost statement that cannot."""
        try:
            result = super().dispatch(s)
        except _Scalarize:
            return self.scalarize(s)
        return self._guarded(result, s) if isinstance(result, Generator) else result

    def _guarded(self, gen: Steps, s: Stmt) -> Steps:
        try:
            return (yield from gen)
        except _Scalarize:
            return self.scalarize(s)

    def scalarize(self, s: Stmt) -> Stmt:
        var = self.loop.loop_var
        lane = Var(f"{var.name}.s", var.dtype)
        return For(lane, arith.const(0, var.dtype), arith.const(self.n, var.dtype), ForKind.SERIAL,
                   substitute_stmt(s, {var: lane}))

    def visit_store(self, s: Store) -> Stmt:
        index, value = self.widen(s.index), self.widen(s.value)
        n = max(lanes(index.dtype), lanes(value.dtype))
        if n > 1:
            index, value = _broadcast(index, n) if lanes(index.dtype) == 1 else index, _broadcast(value, n)
        return s if index is s.index and value is s.value else Store(s.buffer, value, index, s.checks, s.checked)

    def visit_decl_store(self, s: DeclStore) -> Stmt:
        index, value = self.widen(s.index), self.widen(s.value)
        n = max(lanes(index.dtype), lanes(value.dtype))
        if n > 1:
            value = _broadcast(value, n)
        return s if index is s.index and value is s.value else DeclStore(s.buffer, value, index)

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        condition = self.widen(s.condition)
        if lanes(condition.dtype) > 1:
            raise _Scalarize
        then_case = yield s.then_case
        else_case = (yield s.else_case) if s.else_case is not None else None
        return IfThenElse(condition, then_case, else_case)

    def visit_let_stmt(self, s: LetStmt) -> Steps:
        value = self.widen(s.value)
        if lanes(value.dtype) == 1:
            body = yield s.body
            return s if value is s.value and body is s.body else LetStmt(s.var, value, body)
        var = Var(s.var.name, value.dtype)
        self.widen.lets[s.var] = var
        body = yield s.body
        return LetStmt(var, value, body)

    def visit_for(self, s: For) -> Steps:
        lo, extent = self.widen(s.min), self.widen(s.extent)
        if lanes(lo.dtype) > 1 or lanes(extent.dtype) > 1:
            raise _Scalarize
        body = yield s.body
        return replace(s, min=lo, extent=extent, body=body)

    def visit_while(self, s: While) -> Stmt:
        raise LoweringError("VectorizeLoop: a while loop inside a vectorized loop cannot be vectorized; make the "
                            "loop serial")

    def visit_allocate(self, s: Allocate) -> Stmt:
        raise _Scalarize

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        if isinstance(s.body, Allocate):
            raise _Scalarize
        return (yield from self.visit_default(s))

    def visit_evaluate(self, s: Evaluate) -> Stmt:
        value = self.widen(s.value)
        return s if value is s.value else Evaluate(value)

    def visit_seq_stmt(self, s: SeqStmt) -> Steps:
        return (yield from self.visit_default(s))


class _Loops(StmtMutator):
    def visit_for(self, s: For) -> Steps:
        body = yield s.body
        loop = s if body is s.body else replace(s, body=body)
        if s.kind is not ForKind.VECTORIZED:
            return loop
        if options("tir.disable_vectorize"):
            return replace(loop, kind=ForKind.SERIAL)
        if not isinstance(s.extent, IntImm) or s.extent.value < 1:
            raise LoweringError(f"VectorizeLoop: the vectorized loop over '{s.loop_var.name}' needs a constant "
                                f"extent, not {s.extent}")
        return _Vectorizer(loop, s.extent.value)(loop.body)


def vectorize_loop(body: Stmt) -> Stmt:
    """*body* with its vectorized loops as vector statements (see the module's docstring)."""
    return _Loops()(body)

