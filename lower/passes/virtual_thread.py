"""Virtual threads as TVM lowers them (its InjectVirtualThread).

``// attr [vthread] virtual_thread = N`` is not a hardware thread: its body runs once per
virtual thread, interleaved statement by statement. Each statement whose value depends on
the virtual thread (directly, or through a buffer or variable that does) is repeated for
every virtual thread, unrolled when there are fewer than 16 and it contains no loop, in a
``for (vthread.s, 0, N)`` loop otherwise. A buffer allocated inside the scope and written
per virtual thread gets one copy per virtual thread: N times the size, each indexed from
``vthread * size``. Statements that do not depend on it (a cooperative fetch into shared
memory) run once, so the barriers around them stay where they are.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from types import GeneratorType
from typing import Any

from lower.ir.stmt import (
    Allocate,
    AttrStmt,
    Buffer,
    BufferView,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    Load,
    Stmt,
    Store,
    seq,
)
from lower.ir.stmt_functor import StmtMutator, StmtVisitor
from lower.ir.substitute import substitute_stmt
from schedule import arith
from schedule.ir.buffer import BufferArg
from schedule.ir.expr import Call, Expr, IntImm, Ramp, Var
from schedule.ir.functor import ExprMutator, post_order_visit
from schedule.ir.itervar import IterVar

Steps = Generator[Stmt, None, None]

#: Unroll the virtual threads of an innermost statement when there are fewer than this.
_UNROLL_BELOW = 16


def _uses(e: Expr) -> list[object]:
    """The variables and the buffers read in *e*."""
    used: list[object] = []
    post_order_visit(e, lambda x: used.append(x.buffer if isinstance(x, Load) else x)
                     if isinstance(x, (Var, Load)) else None)
    return used


class _Touched(StmtVisitor):
    """The variables and buffers whose values depend on the virtual thread variable."""

    def __init__(self, var: Var) -> None:
        self.touched: set[int] = {id(var)}
        self.objects: dict[int, object] = {id(var): var}
        self.affects: dict[int, list[object]] = {}
        #: The buffers allocated so far, by name: a hand-built call's access_ptr names its buffer.
        self.allocated: dict[str, Buffer] = {}

    def record(self, target: object, exprs: list[Expr], also: tuple[object, ...] = ()) -> None:
        if id(target) in self.touched:
            return
        used = [u for e in exprs for u in _uses(e)] + list(also)
        if any(id(u) in self.touched for u in used):
            self.touched.add(id(target))
            return
        for u in used:
            if u is not target:
                self.affects.setdefault(id(u), []).append(target)

    def visit_let_stmt(self, s: LetStmt) -> Steps:
        self.record(s.var, [s.value])
        yield s.body

    def visit_store(self, s: Store) -> None:
        self.record(s.buffer, [s.value, s.index])

    def visit_for(self, s: For) -> Steps:
        self.record(s.loop_var, [s.min, s.extent])
        yield s.body

    def visit_allocate(self, s: Allocate) -> Steps:
        self.allocated[s.buffer.name] = s.buffer
        self.record(s.buffer, list(s.buffer.extents))
        yield s.body

    def visit_evaluate(self, s: Evaluate) -> None:
        """A call that writes through an ``access_ptr`` makes that buffer depend on whatever
        the call reads (TVM's read and write masks, 1 and 2)."""
        written: list[object] = []
        read: list[object] = []

        def see(x: Expr) -> None:
            if isinstance(x, Call) and x.name == "tvm_access_ptr":
                target, mask = _access(x, self.allocated)
                if target is not None:
                    (written if mask & 2 else read).append(target)
                    if mask & 2 and mask & 1:
                        read.append(target)
        post_order_visit(s.value, see)
        for target in written:
            self.record(target, [s.value], tuple(read))

    def result(self) -> set[int]:
        pending = list(self.touched)
        while pending:
            for r in self.affects.get(pending.pop(), []):
                if id(r) not in self.touched:
                    self.touched.add(id(r))
                    pending.append(r)
        return self.touched


def _access(call: Call, allocated: dict[str, Buffer]) -> tuple[object | None, int]:
    """The buffer an ``access_ptr`` names (as allocated, when it was) and its mask."""
    args = call.args
    mask = args[-1].value if args and isinstance(args[-1], IntImm) else 3
    for a in args:
        if isinstance(a, BufferArg):
            return allocated.get(a.buffer.name, a.buffer), mask
        if isinstance(a, BufferView):
            return a.buffer, mask
    return None, mask


class _Exprs(ExprMutator):
    """Flags reads of touched variables and buffers; indexes remapped buffers per virtual thread."""

    def __init__(self, owner: _Injector) -> None:
        self.owner = owner

    def visit_var(self, e: Var) -> Expr:
        if id(e) in self.owner.touched:
            self.owner.visit_touched = True
        return e

    def visit_load(self, e: Load) -> Expr:
        index = self(e.index)
        checks = tuple(self(c) for c in e.checks)
        buf, index = self.owner.access(e.buffer, index)
        if buf is e.buffer and index is e.index and all(a is b for a, b in zip(checks, e.checks)):
            return e
        return Load(buf, index, checks, e.checked)


class _Injector(StmtMutator):
    """TVM's VTInjector: the flags say whether the statement being rebuilt depends on the thread."""

    def __init__(self, var: Var, count: int, touched: set[int], allow_share: bool) -> None:
        self.var, self.count, self.touched, self.allow_share = var, count, touched, allow_share
        self.visit_touched = False
        self.trigger_base_inject = False
        self.injected = False
        self.max_loop_depth = 0
        self.remap: dict[int, tuple[Buffer, Expr]] = {}  # old buffer -> (new buffer, stride)
        self.exprs = _Exprs(self)

    def access(self, buf: Buffer, index: Expr) -> tuple[Buffer, Expr]:
        if id(buf) in self.touched:
            self.visit_touched = True
        remapped = self.remap.get(id(buf))
        if remapped is None:
            return buf, index
        new, stride = remapped
        if isinstance(index, Ramp):  # one ramp from the thread's copy on, as TVM's simplifier leaves it
            return new, Ramp(arith.add(index.base, arith.mul(self.var, stride)), index.stride, index.lanes)
        return new, arith.add(index, arith.mul(self.var, stride))

    def mutate_expr(self, e: Expr) -> Expr:
        return self.exprs(e)

    def dispatch(self, s: Stmt) -> Any:
        return self._visit(s)

    def _visit(self, s: Stmt) -> Generator[Any, Any, Stmt]:
        inner = super().dispatch(s)
        out = (yield inner) if isinstance(inner, GeneratorType) else inner
        if self.visit_touched or self.trigger_base_inject:
            if not self.injected:
                return (yield self.inject(out, before_mutation=False))
            self.visit_touched = self.trigger_base_inject = False
        return out

    def inject(self, s: Stmt, before_mutation: bool) -> Generator[Any, Any, Stmt]:
        self.visit_touched = self.trigger_base_inject = False
        self.injected = True
        if before_mutation:
            s = yield s
        self.injected = False
        self.visit_touched = False
        if self.max_loop_depth == 0 and self.count < _UNROLL_BELOW:
            return seq(*(substitute_stmt(s, {self.var: arith.const(k, self.var.dtype)}) for k in range(self.count)))
        idx = Var(f"{self.var.name}.s", self.var.dtype)
        return For(idx, arith.const(0, idx.dtype), arith.const(self.count, idx.dtype), ForKind.SERIAL,
                   substitute_stmt(s, {self.var: idx}))

    def visit_evaluate(self, s: Evaluate) -> Stmt:
        self.trigger_base_inject = not self.allow_share
        return self.visit_default(s)

    def visit_store(self, s: Store) -> Stmt:
        value, index = self.exprs(s.value), self.exprs(s.index)
        checks = tuple(self.exprs(c) for c in s.checks)
        self.trigger_base_inject = not self.allow_share
        buf, index = self.access(s.buffer, index)
        return Store(buf, value, index, checks, s.checked)

    def visit_attr_stmt(self, s: AttrStmt) -> Stmt:
        value = self.exprs(s.value) if isinstance(s.value, Expr) else s.value
        if self.visit_touched and not self.injected:
            return (yield self.inject(s, before_mutation=True))
        body = yield s.body
        node = self.remap[id(s.node)][0] if id(s.node) in self.remap else s.node
        if value is s.value and body is s.body and node is s.node:
            return s
        return AttrStmt(node, s.key, value, body)

    def visit_let_stmt(self, s: LetStmt) -> Stmt:
        value = self.exprs(s.value)
        if self.visit_touched and not self.injected:
            return (yield self.inject(s, before_mutation=True))
        self.visit_touched = False
        body = yield s.body
        return s if value is s.value and body is s.body else LetStmt(s.var, value, body)

    def visit_for(self, s: For) -> Stmt:
        extent = self.exprs(s.extent)
        if self.visit_touched and not self.injected:
            out = yield self.inject(s, before_mutation=True)
            self.max_loop_depth += 1
            return out
        self.visit_touched = False
        body = yield s.body
        self.max_loop_depth += 1
        return s if extent is s.extent and body is s.body else replace(s, extent=extent, body=body)

    def visit_if_then_else(self, s: IfThenElse) -> Stmt:
        cond = self.exprs(s.condition)
        if self.visit_touched and not self.injected:
            return (yield self.inject(s, before_mutation=True))
        self.visit_touched = False
        then = yield s.then_case
        other = None
        if s.else_case is not None:
            saved, self.max_loop_depth = self.max_loop_depth, 0
            other = yield s.else_case
            self.max_loop_depth = max(saved, self.max_loop_depth)
        if cond is s.condition and then is s.then_case and other is s.else_case:
            return s
        return IfThenElse(cond, then, other)

    def visit_seq_stmt(self, s: Stmt) -> Stmt:
        out = []
        for x in s.seq:  # type: ignore[attr-defined]
            saved, self.max_loop_depth = self.max_loop_depth, 0
            out.append((yield x))
            self.max_loop_depth = max(self.max_loop_depth, saved)
        return seq(*out)

    def visit_allocate(self, s: Allocate) -> Stmt:
        extents = tuple(self.exprs(e) for e in s.buffer.extents)
        if self.visit_touched and not self.injected:
            return (yield self.inject(s, before_mutation=True))
        self.visit_touched = False
        buf = s.buffer
        if id(buf) in self.touched or not self.allow_share:
            stride = extents[0]
            for e in extents[1:]:
                stride = arith.mul(stride, e)
            buf = replace(buf, extents=(arith.mul(stride, arith.const(self.count, stride.dtype)),))
            self.remap[id(s.buffer)] = (buf, stride)
        body = yield s.body
        return s if buf is s.buffer and body is s.body else Allocate(buf, body)


class _Scopes(StmtVisitor):
    """Per virtual thread variable: its extent, and the accesses to each buffer in and out of
    its scopes; per buffer, whether it is allocated inside one of them."""

    def __init__(self) -> None:
        self.extents: dict[Var, set[int]] = {}
        self.bodies: dict[Var, list[Stmt]] = {}
        self.open: list[Var] = []
        self.outside: dict[Var, set[int]] = {}  # buffers accessed outside the variable's scopes
        self.allocated_inside: dict[Var, set[int]] = {}
        self.accessed: set[int] = set()
        self.buffers: dict[int, Buffer] = {}

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        if s.key == "virtual_thread" and isinstance(s.node, IterVar):
            var = s.node.var
            self.extents.setdefault(var, set()).add(s.value.value if isinstance(s.value, IntImm) else -1)
            self.bodies.setdefault(var, []).append(s.body)
            self.open.append(var)
            yield s.body
            self.open.pop()
            return
        yield s.body

    def visit_allocate(self, s: Allocate) -> Steps:
        self.buffers[id(s.buffer)] = s.buffer
        for var in self.open:
            self.allocated_inside.setdefault(var, set()).add(id(s.buffer))
        yield s.body

    def access(self, buf: Buffer) -> None:
        self.accessed.add(id(buf))
        for var in self.extents:
            if var not in self.open:
                self.outside.setdefault(var, set()).add(id(buf))

    def visit_store(self, s: Store) -> None:
        self.access(s.buffer)
        for e in (s.value, s.index):
            post_order_visit(e, lambda x: self.access(x.buffer) if isinstance(x, Load) else None)

    def visit_expr(self, e: Expr) -> None:
        post_order_visit(e, lambda x: self.access(x.buffer) if isinstance(x, Load) else None)


class _Privatize(StmtMutator):
    """Give each virtual thread its own copy of the buffers in *plan* (inside their scopes)."""

    def __init__(self, plan: dict[Var, dict[int, tuple[Buffer, Buffer, Expr]]]) -> None:
        self.plan = plan  # var -> old buffer id -> (old, new, stride)
        self.open: list[Var] = []
        self.new_buffers = {k: (old, new) for per in plan.values() for k, (old, new, _) in per.items()}
        self.exprs = _Privatized(self)

    def rewrite(self, buf: Buffer, index: Expr) -> tuple[Buffer, Expr]:
        for var in self.open:
            hit = self.plan.get(var, {}).get(id(buf))
            if hit is not None:
                return hit[1], arith.add(index, arith.mul(var, hit[2]))
        return buf, index

    def mutate_expr(self, e: Expr) -> Expr:
        return self.exprs(e)

    def visit_attr_stmt(self, s: AttrStmt) -> Stmt:
        if s.key == "virtual_thread" and isinstance(s.node, IterVar) and s.node.var in self.plan:
            self.open.append(s.node.var)
            try:
                return (yield self.visit_default(s))
            finally:
                self.open.pop()
        if id(s.node) in self.new_buffers:
            body = yield s.body
            return AttrStmt(self.new_buffers[id(s.node)][1], s.key, s.value, body)
        return (yield self.visit_default(s))

    def visit_allocate(self, s: Allocate) -> Generator[Any, Any, Stmt]:
        if id(s.buffer) in self.new_buffers:
            body = yield s.body
            return Allocate(self.new_buffers[id(s.buffer)][1], body)
        return (yield self.visit_default(s))

    def visit_store(self, s: Store) -> Stmt:
        value, index = self.exprs(s.value), self.exprs(s.index)
        buf, index = self.rewrite(s.buffer, index)
        return Store(buf, value, index, tuple(self.exprs(c) for c in s.checks), s.checked)


class _Privatized(ExprMutator):
    def __init__(self, owner: _Privatize) -> None:
        self.owner = owner

    def visit_load(self, e: Load) -> Expr:
        buf, index = self.owner.rewrite(e.buffer, self(e.index))
        return Load(buf, index, tuple(self(c) for c in e.checks), e.checked)


def _privatize(stmt: Stmt, scopes: _Scopes) -> Stmt:
    """Local buffers that a virtual thread writes per thread, allocated outside its scopes.

    TVM bounds such a buffer per virtual thread (local memory is below a virtual thread's
    rank) but allocates it once when it is realized outside the virtual thread's attribute, so
    the copies overwrite one another. Here each virtual thread gets its own copy, as it does
    for buffers allocated inside its scope; only buffers used nowhere else change.
    """
    plan: dict[Var, dict[int, tuple[Buffer, Buffer, Expr]]] = {}
    for var, extents in scopes.extents.items():
        if len(extents) != 1 or min(extents) <= 0:
            continue
        (count,) = extents
        touched = _Touched(var)
        for body in scopes.bodies[var]:
            touched(body)
        written = touched.result()
        for key, buf in scopes.buffers.items():
            if (buf.scope in ("local", "warp") and key in written and key in scopes.accessed
                    and key not in scopes.outside.get(var, set())
                    and key not in scopes.allocated_inside.get(var, set())
                    and not any(key in per for per in plan.values())):
                stride = buf.extents[0]
                for e in buf.extents[1:]:
                    stride = arith.mul(stride, e)
                new = replace(buf, extents=(arith.mul(stride, arith.const(count, stride.dtype)),))
                plan.setdefault(var, {})[key] = (buf, new, stride)
    return _Privatize(plan)(stmt) if plan else stmt


class _Virtual(StmtMutator):
    def visit_attr_stmt(self, s: AttrStmt) -> Generator[Any, Any, Stmt]:
        s2 = yield self.visit_default(s)
        assert isinstance(s2, AttrStmt)
        if s2.key != "virtual_thread" or not isinstance(s2.node, IterVar) or not isinstance(s2.value, IntImm):
            return s2
        var = s2.node.var
        touched = _Touched(var)
        touched(s2.body)
        allow_share = s2.node.thread_tag.startswith("vthread")
        return _Injector(var, s2.value.value, touched.result(), allow_share)(s2.body)


def inject_virtual_thread(stmt: Stmt) -> Stmt:
    """*stmt* with every ``virtual_thread`` scope replaced by its interleaved copies."""
    scopes = _Scopes()
    scopes(stmt)
    if not scopes.extents:  # no virtual thread: nothing to do
        return stmt
    return _Virtual()(_privatize(stmt, scopes))
