"""Small buffers as variables (scalar replacement), so the C compiler keeps them in registers.

A buffer the function allocates (``local`` or ``global``), of a small constant size, outside
GPU-style kernels, whose every access is
at a constant element, or at a constant plus the variable of a vectorized loop written as
vectors (:mod:`lower.backend.c.vector`), becomes one variable per element or per vector of
lanes. Serial loops whose variable indexes the buffer are unrolled first, as TVM's
``unroll_local_access`` and LLVM's unrolling do before they promote such buffers. A buffer
reached any other way (a view, a varying index) stays an array.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from typing import Any

from bound import simplify
from lower.backend.c.vector import ELEMENTS, REGISTER_ELEMENTS, plan_vector_loop
from lower.ir.stmt import Allocate, AttrStmt, Buffer, For, ForKind, Load, Stmt, Store, seq
from lower.ir.stmt_functor import StmtMutator, stmt_children, stmt_exprs, walk
from lower.ir.substitute import substitute_stmt
from schedule import arith
from schedule.ir.expr import Expr
from schedule.ir.functor import distinct_post_order, field_names, free_vars, substitute

#: Buffers of at most this many elements may become variables.
MAX_ELEMENTS = REGISTER_ELEMENTS
#: Loops of at most this many iterations are unrolled to make a buffer's indices constant...
MAX_UNROLL = 64
#: ... as long as the loops unrolled for one buffer make at most this many copies together.
MAX_UNROLLED = 256


@dataclass
class Registers:
    """The promoted buffers: lanes per variable (1: scalars) and the variables' names."""

    lanes: dict[Buffer, int] = field(default_factory=dict)
    names: dict[Buffer, list[str]] = field(default_factory=dict)

    def element(self, buf: Buffer, index: Expr) -> str:
        """The C text of element *index* (a constant) of *buf*."""
        k = _constant(index)
        assert k is not None
        lanes = self.lanes[buf]
        var = self.names[buf][k // lanes]
        return var if lanes == 1 else f"{var}[{k % lanes}]"

    def vector(self, buf: Buffer, index: Expr) -> str:
        """The variable holding the lanes from element *index* (a multiple of the lanes) on."""
        k = _constant(index)
        assert k is not None
        return self.names[buf][k // self.lanes[buf]]


def _constant(index: Expr) -> int | None:
    v = arith.value_of(simplify(index))
    return int(v) if isinstance(v, int) else None


def promote(body: Stmt) -> tuple[Stmt, dict[Buffer, int]]:
    """*body* with the loops unrolled that make promotable buffers' indices constant, and the
    lanes of each buffer to write as variables.

    One walk collects every buffer's accesses; only a buffer whose indices use serial loops
    is analysed again after unrolling them, so deep pipelines stay linear.
    """
    if any(isinstance(s, AttrStmt) and s.key == "thread_extent" for s in walk(body)):
        return body, {}  # GPU-style kernels keep their per-thread arrays
    sites, otherwise = _access_sites(body)
    found: dict[Buffer, int] = {}
    unroll: set[Buffer] = set()
    for alloc in (x for x in walk(body) if isinstance(x, Allocate)):
        buf = alloc.buffer
        size = arith.value_of(buf.size)
        small = isinstance(size, int) and 0 < size <= MAX_ELEMENTS
        # Memory of the function itself (global) or of each thread (local); never an argument.
        if buf.scope not in ("local", "global") or buf.dtype not in ELEMENTS or not small or buf in otherwise:
            continue
        accesses = sites.get(buf, [])
        looped = [loop for _, index, _, loops in accesses for loop in loops
                  if loop.kind != ForKind.VECTORIZED and loop.loop_var in free_vars([index])]
        if looped:
            extents = {id(loop): arith.value_of(loop.extent) for loop in looped}
            total = 1
            for e in extents.values():
                total *= e if isinstance(e, int) and e > 0 else MAX_UNROLLED + 1
            if total <= MAX_UNROLLED:  # the unrolled copies stay few, as the buffer's elements do
                unroll.add(buf)
            continue
        lanes = _lanes_of(((st, index, vloop) for st, index, vloop, _ in accesses), buf, int(size))  # type: ignore[arg-type]
        if lanes is not None:
            found[buf] = lanes
    if unroll:
        p = _Promote(unroll, found)
        body = p(body)
    return body, found


def _access_sites(body: Stmt) -> tuple[dict[Buffer, list[tuple[Stmt, Expr, For | None, tuple[For, ...]]]], set[Buffer]]:
    """For each buffer, its accesses: the statement, the index, the vector loop around it (if
    any) and the loops around it; and the buffers reached other than element by element."""
    sites: dict[Buffer, list[tuple[Stmt, Expr, For | None, tuple[For, ...]]]] = {}
    otherwise: set[Buffer] = set()
    stack: list[tuple[Stmt, For | None, tuple[For, ...]]] = [(body, None, ())]
    while stack:
        s, vloop, loops = stack.pop()
        if isinstance(s, Store):
            sites.setdefault(s.buffer, []).append((s, s.index, vloop, loops))
        for e in stmt_exprs(s):
            for x in distinct_post_order(e):
                if isinstance(x, Load):
                    sites.setdefault(x.buffer, []).append((s, x.index, vloop, loops))
                    continue
                otherwise.update(getattr(x, f) for f in field_names(x) if isinstance(getattr(x, f), Buffer))
        if isinstance(s, For):
            inner_v = s if s.kind == ForKind.VECTORIZED else vloop
            stack.extend((c, inner_v, (*loops, s)) for c in stmt_children(s))
        else:
            stack.extend((c, vloop, loops) for c in stmt_children(s))
    return sites, otherwise


class _Promote(StmtMutator):
    """The allocations of *buffers* with the loops unrolled that index them, each recorded in
    *found* if its accesses then qualify."""

    def __init__(self, buffers: set[Buffer], found: dict[Buffer, int]) -> None:
        self.buffers = buffers
        self.found = found

    def visit_allocate(self, s: Allocate) -> Generator[Any, Any, Stmt]:
        new = yield from self.visit_default(s)
        buf = new.buffer
        if buf not in self.buffers:
            return new
        unrolled = _Unroll(buf)(new.body)
        lanes = _lanes(unrolled, buf, int(arith.value_of(buf.size)))  # type: ignore[arg-type]
        if lanes is None:
            return new
        self.found[buf] = lanes
        return Allocate(buf, unrolled)


def _indexes(s: Stmt, buf: Buffer) -> list[Expr]:
    """The indices at which statement *s* itself (not those inside it) reaches *buf*."""
    out = [s.index] if isinstance(s, Store) and s.buffer is buf else []
    for e in stmt_exprs(s):
        out += [x.index for x in distinct_post_order(e) if isinstance(x, Load) and x.buffer is buf]
    return out


class _Unroll(StmtMutator):
    """Serial and unrolled loops of constant extent whose variable indexes *buf*, written out."""

    def __init__(self, buf: Buffer) -> None:
        self.buf = buf

    def visit_for(self, s: For) -> Generator[Any, Any, Stmt]:
        new = yield from self.visit_default(s)
        extent = arith.value_of(new.extent)
        if new.kind not in (ForKind.SERIAL, ForKind.UNROLLED) or not isinstance(extent, int) or extent > MAX_UNROLL:
            return new
        if not any(new.loop_var in free_vars(_indexes(x, self.buf)) for x in walk(new.body)):
            return new
        return seq(*(substitute_stmt(new.body, {new.loop_var: arith.add(new.min, arith.const(k, new.loop_var.dtype))})
                     for k in range(extent)))


def _lanes(body: Stmt, buf: Buffer, size: int) -> int | None:
    """The lanes per variable of *buf* in *body* (see :func:`_lanes_of`)."""
    def accesses():
        stack: list[tuple[Stmt, For | None]] = [(body, None)]
        while stack:
            s, vloop = stack.pop()
            if _reaches_otherwise(s, buf):
                yield s, None, vloop
            for index in _indexes(s, buf):
                yield s, index, vloop
            inner = s if isinstance(s, For) and s.kind == ForKind.VECTORIZED else vloop
            stack.extend((c, inner) for c in stmt_children(s))
    return _lanes_of(accesses(), buf, size)


def _lanes_of(accesses: Any, buf: Buffer, size: int) -> int | None:
    """The lanes per variable if every access ``(statement, index, vector loop)`` to *buf* is at
    a constant, or at a constant multiple of the lanes plus a vector loop's variable; None
    otherwise (an index of None: reached other than element by element)."""
    lanes: set[int] = set()
    plans: dict[int, Any] = {}
    for s, index, vloop in accesses:
        if index is None:
            return None
        same_for_every_lane = vloop is not None and vloop.loop_var not in free_vars([index])
        if same_for_every_lane and isinstance(s, Store) and s.buffer is buf and s.index is index:
            return None  # every lane storing to one variable: a reduction the vector loop cannot be
        if vloop is None or same_for_every_lane:
            k = _constant(index)
            # one element (read by every lane alike); one outside the buffer (in a branch
            # that does not run) keeps it an array
            if k is None or not 0 <= k < size:
                return None
            continue
        if id(vloop) not in plans:
            plans[id(vloop)] = plan_vector_loop(vloop)
        plan = plans[id(vloop)]
        v = vloop.loop_var
        start = _constant(substitute(index, {v: vloop.min}))
        if plan is None or start is None or start % plan.lanes or not 0 <= start <= size - plan.lanes or _constant(
                substitute(index, {v: arith.add(vloop.min, arith.const(1, v.dtype))})) != start + 1:
            return None
        lanes.add(plan.lanes)
    if len(lanes) > 1:
        return None
    k = lanes.pop() if lanes else 1
    return k if size % k == 0 else None


def _reaches_otherwise(s: Stmt, buf: Buffer) -> bool:
    """Whether *s* reaches *buf* other than by loading or storing an element (a view, a call)."""
    for e in stmt_exprs(s):
        for x in distinct_post_order(e):
            if not isinstance(x, Load) and any(getattr(x, f, None) is buf for f in field_names(x)):
                return True
    return False
