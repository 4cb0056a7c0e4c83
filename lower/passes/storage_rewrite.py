"""Where allocations live (the placement part of TVM's StorageRewrite).

Each allocation moves to the start of its attach scope: the function, a GPU kernel (the
outermost ``thread_extent`` attribute: shared and local buffers are declared once per
kernel, each thread or block getting its own copy when it runs), or the outermost parallel
loop outside kernels (each iteration its own copy). Allocations keep the order in which they
appear.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from typing import Any

from lower.ir.stmt import Allocate, AttrStmt, Buffer, For, ForKind, Stmt
from lower.ir.stmt_functor import StmtMutator
from schedule.base.recursion import drive
from schedule.ir.expr import StringImm


def allocation(s: Stmt) -> Buffer | None:
    """The buffer if *s* is ``// attr [B] storage_scope`` around ``allocate B``, else None."""
    if (isinstance(s, AttrStmt) and s.key == "storage_scope" and isinstance(s.body, Allocate)
            and s.body.buffer is s.node):
        return s.body.buffer
    return None


def allocate(buffers: list[Buffer], body: Stmt) -> Stmt:
    """*body* inside the allocations of *buffers* (first outermost)."""
    for buf in reversed(buffers):
        body = AttrStmt(buf, "storage_scope", StringImm(buf.scope), Allocate(buf, body))
    return body


class _Hoist(StmtMutator):
    def __init__(self) -> None:
        self.pending: list[list[Buffer]] = []
        self.in_scope = False  # inside a kernel or a parallel loop

    def scope(self, body: Stmt) -> Generator[Any, Any, Stmt]:
        self.pending.append([])
        new = yield body
        return allocate(self.pending.pop(), new)

    def visit_attr_stmt(self, s: AttrStmt) -> Generator[Any, Any, Stmt]:
        buf = allocation(s)
        if buf is not None:
            self.pending[-1].append(buf)
            return (yield s.body.body)  # type: ignore[attr-defined]
        if s.key == "thread_extent" and not self.in_scope:
            return (yield self._enter(s))
        return (yield self.visit_default(s))

    def visit_for(self, s: For) -> Stmt:
        if s.kind == ForKind.PARALLEL and not self.in_scope:
            return self._enter(s)
        return self.visit_default(s)

    def _enter(self, s: AttrStmt | For) -> Generator[Any, Any, Stmt]:
        self.in_scope = True
        try:
            body = yield from self.scope(s.body)
        finally:
            self.in_scope = False
        return s if body is s.body else _with_body(s, body)


def _with_body(s: AttrStmt | For, body: Stmt) -> Stmt:
    return replace(s, body=body)


def place_allocations(stmt: Stmt) -> Stmt:
    """*stmt* with every allocation at the start of its attach scope."""
    hoist = _Hoist()
    return drive(hoist.scope(stmt), hoist.dispatch)
