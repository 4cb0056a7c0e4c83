"""The statement IR of lowered loop nests (TVM's legacy ``Stmt`` nodes) and flat buffers.

Nodes are immutable. Before storage flattening, tensors are written with :class:`Provide`
inside :class:`Realize` regions and read with ``ProducerLoad``; afterwards every tensor is a
:class:`Buffer`, written with :class:`Store` and read with :class:`Load` at flat indices.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, ClassVar

from schedule import arith
from schedule.ir.dtype import lanes, with_lanes
from schedule.ir.expr import Expr, Var
from schedule.ir.itervar import Range
from schedule.operation.tensor import Operation, Tensor


class _Hooks:
    """What statements' methods call in modules above this one, filled in by those modules when
    they are imported (the ``lower`` face imports them): ``text`` by :mod:`lower.ir.printer`."""

    text: Callable[[Stmt], str] | None = None


_impl = _Hooks()


class Stmt:
    """Base of all statements; ``str()`` is TVM's legacy text (see :mod:`lower.ir.printer`)."""

    visit_name = "stmt"

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        import re

        cls.visit_name = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", cls.__name__).lower()

    def __str__(self) -> str:
        assert _impl.text is not None, "lower.ir.printer installs the statements' text"
        return _impl.text(self)


class ForKind(enum.Enum):
    """A loop's kind; it also equals the name an ``ir_builder`` or hybrid loop gives its kind
    (``"parallel"``, ``"vectorize"`` ...), so that TVM's ``loop.kind == ForKind.PARALLEL`` holds
    for either loop."""

    SERIAL = "for"
    PARALLEL = "parallel"
    VECTORIZED = "vectorized"
    UNROLLED = "unrolled"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, str):
            return _LOOP_KIND_NAMES.get(other) is self
        return self is other

    def __hash__(self) -> int:
        return hash(self.value)


_LOOP_KIND_NAMES = {"serial": ForKind.SERIAL, "parallel": ForKind.PARALLEL, "vectorize": ForKind.VECTORIZED,
                    "unroll": ForKind.UNROLLED}


@dataclass(frozen=True)
class PointerType:
    """TVM's ``PointerType``: *element* values in memory of *storage_scope*."""

    element: str
    storage_scope: str = "global"


@dataclass(frozen=True)
class PointerBinding:
    """Where a buffer declared over a pointer variable lives (TVMScript's ``T.decl_buffer(...,
    data=ptr, elem_offset=..., strides=...)``): its elements start at element *elem_offset* of
    what *data* points to, *strides* apart."""

    data: Var
    elem_offset: Expr | None = None
    strides: tuple[Expr, ...] = ()

    @property
    def exprs(self) -> tuple[Expr, ...]:
        return (self.data, *((self.elem_offset,) if self.elem_offset is not None else ()), *self.strides)


@dataclass(frozen=True, eq=False)
class Buffer:
    """A flat array: *extents* are the realized (allocated) shape, row-major. A buffer over a
    pointer variable says where in *pointer*; others are storage of their own or a tensor's."""

    name: str
    dtype: str
    extents: tuple[Expr, ...]
    scope: str = "global"
    tensor: Tensor | None = field(default=None, compare=False)
    pointer: PointerBinding | None = field(default=None, compare=False)

    def __repr__(self) -> str:
        return f"Buffer({self.name})"

    @property
    def type_annotation(self) -> PointerType:
        """TVM's type of the buffer's data variable: a pointer to its elements in its scope."""
        return PointerType(self.dtype, self.scope)

    @property
    def size(self) -> Expr:
        """The number of elements."""
        size = arith.const(1)
        for e in self.extents:
            size = arith.mul(size, e)
        return size


@dataclass(frozen=True, eq=False, repr=False)
class BufferView(Expr):
    """A declared buffer bound to storage: the array a call receives, *shape* elements with
    *strides* (in elements) from element *offset* of *buffer*."""

    buffer: Buffer
    name: str
    shape: tuple[Expr, ...]
    strides: tuple[Expr, ...]
    offset: Expr
    dtype: str = "handle"

    def print_with(self, printer: Any) -> str:
        return self.name


