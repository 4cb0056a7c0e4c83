"""Code moved out of ``tb_main`` into functions of its own.

Two uses. A parallel loop's body becomes a function taking the arrays it reaches as restrict
parameters (see ``_StmtSource.parallel_body``). And a function whose own statements run to
thousands of loops (a pipeline of thousands of stages) is cut into parts of about
:data:`PART_NODES` statements, each a function that ``tb_main`` calls in turn: GCC's time on one
function grows faster than its length (1.6 s for 1,000 stages in one function, 6.7 s for
3,000), and on many small ones it is linear (0.5 s and 0.9 s). :func:`needs` also gives a
CUDA kernel its parameters (``lower.backend.cuda.split``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from lower.ir.stmt import (
    Allocate,
    AttrStmt,
    Buffer,
    BufferView,
    For,
    LetStmt,
    Load,
    ProducerConsumer,
    SeqStmt,
    Stmt,
    Store,
)
from lower.ir.stmt_functor import stmt_exprs, walk
from schedule.ir.expr import Var
from schedule.ir.functor import distinct_post_order, free_vars

#: Statements per part of a long function (a stage of a chain is about three).
PART_NODES = 300
#: Kernel launches and virtual threads: their code depends on what encloses it.
_LAUNCHES = ("thread_extent", "virtual_thread")
#: Attributes whose body is not the function's own code (see :func:`own_sequences`).
_THREAD_KEYS = (*_LAUNCHES, "reduce_scope")


@dataclass(frozen=True)
class Needs:
    """What code moved into a function reads from outside it."""

    scalars: list[Var]
    buffers: list[Buffer]


def needs(body: Iterable[Stmt], bound: Sequence[Var] = (), kernels: bool = False) -> Needs | None:
    """The scalars that *body* uses but does not define (nor are in *bound*), and the buffers
    it reaches that it does not allocate; None when it holds what a function cannot take
    (a kernel launch or a virtual thread), unless *kernels* (a GPU kernel's own parameters)."""
    inside: set[Buffer] = set()
    defined: set[Var] = set(bound)
    used: dict[Var, None] = {}
    buffers: dict[Buffer, None] = {}
    for stmt in body:
        for x in walk(stmt):
            if isinstance(x, AttrStmt) and x.key in _LAUNCHES and not kernels:
                return None
            if isinstance(x, Allocate):
                inside.add(x.buffer)
            elif isinstance(x, For):
                defined.add(x.loop_var)
            elif isinstance(x, LetStmt):
                defined.add(x.var)
            elif isinstance(x, Store):
                buffers[x.buffer] = None
            exprs = stmt_exprs(x)
            used.update(dict.fromkeys(free_vars(exprs)))
            for e in exprs:
                buffers.update((y.buffer, None) for y in distinct_post_order(e) if isinstance(y, (Load, BufferView)))
    return Needs([v for v in used if v not in defined], [b for b in buffers if b not in inside])


def own_sequences(body: Stmt) -> set[int]:
    """The ids of the statement sequences that are the function's own code: reached from
    *body* through allocations, producer marks, attributes and sequences only (no loop,
    condition, binding or kernel launch around them)."""
    found: set[int] = set()
    stack = [body]
    while stack:
        x = stack.pop()
        if isinstance(x, SeqStmt):
            found.add(id(x))
            stack.extend(x.seq)
        elif isinstance(x, (Allocate, ProducerConsumer)) or (isinstance(x, AttrStmt) and x.key not in _THREAD_KEYS):
            stack.append(x.body)
    return found


def parts(s: SeqStmt) -> list[list[Stmt]]:
    """The statements of *s* (nested sequences flattened, in order) in consecutive groups of
    about :data:`PART_NODES` statements; one group when *s* is not long."""
    flat: list[Stmt] = []
    stack: list[Stmt] = [s]
    while stack:
        x = stack.pop()
        if isinstance(x, SeqStmt):
            stack.extend(reversed(x.seq))
        else:
            flat.append(x)
    sizes = [sum(1 for _ in walk(x)) for x in flat]
    if sum(sizes) <= 2 * PART_NODES:
        return [flat]
    groups: list[list[Stmt]] = [[]]
    size = 0
    for x, n in zip(flat, sizes):
        if groups[-1] and size + n > PART_NODES:
            groups.append([])
            size = 0
        groups[-1].append(x)
        size += n
    return groups
