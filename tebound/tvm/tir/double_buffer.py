"""TVM's ``tir.transform.InjectDoubleBuffer`` (v0.13): a buffer whose filling is marked
``double_buffer_scope`` inside a loop gets twice its storage. Iteration ``i`` reads half
``i % 2`` while it fills the other half for iteration ``i + 1``; the first filling moves before
the loop, the allocation out of it. The ``"tir.InjectDoubleBuffer"`` option ``split_loop``
unrolls the loop's body that many times per outer iteration, with the last iterations after
it, as TVM does."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, replace
from typing import Any

from lower.ir.stmt import Allocate, AttrStmt, Buffer, BufferView, For, IfThenElse, Load, Stmt, Store, seq
from lower.ir.stmt_functor import StmtMutator, ir_transform, post_order_visit
from lower.ir.substitute import substitute_stmt
from schedule.base.pass_context import options
from schedule.ir import arith
from schedule.ir.buffer import BufferArg
from schedule.ir.expr import Expr, IntImm, Var
from schedule.ir.functor import ExprMutator
from tebound.tvm.tir.allocations import bare
from tebound.tvm.tir.ssa import convert_ssa

Steps = Generator[Any, Any, Stmt]
SCOPE, WRITE = "double_buffer_scope", "double_buffer_write"


@dataclass
class _Entry:
    """A double-buffered buffer: its storage doubled, and how its halves are chosen."""

    buffer: Buffer
    doubled: Buffer | None = None
    loop: For | None = None
    write: Var | None = None  # the half being filled, as a variable until the copies are made
    read: Expr | None = None  # the half being read


def _targets(body: Stmt) -> dict[int, _Entry]:
    """The buffers marked ``double_buffer_scope`` that only loads and stores reach (TVM skips
    one whose variable is used otherwise)."""
    allocated: dict[str, Buffer] = {}
    marked: list[Any] = []
    escaped: set[str] = set()

    def see(x: object) -> None:
        if isinstance(x, Allocate):
            allocated[x.buffer.name] = x.buffer
        elif isinstance(x, AttrStmt) and x.key == SCOPE:
            marked.append(x.node)
        elif isinstance(x, (BufferView, BufferArg)):  # a pointer to it escapes
            escaped.add(x.buffer.name)
    post_order_visit(body, see)
    out: dict[int, _Entry] = {}
    for node in marked:
        buf = allocated.get(getattr(node, "name", ""))
        if buf is not None and buf.name not in escaped:
            out[id(buf)] = _Entry(buf)
    return out


class _Halves(ExprMutator):
    """Loads of a double-buffered buffer read the half of the current iteration."""

    def __init__(self, owner: _Injector) -> None:
        self.owner = owner

    def visit_load(self, e: Load) -> Expr:
        out = self.visit_default(e)
        entry = self.owner.entries.get(id(e.buffer))
        if entry is None:
            return out
        if entry.read is None:
            raise ValueError(f"InjectDoubleBuffer: buffer '{e.buffer.name}' is read before the double_buffer_scope "
                             "that fills it; fill it first in the loop's body")
        return Load(entry.doubled, arith.add(arith.mul(entry.read, entry.buffer.extents[0]), out.index))


class _Injector(StmtMutator):
    def __init__(self, entries: dict[int, _Entry], split: int) -> None:
        self.entries, self.split = entries, split
        self.loops: list[For] = []
        self.before: dict[int, list[Stmt]] = {}  # per loop: the first filling
        self.exprs = _Halves(self)

    def mutate_expr(self, e: Expr) -> Expr:
        return self.exprs(e)

    def _entry_of(self, node: Any) -> _Entry | None:
        name = getattr(node, "name", None)
        return next((e for e in self.entries.values() if e.buffer is node or e.buffer.name == name), None)

    def visit_allocate(self, s: Allocate) -> Steps:
        entry = self.entries.get(id(s.buffer))
        if entry is None:
            return (yield from self.visit_default(s))
        if len(s.buffer.extents) != 1:
            raise ValueError(f"InjectDoubleBuffer: buffer '{s.buffer.name}' is not flat; flatten it first")
        entry.doubled = replace(s.buffer, extents=(arith.mul(s.buffer.extents[0], 2),))
        body = yield s.body
        if entry.loop is None:
            raise ValueError(f"InjectDoubleBuffer: the double_buffer_scope of '{s.buffer.name}' is not inside a loop")
        return body

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        entry = self._entry_of(s.node) if s.key == SCOPE else None
        if entry is None:
            return (yield from self.visit_default(s))
        if not self.loops:
            raise ValueError(f"InjectDoubleBuffer: the double_buffer_scope of '{entry.buffer.name}' is not inside a "
                             "loop")
        loop = entry.loop = self.loops[-1]
        var = loop.loop_var
        entry.write = Var(f"{var.name}.db", var.dtype)
        entry.read = arith.floormod(var, 2)
        body = yield s.body
        self.before.setdefault(id(loop), []).append(substitute_stmt(body, {entry.write: arith.const(0, var.dtype),
                                                                          var: arith.const(0, var.dtype)}))
        following = arith.add(var, 1)
        body = substitute_stmt(body, {var: following, entry.write: arith.floormod(following, 2)})
        return IfThenElse(arith.lt(following, loop.extent), AttrStmt(entry.doubled, WRITE, arith.const(1), body))

    def visit_store(self, s: Store) -> Stmt:
        value, index = self.exprs(s.value), self.exprs(s.index)
        entry = self.entries.get(id(s.buffer))
        if entry is None:
            return s if value is s.value and index is s.index else replace(s, value=value, index=index)
        if entry.write is None:
            raise ValueError(f"InjectDoubleBuffer: buffer '{s.buffer.name}' is written outside its double_buffer_scope")
        return Store(entry.doubled, value, arith.add(arith.mul(entry.write, entry.buffer.extents[0]), index))

    def visit_for(self, s: For) -> Steps:
        self.loops.append(s)
        try:
            out = yield from self.visit_default(s)
        finally:
            self.loops.pop()
        first = self.before.pop(id(s), None)
        if first is not None:
            out = seq(*first, self._split(out))
        for entry in self.entries.values():
            if entry.loop is s:
                out = Allocate(entry.doubled, out)
        return out

    def _split(self, loop: For) -> Stmt:
        """*loop* less its last iteration's filling, unrolled *split* times per outer iteration."""
        if self.split == 0:
            return loop
        if self.split != 1 and self.split % 2:
            raise ValueError(f"InjectDoubleBuffer: split_loop is 1 or a multiple of 2, got {self.split}")
        if not (isinstance(loop.min, IntImm) and loop.min.value == 0):
            raise ValueError(f"InjectDoubleBuffer: the double-buffered loop over '{loop.loop_var.name}' starts at "
                             f"{loop.min}; it must start at 0")
        var, dtype = loop.loop_var, loop.loop_var.dtype
        steps = arith.sub(loop.extent, 1)
        factor = arith.const(self.split, dtype)
        outer_extent = arith.floordiv(steps, factor)
        tail = arith.mul(outer_extent, factor)
        outer = Var(f"{var.name}.outer", dtype)
        copies = [substitute_stmt(loop.body, {var: arith.add(arith.mul(outer, factor), arith.const(k, dtype))})
                  for k in range(self.split)]
        body = ir_transform(loop.body, None, lambda x: x.body if isinstance(x, AttrStmt) and x.key == WRITE else None,
                            ["tir.AttrStmt"])
        last = []
        for k in range(self.split):
            at = arith.add(tail, arith.const(k, dtype))
            last.append(IfThenElse(arith.lt(at, loop.extent), substitute_stmt(body, {var: at})))
        return seq(For(outer, arith.const(0, dtype), outer_extent, loop.kind, seq(*copies)), *last)


def inject_double_buffer(body: Stmt) -> Stmt:
    """*body* with its double buffers made (see the module's docstring)."""
    body = bare(body)
    entries = _targets(body)
    if not entries:
        return body
    out = _Injector(entries, int(options("tir.InjectDoubleBuffer")["split_loop"]))(body)
    return convert_ssa(out)
