"""Memory reuse between buffers whose lifetimes do not overlap (the sharing part of TVM's
StorageRewrite).

Among the allocations opened together (at the function's start, a kernel's, a parallel
loop's), a buffer first used by a statement after the last use of another buffer of the same
scope and type, and no larger, takes that buffer's storage. It may also take it in the very statement
that uses the other buffer for the last time when that statement works in place: each element
it writes is computed from the other buffer's element at the same index only (``A1[i] = A0[i]
+ 2``), as TVM folds in-place updates. Buffers reached other than by loads and stores (views,
pointers passed to calls) keep their own storage.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import Any

from lower.errors import LoweringError
from lower.stmt import AttrStmt, Buffer, Load, SeqStmt, Stmt, Store
from lower.stmt_functor import StmtMutator, StmtVisitor, stmt_children
from lower.storage_rewrite import allocate, allocation
from schedule import arith
from schedule.dtype import bits
from schedule.expr import Expr
from schedule.functor import ExprMutator, distinct_post_order, field_names, structural_equal
from schedule.memory_info import memory_info

#: Scopes whose buffers may share storage (warp buffers are laid out per warp).
SHARED_SCOPES = ("global", "shared", "local")


def share_storage(stmt: Stmt) -> Stmt:
    """*stmt* with buffers of disjoint lifetimes merged as described above."""
    return _Share()(stmt)


class _Share(StmtMutator):
    def visit_attr_stmt(self, s: AttrStmt) -> Generator[Any, Any, Stmt]:
        if allocation(s) is None:
            return (yield from self.visit_default(s))
        buffers: list[Buffer] = []
        body: Stmt = s
        while (buf := allocation(body)) is not None:
            buffers.append(buf)
            body = body.body.body  # type: ignore[attr-defined]
        body = yield body
        merged = _plan(buffers, body)
        if merged:
            body = _Rename(merged)(body)
            buffers = [b for b in buffers if b not in merged]
        return allocate(buffers, body)


@dataclass
class _Slot:
    buffer: Buffer  # the buffer whose storage the slot is
    current: Buffer  # the buffer living in it now
    last: int


def _plan(buffers: list[Buffer], body: Stmt) -> dict[Buffer, Buffer]:
    """Which buffer takes which other's storage: buffer -> the buffer it is renamed to."""
    seq = _sequence(body)
    if len(seq) < 2 or len(buffers) < 2:
        return {}
    uses = [_Uses(set(buffers)) for _ in seq]
    for u, x in zip(uses, seq):
        u(x)
    opaque = set().union(*(u.opaque for u in uses))
    first: dict[Buffer, int] = {}
    last: dict[Buffer, int] = {}
    for k, u in enumerate(uses):
        for b in u.reads | u.writes:
            first.setdefault(b, k)
            last[b] = k
    merged: dict[Buffer, Buffer] = {}
    slots: list[_Slot] = []
    for b in sorted((b for b in buffers if b in first and b not in opaque), key=lambda b: first[b]):
        slot = next((sl for sl in slots if _fits(sl.buffer, b) and
                     (sl.last < first[b] or (sl.last == first[b] and
                                            _in_place(sl.current, b, uses[first[b]])))),
                    None)
        if slot is None:
            slots.append(_Slot(b, b, last[b]))
            continue
        merged[b] = slot.buffer
        slot.current, slot.last = b, last[b]
    return merged


def _sequence(body: Stmt) -> list[Stmt]:
    """The statements run one after another in *body* (nested sequences opened)."""
    out: list[Stmt] = []
    stack = [body]
    while stack:
        x = stack.pop()
        if isinstance(x, SeqStmt):
            stack.extend(reversed(x.seq))
        else:
            out.append(x)
    return out


def _fits(slot: Buffer, b: Buffer) -> bool:
    """Whether *b* fits in *slot*'s storage: same scope and type, a size no larger."""
    if not (slot.scope == b.scope and slot.scope in SHARED_SCOPES and slot.dtype == b.dtype):
        return False
    small, large = arith.value_of(b.size), arith.value_of(slot.size)
    return structural_equal(slot.size, b.size) or (small is not None and large is not None and small <= large)