@dataclass(frozen=True, eq=False, repr=False)
class Load(Expr):
    """``B[index]``: one element of a flat buffer.

    *checks* holds ``index, min, extent`` for each logical dimension in turn, so execution can
    report an access outside the realized region in the user's terms; they do not print.
    *checked* marks an access whose index nothing before the run vouches for (one written by
    the user in an extern's body): every target checks it while the kernel runs.
    """

    buffer: Buffer
    index: Expr
    checks: tuple[Expr, ...] = ()
    checked: bool = False

    #: The simplifier leaves the checks as they are: they are evaluated, never printed.
    unsimplified_fields: ClassVar[tuple[str, ...]] = ("checks", "checked")

    def __post_init__(self) -> None:
        if isinstance(self.index, (list, tuple)):  # TVM's BufferLoad(buffer, [i, j]): row-major, or by strides
            object.__setattr__(self, "index", _flat_index(self.buffer, self.index))
        elif not isinstance(self.index, Expr):
            object.__setattr__(self, "index", arith.convert(self.index))

    @property
    def dtype(self) -> str:  # type: ignore[override]
        """The buffer's element type, with the index's lanes (a ramp of indices loads a vector)."""
        n = lanes(self.index.dtype)
        return self.buffer.dtype if n == 1 else with_lanes(self.buffer.dtype, n)

    @property
    def indices(self) -> tuple[Expr, ...]:
        """TVM's indices of a flattened buffer: the one flat index."""
        return (self.index,)

    def print_with(self, printer: Any) -> str:
        return f"{self.buffer.name}[{printer(self.index)}]"


def _flat_index(buffer: Any, indices: Any) -> Expr:
    """The flat element index of *indices* into *buffer* (its strides, else row-major)."""
    shape = tuple(getattr(buffer, "shape", ()))
    if len(indices) != len(shape):
        raise ValueError(f"BufferLoad: {len(indices)} indices for the {len(shape)}-dimensional buffer "
                         f"'{buffer.name}'")
    strides = tuple(getattr(buffer, "strides", ()) or ())
    flat: Expr = arith.const(0)
    for d, i in enumerate(indices):
        i = arith.convert(i)
        flat = arith.add(flat, arith.mul(i, strides[d])) if strides else arith.add(arith.mul(flat, shape[d]), i)
    offset = getattr(buffer, "elem_offset", None)
    return flat if offset is None or arith.value_of(offset) == 0 else arith.add(flat, offset)


def _as_exprs(node: Any, *names: str) -> None:
    """Python numbers given for the expression fields *names* of *node*, as constants (TVM's
    constructors take ``tir.LetStmt(n, 10, body)``)."""
    for name in names:
        value = getattr(node, name)
        if not isinstance(value, Expr) and value is not None:
            object.__setattr__(node, name, arith.convert(value))


@dataclass(frozen=True, eq=False)
class For(Stmt):
    """``for (loop_var, min, extent) body``, of a kind (serial, parallel, vectorized, unrolled, bound)."""

    loop_var: Var
    min: Expr
    extent: Expr
    kind: ForKind
    body: Stmt
    #: TVM's loop annotations, ``(key, value)`` pairs in order (TVMScript's ``annotations=``).
    annotations: tuple[tuple[str, Any], ...] = ()

    def __post_init__(self) -> None:
        _as_exprs(self, "min", "extent")


@dataclass(frozen=True, eq=False)
class Realize(Stmt):
    """The region *bounds* of output *value_index* of *op* exists inside *body*."""

    op: Operation
    value_index: int
    bounds: tuple[Range, ...]
    body: Stmt

    @property
    def producer(self) -> Any:
        """The tensor realized (TVM's ``ProducerRealize.producer``)."""
        return self.op.output(self.value_index)


@dataclass(frozen=True, eq=False)
class ProducerConsumer(Stmt):
    """``produce op { body }`` when *is_producer*; otherwise the body alone (the consumer part)."""

    op: Operation
    is_producer: bool
    body: Stmt


@dataclass(frozen=True, eq=False)
class Provide(Stmt):
    """``T(indices) =value`` on output *value_index* of *op*."""

    op: Operation
    value_index: int
    value: Expr
    indices: tuple[Expr, ...]

    @property
    def producer(self) -> Any:
        """The tensor stored into (TVM's ``ProducerStore.producer``)."""
        return self.op.output(self.value_index)


@dataclass(frozen=True, eq=False)
class Allocate(Stmt):
    """Storage for *buffer* while *body* runs."""

    buffer: Buffer
    body: Stmt

    @property
    def extents(self) -> tuple[Expr, ...]:
        """The allocated shape (TVM's ``Allocate.extents``)."""
        return self.buffer.extents

    @property
    def buffer_var(self) -> Buffer:
        """The buffer allocated, standing for TVM's data variable (``.name``, ``.type_annotation``)."""
        return self.buffer

    @property
    def dtype(self) -> str:
        return self.buffer.dtype


