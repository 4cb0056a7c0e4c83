"""Statements of an extern operation's body beyond a single call: what ``te.ir_builder`` and
``te.hybrid.script`` build.

Loops, conditions, ``while`` loops, attributes, allocations, and element loads and stores on
declared buffers (an input's or output's ``te.decl_buffer``, or one the body allocates) at
flat indices. The nodes are immutable and compared by identity; lowering turns them into
the loop-nest IR (:mod:`lower.operation.extern`), binding each declared buffer to its tensor.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from schedule.base.errors import ScheduleError
from schedule.ir.expr import Expr, Var, _node
from schedule.ir.functor import field_names, post_order_visit

if TYPE_CHECKING:  # the buffer's loads and stores are these statements
    from schedule.ir.buffer import DeclBuffer

#: The loop kinds a body's loop may have, as ``ir_builder.for_range(kind=...)`` names them.
LOOP_KINDS = ("serial", "parallel", "vectorize", "unroll")


class BodyStmt:
    """Base of the body statements; ``visit_name`` is the snake-case class name."""

    visit_name = "body_stmt"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.visit_name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", cls.__name__).lower()


@dataclass(frozen=True, eq=False)
class Loop(BodyStmt):
    """``for var in [min, min + extent)``, of one of :data:`LOOP_KINDS`."""

    var: Var
    min: Expr
    extent: Expr
    kind: str
    body: BodyStmt

    @property
    def loop_var(self) -> Var:
        """TVM's name of :attr:`var`."""
        return self.var


@dataclass(frozen=True, eq=False)
class Branch(BodyStmt):
    condition: Expr
    then_case: BodyStmt
    else_case: BodyStmt | None = None


@dataclass(frozen=True, eq=False)
class WhileLoop(BodyStmt):
    condition: Expr
    body: BodyStmt


@dataclass(frozen=True, eq=False)
class Let(BodyStmt):
    var: Var
    value: Expr
    body: BodyStmt


@dataclass(frozen=True, eq=False)
class Attr(BodyStmt):
    """An attribute of *body*, such as ``thread_extent`` of a thread axis."""

    node: Any
    key: str
    value: Expr
    body: BodyStmt


@dataclass(frozen=True, eq=False)
class Alloc(BodyStmt):
    """*buffer* exists inside *body* (its scope: ``""`` or ``"global"``, ``"shared"``, ``"local"``)."""

    buffer: DeclBuffer
    body: BodyStmt


@dataclass(frozen=True, eq=False)
class ElemStore(BodyStmt):
    """``buffer[index] = value`` at a flat element index of the buffer's storage."""

    buffer: DeclBuffer
    value: Expr
    index: Expr

    @property
    def indices(self) -> tuple[Expr, ...]:
        """The flat index, as TVM's flattened ``BufferStore.indices`` holds it."""
        return (self.index,)


@dataclass(frozen=True, eq=False)
class Block(BodyStmt):
    """Statements in order."""

    stmts: tuple[BodyStmt, ...]

    def __getitem__(self, index: int) -> BodyStmt:
        """The statement at *index*, as TVM's SeqStmt gives it."""
        return self.stmts[index]

    def __len__(self) -> int:
        return len(self.stmts)


@dataclass(frozen=True, eq=False)
class Eval(BodyStmt):
    """An expression evaluated for its effect (a call)."""

    value: Expr


@dataclass(frozen=True, eq=False)
class Check(BodyStmt):
    """A condition that must hold when the statement runs; else the call fails with *message*
    (a hybrid script's ``assert``)."""

    condition: Expr
    message: str


@_node
class ElemLoad(Expr):
    """``buffer[index]``: one element of a declared buffer, at a flat element index."""

    buffer: DeclBuffer
    index: Expr
    dtype: str

    @property
    def indices(self) -> tuple[Expr, ...]:
        """The flat index, as TVM's flattened ``BufferLoad.indices`` holds it."""
        return (self.index,)

    def print_with(self, printer: Any) -> str:
        return f"{self.buffer.name}[{printer(self.index)}]"


def body_children(s: BodyStmt) -> list[BodyStmt]:
    """The statements directly inside *s*, in order."""
    out: list[BodyStmt] = []
    for name in field_names(s):
        value = getattr(s, name)
        out += [x for x in (value if isinstance(value, tuple) else (value,)) if isinstance(x, BodyStmt)]
    return out


def walk_body(s: BodyStmt) -> Iterator[BodyStmt]:
    """*s* and every statement under it, in source order, without recursing on Python's stack."""
    stack = [s]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(reversed(body_children(x)))


def body_exprs(s: BodyStmt) -> Iterator[Expr]:
    """The expressions held directly by *s*."""
    for name in field_names(s):
        value = getattr(s, name)
        if isinstance(value, Expr):
            yield value


def check_body(where: str, body: BodyStmt, declared: Sequence[DeclBuffer]) -> None:
    """Every element access of *body* is to a *declared* buffer or one the body allocates."""
    known = set(declared)
    known.update(s.buffer for s in walk_body(body) if isinstance(s, Alloc))
    found: list[DeclBuffer] = []

    def note(e: Expr) -> None:
        if isinstance(e, ElemLoad):
            found.append(e.buffer)
    for s in walk_body(body):
        if isinstance(s, ElemStore):
            found.append(s.buffer)
        for e in body_exprs(s):
            post_order_visit(e, note)
    for buf in found:
        if buf not in known:
            raise ScheduleError(f"{where}: the body reaches buffer '{buf.name}', which is neither one of its "
                                "input or output buffers nor allocated in it")
