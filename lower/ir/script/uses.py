"""Where TVMScript declares what a function uses: for each variable and buffer, the statements
that enclose every use of it (TVM's "common prefix"). The printer declares a buffer view
(``A_1 = T.Buffer(...)``) or a free variable in the innermost of those statements that opens
a frame, as TVM's printer does."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from lower.ir.stmt import (
    Allocate,
    AssertStmt,
    AttrStmt,
    BufferView,
    Evaluate,
    For,
    IfThenElse,
    LetStmt,
    Load,
    Prefetch,
    ProducerConsumer,
    SeqStmt,
    Stmt,
    Store,
    While,
)
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import post_order_visit
from schedule.ir.itervar import IterVar

#: The key of the function itself, first in every chain.
FUNCTION = 0


def stmt_parts(s: Stmt) -> tuple[list[Any], list[Stmt]]:
    """The expressions (and attribute nodes) of *s* itself, and its child statements in order."""
    if isinstance(s, For):
        return [s.loop_var, s.min, s.extent], [s.body]
    if isinstance(s, Store):
        return [s.index, s.value], []
    if isinstance(s, SeqStmt):
        return [], list(s.seq)
    if isinstance(s, IfThenElse):
        return [s.condition], [s.then_case] + ([s.else_case] if s.else_case is not None else [])
    if isinstance(s, AttrStmt):
        return [s.node, s.value], [s.body]
    if isinstance(s, Allocate):
        return list(s.buffer.extents), [s.body]
    if isinstance(s, LetStmt):
        return [s.var, s.value], [s.body]
    if isinstance(s, (Evaluate,)):
        return [s.value], []
    if isinstance(s, AssertStmt):
        return [s.condition], []
    if isinstance(s, While):
        return [s.condition], [s.body]
    if isinstance(s, ProducerConsumer):
        return [], [s.body]
    if isinstance(s, Prefetch):
        return [x for r in s.bounds for x in (r.min, r.extent)], []
    return [], []


def _defined(s: Stmt) -> list[Any]:
    """What *s* defines for its body: a loop's variable, a let's, an attribute's node."""
    if isinstance(s, For):
        return [s.loop_var]
    if isinstance(s, LetStmt):
        return [s.var]
    if isinstance(s, AttrStmt):
        return [s.node]
    return []


def _keys(node: Any) -> Iterator[int]:
    """The ids of the variables and buffers an expression or attribute node uses."""
    if isinstance(node, IterVar):
        node = node.var
    if not isinstance(node, Expr):
        return
    found: list[int] = []

    def see(e: Expr) -> None:
        if isinstance(e, Var):
            found.append(id(e))
        elif isinstance(e, (Load, BufferView)):
            found.append(id(e.buffer))
    post_order_visit(node, see)
    yield from found


def common_prefixes(body: Stmt) -> dict[int, tuple[int, ...]]:
    """For each variable and buffer id, the ids of the statements enclosing all its uses,
    outermost first, starting with :data:`FUNCTION`."""
    prefix: dict[int, tuple[int, ...]] = {}

    def use(key: int, chain: tuple[int, ...]) -> None:
        old = prefix.get(key)
        if old is None:
            prefix[key] = chain
            return
        n = 0
        for a, b in zip(old, chain):
            if a != b:
                break
            n += 1
        if n < len(old):
            prefix[key] = old[:n]

    loops: set[int] = set()
    stack: list[tuple[Stmt, tuple[int, ...]]] = [(body, (FUNCTION,))]
    while stack:
        s, outer = stack.pop()
        chain = (*outer, id(s))
        exprs, children = stmt_parts(s)
        # A statement that opens a frame evaluates its own expressions (a loop's extent, a
        # condition) before it, in the frame around it; the loops of a nest print in one header.
        own = chain if not children else outer
        if isinstance(s, For):
            loops.add(id(s))
            while len(own) > 1 and own[-1] in loops:
                own = own[:-1]
        defined = {id(x) for x in _defined(s)}
        for e in exprs:
            for key in _keys(e):
                use(key, chain if id(e) in defined else own)
        if isinstance(s, Store):
            use(id(s.buffer), chain)
        stack.extend((c, chain) for c in reversed(children))
    return prefix