@dataclass(frozen=True, eq=False)
class Store(Stmt):
    """``B[index] = value``; *checks* and *checked* as for :class:`Load`."""

    buffer: Buffer
    value: Expr
    index: Expr
    checks: tuple[Expr, ...] = ()
    checked: bool = False

    @property
    def indices(self) -> tuple[Expr, ...]:
        """TVM's indices of a flattened buffer: the one flat index."""
        return (self.index,)


@dataclass(frozen=True, eq=False)
class AttrStmt(Stmt):
    """``// attr [node] key = value`` annotating *body* (printed at the same indent)."""

    node: Any
    key: str
    value: Expr
    body: Stmt

    @property
    def attr_key(self) -> str:
        """The key, by TVM's name."""
        return self.key


@dataclass(frozen=True, eq=False)
class Prefetch(Stmt):
    """A hint that the elements of *tensor* in the box *bounds* will be read soon."""

    tensor: Tensor
    bounds: tuple[Range, ...]


@dataclass(frozen=True, eq=False)
class BufferBind:
    """A declared buffer standing for a region of a tensor: the node of a ``buffer_bind_scope``
    attribute, whose value is ``tvm_tuple(min0, extent0, min1, extent1, ...)``."""

    buffer: Any  # a schedule.ir.buffer.DeclBuffer
    tensor: Tensor

    @property
    def name(self) -> str:
        return f"[buffer({self.buffer.name}), {self.tensor.name}]"


@dataclass(frozen=True, eq=False)
class IfThenElse(Stmt):
    """``if (condition) then_case else else_case``."""

    condition: Expr
    then_case: Stmt
    else_case: Stmt | None = None

    def __post_init__(self) -> None:
        _as_exprs(self, "condition")


@dataclass(frozen=True, eq=False)
class While(Stmt):
    """``while (condition) { body }`` (an ir_builder's ``while_loop``)."""

    condition: Expr
    body: Stmt


@dataclass(frozen=True, eq=False)
class DeclStore(Stmt):
    """``B[index] = value`` into a declared buffer of an extern, at a flat element index of its
    tensor's storage; storage flattening turns it into a :class:`Store`."""

    buffer: Any  # a schedule.ir.buffer.DeclBuffer
    value: Expr
    index: Expr

    @property
    def indices(self) -> tuple[Expr, ...]:
        """TVM's indices of a flattened buffer: the one flat index."""
        return (self.index,)


@dataclass(frozen=True, eq=False)
class LetStmt(Stmt):
    """*var* bound to *value* in *body*."""

    var: Var
    value: Expr
    body: Stmt

    def __post_init__(self) -> None:
        _as_exprs(self, "value")


@dataclass(frozen=True, eq=False)
class SeqStmt(Stmt):
    """Statements run in order."""

    seq: tuple[Stmt, ...]

    def __getitem__(self, i: int) -> Stmt:
        """The *i*-th statement (TVM's ``seq[i]``)."""
        return self.seq[i]

    def __len__(self) -> int:
        return len(self.seq)


@dataclass(frozen=True, eq=False)
class Evaluate(Stmt):
    """*value* computed for its effect (a call)."""

    value: Expr

    def __post_init__(self) -> None:
        _as_exprs(self, "value")


@dataclass(frozen=True, eq=False)
class AssertStmt(Stmt):
    """``assert(condition, message)``: the call fails with *message* (an AssertionError on every
    target) where *condition* does not hold."""

    condition: Expr
    message: str


def seq_items(*stmts: Stmt) -> list[Stmt]:
    """The statements in order, sequences inside sequences spliced, at any depth (on an
    explicit stack); nothing else is dropped."""
    out: list[Stmt] = []
    stack = list(reversed(stmts))
    while stack:
        x = stack.pop()
        if isinstance(x, SeqStmt):
            stack.extend(reversed(x.seq))
        else:
            out.append(x)
    return out


def seq(*stmts: Stmt | None) -> Stmt:
    """The statements in order, nested sequences flattened and no-ops dropped."""
    flat: list[Stmt] = []
    for s in stmts:
        if s is None or is_no_op(s):
            continue
        flat.extend(s.seq if isinstance(s, SeqStmt) else (s,))
    if len(flat) == 1:
        return flat[0]
    return SeqStmt(tuple(flat))


def is_no_op(s: Stmt) -> bool:
    """An empty sequence or the evaluation of a constant."""
    from schedule.ir.expr import FloatImm, IntImm

    if isinstance(s, SeqStmt):
        return all(is_no_op(x) for x in s.seq)
    return isinstance(s, Evaluate) and isinstance(s.value, (IntImm, FloatImm))


NO_OP = SeqStmt(())
