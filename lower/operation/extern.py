"""Extern operations in the loop nest: their body (a call, or an ir_builder's statements)
inside an ``extern_scope`` attribute.

Body statements become loop-nest statements one for one. A buffer the body allocates becomes
a flat buffer of its scope; loads and stores of an input's or output's declared buffer stay
declared (:class:`~lower.ir.stmt.DeclStore`, ``ElemLoad``) until storage flattening binds the
buffer to its tensor's storage.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Generator
from typing import Any

from lower.errors import LoweringError
from lower.ir.stmt import (
    Allocate,
    AssertStmt,
    AttrStmt,
    Buffer,
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
from lower.operation.base import OperationLowering, PipelineBuilder
from schedule import arith
from schedule.base.recursion import run
from schedule.ir.buffer import DeclBuffer
from schedule.ir.expr import Expr, StringImm
from schedule.ir.extern_stmt import (
    Alloc,
    Attr,
    Block,
    BodyStmt,
    Branch,
    Check,
    ElemLoad,
    ElemStore,
    Eval,
    Let,
    Loop,
    WhileLoop,
)
from schedule.ir.functor import ExprMutator
from schedule.operation.extern import ExternOp
from schedule.schedule.stage import Stage

_KINDS = {"serial": ForKind.SERIAL, "parallel": ForKind.PARALLEL, "vectorize": ForKind.VECTORIZED,
          "unroll": ForKind.UNROLLED}


class ExternLowering(OperationLowering):
    def produce(self, b: PipelineBuilder, st: Stage) -> Stmt:
        op = st.op
        assert isinstance(op, ExternOp)
        body = op.body
        stmt = Evaluate(body) if isinstance(body, Expr) else lower_body(op.name, body)
        return AttrStmt(arith.const(0), "extern_scope", arith.const(0), stmt)


def lower_body(name: str, body: BodyStmt) -> Stmt:
    """The loop-nest statement of an extern's body statement."""
    conv = _Convert(name)
    return run(conv.dispatch(body), conv.dispatch)


class _Convert:
    def __init__(self, name: str) -> None:
        self.name = name
        self.allocated: dict[DeclBuffer, Buffer] = {}
        self.loads = _Loads(self.allocated)

    def dispatch(self, s: BodyStmt) -> Any:
        if isinstance(s, Stmt):  # ours, made around a builder's body by an emitted function
            return self.visit_lowered(s)
        return getattr(self, "visit_" + s.visit_name)(s)

    def visit_lowered(self, s: Stmt) -> Generator[Any, Any, Stmt]:
        changed = {}
        for name in ("body", "then_case", "else_case"):
            inner = getattr(s, name, None)
            if isinstance(inner, BodyStmt):
                changed[name] = yield inner
        return dataclasses.replace(s, **changed) if changed else s

    def e(self, x: Expr) -> Expr:
        return self.loads(x)

    def visit_loop(self, s: Loop) -> Generator[Any, Any, Stmt]:
        body = yield s.body
        return For(s.var, self.e(s.min), self.e(s.extent), _KINDS[s.kind], body)

    def visit_branch(self, s: Branch) -> Generator[Any, Any, Stmt]:
        then = yield s.then_case
        other = (yield s.else_case) if s.else_case is not None else None
        return IfThenElse(self.e(s.condition), then, other)

    def visit_while_loop(self, s: WhileLoop) -> Generator[Any, Any, Stmt]:
        body = yield s.body
        return While(self.e(s.condition), body)

    def visit_let(self, s: Let) -> Generator[Any, Any, Stmt]:
        body = yield s.body
        return LetStmt(s.var, self.e(s.value), body)

    def visit_attr(self, s: Attr) -> Generator[Any, Any, Stmt]:
        body = yield s.body
        return AttrStmt(s.node, s.key, self.e(s.value), body)

    def visit_alloc(self, s: Alloc) -> Generator[Any, Any, Stmt]:
        decl = s.buffer
        size: Expr = arith.const(1)
        for d in decl.shape:
            size = arith.mul(size, d)
        buf = Buffer(decl.name, decl.dtype, (size,), decl.scope or "global")
        self.allocated[decl] = buf
        body = yield s.body
        return AttrStmt(buf, "storage_scope", StringImm(buf.scope), Allocate(buf, body))

    def visit_elem_store(self, s: ElemStore) -> Stmt:
        value, index = self.e(s.value), self.e(s.index)
        buf = self.allocated.get(s.buffer)
        if buf is not None:
            return Store(buf, value, index, (index, arith.const(0), buf.extents[0]), checked=True)
        return DeclStore(s.buffer, value, index)

    def visit_block(self, s: Block) -> Generator[Any, Any, Stmt]:
        out = []
        for x in s.stmts:
            out.append((yield x))
        return SeqStmt(tuple(out))

    def visit_eval(self, s: Eval) -> Stmt:
        return Evaluate(self.e(s.value))

    def visit_check(self, s: Check) -> Stmt:
        return AssertStmt(self.e(s.condition), s.message)

    def visit_body_stmt(self, s: BodyStmt) -> Stmt:
        raise LoweringError(f"extern '{self.name}': cannot lower {type(s).__name__}")


class _Loads(ExprMutator):
    """Loads of allocated buffers become flat loads; those of declared buffers wait for flattening."""

    def __init__(self, allocated: dict[DeclBuffer, Buffer]) -> None:
        self.allocated = allocated

    def visit_elem_load(self, e: ElemLoad) -> Expr:
        index = self(e.index)
        buf = self.allocated.get(e.buffer)
        if buf is not None:
            return Load(buf, index, (index, arith.const(0), buf.extents[0]), checked=True)
        return e if index is e.index else ElemLoad(e.buffer, index, e.dtype)