def _in_place(dying: Buffer, born: Buffer, uses: _Uses) -> bool:
    """Whether the statement *uses* describes reads *dying* only at the index of the store to
    *born* it computes, and writes *dying* nowhere."""
    if dying in uses.writes or born not in uses.writes or dying in uses.reads_outside_stores:
        return False
    for buffer, index, loads, index_loads in uses.stores:
        if dying in index_loads:
            return False
        reads = [i for b, i in loads if b is dying]
        if reads and (buffer is not born or any(not structural_equal(i, index) for i in reads)):
            return False
    return True


class _Uses(StmtVisitor):
    """The candidate buffers one statement reads and writes, and those it reaches otherwise."""

    def __init__(self, candidates: set[Buffer]) -> None:
        self.candidates = candidates
        self.reads: set[Buffer] = set()
        self.writes: set[Buffer] = set()
        self.opaque: set[Buffer] = set()
        self.reads_outside_stores: set[Buffer] = set()
        # per store: its buffer and index, the candidates' loads in its value, those in its index
        self.stores: list[tuple[Buffer, Expr, list[tuple[Buffer, Expr]], set[Buffer]]] = []
        self._in_store = False

    def visit_store(self, s: Store) -> None:
        if s.buffer in self.candidates:
            self.writes.add(s.buffer)
        self._in_store = True
        loads = self._loads(s.value)
        index_loads = {b for b, _ in self._loads(s.index)}
        for e in s.checks:
            self.visit_expr(e)
        self._in_store = False
        self.stores.append((s.buffer, s.index, loads, index_loads))

    def _loads(self, e: Expr) -> list[tuple[Buffer, Expr]]:
        self.visit_expr(e)
        return [(x.buffer, x.index) for x in distinct_post_order(e)
                if isinstance(x, Load) and x.buffer in self.candidates]

    def visit_expr(self, e: Expr) -> None:
        for x in distinct_post_order(e):
            if isinstance(x, Load):
                if x.buffer in self.candidates:
                    self.reads.add(x.buffer)
                    if not self._in_store:
                        self.reads_outside_stores.add(x.buffer)
                continue
            for name in field_names(x):  # a buffer reached another way: a view, a pointer
                value = getattr(x, name)
                if isinstance(value, Buffer) and value in self.candidates:
                    self.opaque.add(value)


class _RenameExpr(ExprMutator):
    def __init__(self, merged: dict[Buffer, Buffer]) -> None:
        self.merged = merged

    def visit_load(self, e: Load) -> Expr:
        new = self.visit_default(e)
        target = self.merged.get(e.buffer)
        return replace(new, buffer=target) if target is not None else new


class _Rename(StmtMutator):
    def __init__(self, merged: dict[Buffer, Buffer]) -> None:
        self.merged = merged
        self.exprs = _RenameExpr(merged)

    def mutate_expr(self, e: Expr) -> Expr:
        return self.exprs(e)

    def visit_store(self, s: Store) -> Stmt:
        new = self.visit_default_store(s)
        target = self.merged.get(s.buffer)
        return replace(new, buffer=target) if target is not None else new

    def visit_default_store(self, s: Store) -> Store:
        value, index = self.mutate_expr(s.value), self.mutate_expr(s.index)
        checks = tuple(self.mutate_expr(c) for c in s.checks)
        return replace(s, value=value, index=index, checks=checks)


def check_memory_bounds(stmt: Stmt) -> None:
    """Refuse an allocation larger than its scope's registered capacity (TVM's
    ``tvm.info.mem.<scope>``).

    :raises LoweringError: naming the buffer, the scope and both sizes in bits.
    """
    stack = [stmt]
    while stack:
        s = stack.pop()
        buf = allocation(s)
        if buf is not None:
            info = memory_info(buf.scope) if "." in buf.scope else None
            size = arith.value_of(buf.size)
            if info is not None and size is not None:
                need = int(size) * bits(buf.dtype)
                limit = info.get("max_num_bits") if isinstance(info, dict) else getattr(info, "max_num_bits", None)
                if not isinstance(limit, int):
                    raise LoweringError(f"tvm.info.mem.{buf.scope} gave {info!r}, which has no integer "
                                        "max_num_bits; return a te.MemoryInfo")
                if need > limit:
                    raise LoweringError(f"Allocation exceed bound of memory tag {buf.scope}: buffer '{buf.name}' "
                                        f"needs {need} bits, the scope holds {limit}")
        stack.extend(stmt_children(s))
