"""Each variable and buffer defined once (TVM's ``ConvertSSA``): where a pass copied a body (an
unrolled loop, a hoisted branch), the second definition of a loop variable, a ``let``
variable or an allocated buffer gets a fresh one, used in its scope."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from typing import Any

from lower.ir.stmt import Allocate, AttrStmt, For, LetStmt, Load, Stmt, Store
from lower.ir.stmt_functor import StmtMutator
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import ExprMutator


class _Rename(ExprMutator):
    def __init__(self, owner: _SSA) -> None:
        self.owner = owner

    def visit_var(self, e: Var) -> Expr:
        return self.owner.current(e)

    def visit_load(self, e: Load) -> Expr:
        index = self(e.index)
        buffer = self.owner.current(e.buffer)
        if index is e.index and buffer is e.buffer:
            return e
        return Load(buffer, index, e.checks, e.checked)


class _SSA(StmtMutator):
    def __init__(self) -> None:
        self.defined: set[int] = set()
        self.renamed: dict[int, list[Any]] = {}
        self.exprs = _Rename(self)

    def current(self, x: Any) -> Any:
        stack = self.renamed.get(id(x))
        return stack[-1] if stack else x

    def mutate_expr(self, e: Expr) -> Expr:
        return self.exprs(e)

    def define(self, x: Any) -> tuple[Any, bool]:
        """*x* itself at its first definition, else a fresh copy in force until :meth:`undefine`."""
        if id(x) not in self.defined:
            self.defined.add(id(x))
            return x, False
        fresh = Var(x.name, x.dtype) if isinstance(x, Var) else replace(x)
        self.renamed.setdefault(id(x), []).append(fresh)
        return fresh, True

    def undefine(self, x: Any, pushed: bool) -> None:
        if pushed:
            self.renamed[id(x)].pop()

    def visit_for(self, s: For) -> Generator[Any, Any, Stmt]:
        lo, extent = self.mutate_expr(s.min), self.mutate_expr(s.extent)
        var, pushed = self.define(s.loop_var)
        body = yield s.body
        self.undefine(s.loop_var, pushed)
        if var is s.loop_var and lo is s.min and extent is s.extent and body is s.body:
            return s
        return For(var, lo, extent, s.kind, body, s.annotations)

    def visit_let_stmt(self, s: LetStmt) -> Generator[Any, Any, Stmt]:
        value = self.mutate_expr(s.value)
        var, pushed = self.define(s.var)
        body = yield s.body
        self.undefine(s.var, pushed)
        if var is s.var and value is s.value and body is s.body:
            return s
        return LetStmt(var, value, body)

    def visit_attr_stmt(self, s: AttrStmt) -> Generator[Any, Any, Stmt]:
        if not (s.key == "storage_scope" and isinstance(s.body, Allocate) and s.body.buffer is s.node):
            return (yield from self.visit_default(s))
        buffer, pushed = self.define(s.node)
        body = yield s.body.body
        self.undefine(s.node, pushed)
        if buffer is s.node and body is s.body.body:
            return s
        return AttrStmt(buffer, s.key, s.value, Allocate(buffer, body))

    def visit_allocate(self, s: Allocate) -> Generator[Any, Any, Stmt]:
        buffer, pushed = self.define(s.buffer)
        body = yield s.body
        self.undefine(s.buffer, pushed)
        return s if buffer is s.buffer and body is s.body else Allocate(buffer, body)

    def visit_store(self, s: Store) -> Stmt:
        value, index, buffer = self.mutate_expr(s.value), self.mutate_expr(s.index), self.current(s.buffer)
        if value is s.value and index is s.index and buffer is s.buffer:
            return s
        return Store(buffer, value, index, s.checks, s.checked)


def convert_ssa(body: Stmt) -> Stmt:
    """*body* with every variable and buffer defined once (see the module's docstring)."""
    return _SSA()(body)

