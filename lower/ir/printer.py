"""Statements as TVM's legacy text (DESIGN.md "Printed IR"; 2-space indent)."""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lower.ir import stmt as stmt_module
from lower.ir.stmt import (
    Allocate,
    AssertStmt,
    AttrStmt,
    DeclStore,
    Evaluate,
    For,
    IfThenElse,
    LetStmt,
    Prefetch,
    ProducerConsumer,
    Provide,
    Realize,
    SeqStmt,
    Stmt,
    Store,
    While,
)
from lower.ir.stmt_functor import StmtFunctor
from schedule.ir.expr import Expr
from schedule.ir.itervar import IterVar
from schedule.ir.printer import expr_str
from schedule.operation.tensor import Operation


def node_str(node: Any) -> str:
    """An attribute's node: a buffer or tensor by name, an IterVar as ``iter_var(...)``."""
    if isinstance(node, IterVar):
        dom = f"range(min={expr_str(node.dom.min)}, ext={expr_str(node.dom.extent)})" if node.dom else ""
        return f"iter_var({node.var.name}, {dom}, {node.thread_tag})"
    if isinstance(node, Expr):
        return expr_str(node)
    if isinstance(node, Operation):
        return node.name
    return getattr(node, "name", str(node))


Steps = Generator[Stmt, None, None]


class _Printer(StmtFunctor[None]):
    def __init__(self) -> None:
        self.lines: list[str] = []
        self.indent = 0

    def emit(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def block(self, head: str, body: Stmt) -> Steps:
        self.emit(head + " {")
        self.indent += 1
        yield body
        self.indent -= 1
        self.emit("}")

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        self.emit(f"// attr [{node_str(s.node)}] {s.key} = {expr_str(s.value)}")
        if s.key == "storage_scope" and isinstance(s.body, Allocate) and s.body.buffer is s.node:
            yield from self._allocation(s.body)
            return
        yield s.body

    def visit_prefetch(self, s: Prefetch) -> None:
        dims = ", ".join(f"[{expr_str(r.min)}, {expr_str(r.extent)}]" for r in s.bounds)
        self.emit(f"prefetch {s.tensor.name}({dims})")

    def visit_allocate(self, s: Allocate) -> Steps:
        # TVM v0.8+ keeps an allocation's scope on it; the legacy text names it as before.
        self.emit(f'// attr [{s.buffer.name}] storage_scope = "{s.buffer.scope}"')
        yield from self._allocation(s)

    def _allocation(self, s: Allocate) -> Steps:
        dims = " * ".join(expr_str(e) for e in s.buffer.extents)
        self.emit(f"allocate {s.buffer.name}[{s.buffer.dtype} * {dims}]")
        yield s.body

    def visit_realize(self, s: Realize) -> Steps:
        dims = ", ".join(f"[{expr_str(r.min)}, {expr_str(r.extent)}]" for r in s.bounds)
        suffix = f".value[{s.value_index}]" if s.op.num_outputs > 1 else ""
        yield from self.block(f"realize {s.op.name}({dims}){suffix}", s.body)

    def visit_producer_consumer(self, s: ProducerConsumer) -> Steps:
        if s.is_producer:
            yield from self.block(f"produce {s.op.name}", s.body)
        else:
            yield s.body

    def visit_for(self, s: For) -> Steps:
        yield from self.block(f"{s.kind.value} ({s.loop_var.name}, {expr_str(s.min)}, {expr_str(s.extent)})",
                              s.body)

    def visit_provide(self, s: Provide) -> None:
        suffix = f".value[{s.value_index}]" if s.op.num_outputs > 1 else ""
        index = ", ".join(expr_str(i) for i in s.indices)
        self.emit(f"{s.op.name}({index}){suffix} ={expr_str(s.value)}")

    def visit_store(self, s: Store) -> None:
        self.emit(f"{s.buffer.name}[{expr_str(s.index)}] = {expr_str(s.value)}")

    def visit_decl_store(self, s: DeclStore) -> None:
        self.emit(f"{s.buffer.name}[{expr_str(s.index)}] = {expr_str(s.value)}")

    def visit_while(self, s: While) -> Steps:
        yield from self.block(f"while ({expr_str(s.condition)})", s.body)

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        self.emit(f"if ({expr_str(s.condition)}) {{")
        current: IfThenElse = s
        while True:
            self.indent += 1
            yield current.then_case
            self.indent -= 1
            other = current.else_case
            if other is None:
                self.emit("}")
                return
            if isinstance(other, IfThenElse):
                self.emit(f"}} else if ({expr_str(other.condition)}) {{")
                current = other
                continue
            self.emit("} else {")
            self.indent += 1
            yield other
            self.indent -= 1
            self.emit("}")
            return

    def visit_let_stmt(self, s: LetStmt) -> Steps:
        self.emit(f"let {s.var.name} = {expr_str(s.value)}")
        yield s.body

    def visit_seq_stmt(self, s: SeqStmt) -> Steps:
        for x in s.seq:
            yield x

    def visit_evaluate(self, s: Evaluate) -> None:
        self.emit(expr_str(s.value))

    def visit_assert_stmt(self, s: AssertStmt) -> None:
        self.emit(f"assert({expr_str(s.condition)}, {s.message!r})")


def stmt_str(s: Stmt) -> str:
    """The legacy text of *s*, one statement per line."""
    p = _Printer()
    p(s)
    return "\n".join(p.lines) + "\n"


stmt_module._impl.text = stmt_str  # what Stmt.__str__ calls

