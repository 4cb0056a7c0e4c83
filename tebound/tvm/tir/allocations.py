"""Allocations in TVM v0.8+'s form and in ours. Since v0.8 an ``Allocate`` carries its memory
scope in its buffer's pointer type; our lowering (and the InferBound document's listings) also
wrap it in the older ``// attr [B] storage_scope = "shared"``. What ``tebound.tvm`` hands a user
is TVM's form (``mod["main"].body.body`` is the allocation, as TVM's tests walk it); our passes
take ours, so each pass of ``tvm.tir.transform`` converts on the way in and out."""

from __future__ import annotations

from lower.ir.stmt import Allocate, AttrStmt, Stmt
from lower.ir.stmt_functor import ir_transform
from schedule.ir.expr import StringImm


def _is_scope_attr(s: Stmt) -> bool:
    return (isinstance(s, AttrStmt) and s.key == "storage_scope" and isinstance(s.body, Allocate)
            and s.body.buffer is s.node)


def bare(stmt: Stmt) -> Stmt:
    """*stmt* with each allocation's scope attribute dropped (TVM v0.8+'s form)."""
    return ir_transform(stmt, None, lambda s: s.body if _is_scope_attr(s) else None, ["tir.AttrStmt"])


def scoped(stmt: Stmt) -> Stmt:
    """*stmt* with each allocation inside its scope attribute (our passes' form)."""
    def wrap(s: Stmt) -> Stmt:
        return AttrStmt(s.buffer, "storage_scope", StringImm(s.buffer.scope), s)  # type: ignore[attr-defined]
    return ir_transform(bare(stmt), None, wrap, ["tir.Allocate"])
