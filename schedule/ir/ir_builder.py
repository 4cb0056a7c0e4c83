"""The IR builder (``te.ir_builder.create()``), as TVM's: statements emitted one after the other,
and ``with`` scopes for loops, conditions, ``while`` loops and attributes.

A builder that only emitted calls gives :class:`Emitted` (a tensor intrinsic's body, reset or
update); one with scopes, loads, stores or allocations gives a body statement
(:mod:`schedule.ir.extern_stmt`) for ``te.extern``. Elements are reached through
:meth:`IRBuilder.buffer_ptr` (a declared buffer of the extern) or :meth:`IRBuilder.allocate`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from schedule.base.checks import check_name
from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir import arith
from schedule.ir.buffer import DeclBuffer, decl_buffer
from schedule.ir.dtype import check_dtype
from schedule.ir.expr import Call, Expr, StringImm, Var
from schedule.ir.extern_stmt import (
    LOOP_KINDS,
    Alloc,
    Attr,
    Block,
    BodyStmt,
    Branch,
    ElemLoad,
    ElemStore,
    Eval,
    Let,
    Loop,
    WhileLoop,
)
from schedule.ir.itervar import IterVar


@dataclass(frozen=True)
class Emitted:
    """Expressions evaluated in order for their effect (calls into external functions)."""

    calls: tuple[Expr, ...]


#: A scope opened by ``let``, ``allocate`` or ``scope_attr``: wraps the rest of its block.
_Wrap = Callable[[BodyStmt], BodyStmt]


class BufferVar:
    """Element access to a buffer: ``x[i]`` loads and ``x[i] = v`` stores at the flat element
    index *i*; with a shape, ``x[i, j]`` is the row-major element ``(i, j)`` of that shape."""

    def __init__(self, builder: IRBuilder, buffer: DeclBuffer, shape: tuple[Expr, ...] | None) -> None:
        self._builder = builder
        self._buffer = buffer
        self._shape = shape

    @property
    def dtype(self) -> str:
        return self._buffer.dtype

    @property
    def buffer(self) -> DeclBuffer:
        return self._buffer

    def asobject(self) -> DeclBuffer:
        """The buffer behind the access (TVM's ``BufferVar.asobject``)."""
        return self._buffer

    def _index(self, index: Any) -> Expr:
        where = f"ir_builder: buffer '{self._buffer.name}'"
        if isinstance(index, tuple):
            if self._shape is None or len(index) != len(self._shape):
                dims = "no shape" if self._shape is None else f"{len(self._shape)} dimensions"
                raise ScheduleTypeError(f"{where} has {dims}; it was indexed with {len(index)} indices")
            flat: Expr = arith.const(0)
            for i, d in zip(index, self._shape):
                flat = arith.add(arith.mul(flat, d), _as_index(i, where))
            return flat
        return _as_index(index, where)

    def __getitem__(self, index: Any) -> Expr:
        return ElemLoad(self._buffer, self._index(index), self._buffer.dtype)

    def __setitem__(self, index: Any, value: Any) -> None:
        where = f"ir_builder: store into buffer '{self._buffer.name}'"
        flat = self._index(index)
        self._builder.emit(ElemStore(self._buffer, _as_value(value, self._buffer.dtype, where), flat))

    def __repr__(self) -> str:
        return f"BufferVar({self._buffer.name})"


def _as_index(value: Any, where: str) -> Expr:
    try:
        return arith.as_index(value, f"{where}: index")
    except TypeError as err:
        raise ScheduleTypeError(str(err)) from None


def _as_value(value: Any, dtype: str, where: str) -> Expr:
    """*value* as an expression of *dtype*: a Python number takes the dtype; an expression must
    have it already (as TVM requires)."""
    if isinstance(value, (bool, int, float)):
        return arith.const(value, dtype)
    try:
        e = arith.convert(value)
    except TypeError as err:
        raise ScheduleTypeError(f"{where}: {err}") from None
    if e.dtype != dtype:
        raise ScheduleTypeError(f"{where}: the value is {e.dtype}, the buffer holds {dtype}; cast it "
                                f"with .astype('{dtype}')")
    return e


class IRBuilder:
    """Collects statements: ``ib.emit(...)``, ``with ib.for_range(...) as i:``, then ``ib.get()``."""

    def __init__(self) -> None:
        self._blocks: list[list[BodyStmt | _Wrap]] = [[]]
        self._names = 0
        self._only_calls = True

    # -- statements --------------------------------------------------------------------------
    def emit(self, value: Any) -> None:
        """Append a statement, a call (evaluated for its effect) or ``ib.get()`` of another builder;
        a function of one statement wraps the rest of the block (``lambda body: LetStmt(v, x, body)``)."""
        if isinstance(value, Emitted):
            self._blocks[-1].extend(Eval(c) for c in value.calls)
            return
        if isinstance(value, BodyStmt):
            self._only_calls = False
            self._blocks[-1].append(value)
            return
        if callable(value) and not isinstance(value, Expr):  # TVM's ib.emit(lambda body: LetStmt(v, x, body))
            self._open(value)
            return
        try:
            e = arith.convert(value)
        except TypeError as err:
            raise ScheduleTypeError(f"ir_builder.emit: expected a call or a statement: {err}") from None
        self._blocks[-1].append(Eval(e))

    def _open(self, wrap: _Wrap) -> None:
        self._only_calls = False
        self._blocks[-1].append(wrap)

    @contextmanager
    def _scope(self, close: Callable[[BodyStmt], BodyStmt], value: Any = None) -> Iterator[Any]:
        self._only_calls = False
        self._blocks.append([])
        yield value
        self.emit(close(self._pop_block()))

    def _pop_block(self) -> BodyStmt:
        """The innermost block as one statement; a wrapper takes everything after it."""
        items = self._blocks.pop()
        rest: list[BodyStmt] = []
        for item in reversed(items):
            if isinstance(item, BodyStmt):
                rest.append(item)
            else:
                rest = [item(_block(rest[::-1]))]
        return _block(rest[::-1])

    def for_range(self, begin: Any, end: Any, name: str = "i", dtype: str | None = None,
                  kind: str = "serial") -> Any:
        """A loop over ``[begin, end)``; ``with ib.for_range(0, n) as i:``. Unnamed loops are
        named i, j, k, then i_0, i_1 ... as TVM names them. The variable is int64 when either
        bound is, else int32, unless *dtype* says."""
        check_name("ir_builder.for_range", name)
        if kind not in LOOP_KINDS:
            raise ScheduleError(f"ir_builder.for_range: kind must be one of {', '.join(LOOP_KINDS)}, not {kind!r}")
        if name == "i":
            name = "ijk"[self._names] if self._names < 3 else f"i_{self._names - 3}"
            self._names += 1
        lo = _as_index(begin, "ir_builder.for_range: begin")
        hi = _as_index(end, "ir_builder.for_range: end")
        if dtype is None:
            dtype = "int64" if "int64" in (lo.dtype, hi.dtype) else "int32"
        var = Var(name, check_dtype(dtype))
        extent = hi if arith.value_of(lo) == 0 else arith.sub(hi, lo)
        if lo.dtype != var.dtype:
            lo = arith.cast(var.dtype, lo)
        if extent.dtype != var.dtype:
            extent = arith.cast(var.dtype, extent)
        return self._scope(lambda body: Loop(var, lo, extent, kind, body), var)

    def while_loop(self, condition: Any) -> Any:
        """A loop that runs while *condition* holds; ``with ib.while_loop(x[0] < 10):``."""
        cond = _as_condition(condition, "ir_builder.while_loop")
        return self._scope(lambda body: WhileLoop(cond, body))

    def if_scope(self, condition: Any) -> Any:
        """Statements that run when *condition* holds; ``with ib.if_scope(i < n):``."""
        cond = _as_condition(condition, "ir_builder.if_scope")
        return self._scope(lambda body: Branch(cond, body))

    def else_scope(self) -> Any:
        """The other branch of the ``if_scope`` just closed."""
        block = self._blocks[-1]
        prev = block[-1] if block else None
        if not isinstance(prev, Branch) or prev.else_case is not None:
            raise ScheduleError("ir_builder.else_scope can only follow an if_scope")
        block.pop()
        return self._scope(lambda body: Branch(prev.condition, prev.then_case, body))

    def new_scope(self) -> Any:
        """A nested block, which ends the attributes and allocations opened inside it."""
        return self._scope(lambda body: body)

    def let(self, var_name: str, value: Any) -> Var:
        """A variable bound to *value* for the rest of the block."""
        check_name("ir_builder.let", var_name)
        try:
            e = arith.convert(value)
        except TypeError as err:
            raise ScheduleTypeError(f"ir_builder.let '{var_name}': {err}") from None
        var = Var(var_name, e.dtype)
        self._open(lambda body: Let(var, e, body))
        return var

    def scope_attr(self, node: Any, attr_key: str, value: Any) -> None:
        """An attribute of the rest of the block: ``scope_attr(tx, "thread_extent", n)`` binds
        the thread axis *tx* (``te.thread_axis``) over ``[0, n)``."""
        check_name("ir_builder.scope_attr", attr_key)
        if isinstance(node, str):
            node = StringImm(node)
        if isinstance(value, str):
            value = StringImm(value)
        try:
            v = arith.convert(value)
        except TypeError as err:
            raise ScheduleTypeError(f"ir_builder.scope_attr '{attr_key}': {err}") from None
        if attr_key in ("thread_extent", "virtual_thread"):
            if not isinstance(node, IterVar) or not node.thread_tag:
                raise ScheduleTypeError(f"ir_builder.scope_attr '{attr_key}': the node must be a thread axis "
                                        f"(te.thread_axis('threadIdx.x')), not {type(node).__name__}")
            v = arith.max_expr(arith.const(1, v.dtype), v) if arith.value_of(v) is None else v
        self._open(lambda body: Attr(node, attr_key, v, body))

    def allocate(self, dtype: str, shape: Any, name: str = "buf", scope: str = "") -> BufferVar:
        """A buffer of *shape* for the rest of the block (*scope*: ``""``/``"global"``,
        ``"shared"``, ``"local"``); its elements start undefined."""
        check_name("ir_builder.allocate", name)
        dims = shape if isinstance(shape, (list, tuple)) else (shape,)
        try:
            buf = decl_buffer(tuple(dims), check_dtype(dtype), name, scope=scope or "global")
        except TypeError as err:
            raise ScheduleTypeError(f"ir_builder.allocate '{name}': {err}") from None
        self._open(lambda body: Alloc(buf, body))
        return BufferVar(self, buf, buf.shape)

    def buffer_ptr(self, buf: Any, shape: Any = None) -> BufferVar:
        """Element access to the declared buffer *buf* (an extern's input or output buffer)."""
        if not isinstance(buf, DeclBuffer):
            raise ScheduleTypeError(f"ir_builder.buffer_ptr: expected a declared buffer (an argument of "
                                    f"te.extern's fcompute), not {type(buf).__name__}")
        dims = buf.shape if shape is None else tuple(
            _as_index(d, "ir_builder.buffer_ptr: shape") for d in (shape if isinstance(shape, (list, tuple))
                                                                  else (shape,)))
        return BufferVar(self, buf, dims)

    def pointer(self, content_type: str, name: str = "ptr", scope: str = "") -> BufferVar:
        """A pointer to *content_type* elements (TVM's handle variable): element access at flat
        indices into memory of unknown extent, for statements built by hand and passed to the
        passes (``tir.PrimFunc([ptr, ...], ib.get())``)."""
        check_name("ir_builder.pointer", name)
        try:
            buf = decl_buffer((Var(f"{name}_extent"),), check_dtype(content_type), name, scope=scope or "global")
        except (TypeError, ValueError) as err:
            raise type(err)(f"ir_builder.pointer '{name}': {err}") from None
        return BufferVar(self, buf, None)

    def likely(self, expr: Any) -> Expr:
        """*expr*, marked as likely to hold."""
        e = _as_condition(expr, "ir_builder.likely")
        return Call(e.dtype, "likely", (e,))

    def get(self) -> Emitted | BodyStmt:
        """The statement built: :class:`Emitted` when only calls were emitted."""
        if len(self._blocks) != 1:
            raise ScheduleError("ir_builder.get: cannot be called inside a with-scope of the builder")
        if self._only_calls:
            return Emitted(tuple(s.value for s in self._blocks[0]))  # type: ignore[union-attr]
        items = list(self._blocks[0])
        self._blocks.append(items)
        body = self._pop_block()
        return body

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        raise ScheduleTypeError(f"ir_builder: '{name}' is not supported")


def _block(items: list[BodyStmt]) -> BodyStmt:
    return items[0] if len(items) == 1 else Block(tuple(items))


def _as_condition(value: Any, where: str) -> Expr:
    try:
        e = arith.convert(value)
    except TypeError as err:
        raise ScheduleTypeError(f"{where}: {err}") from None
    if e.dtype != "bool":
        raise ScheduleTypeError(f"{where}: the condition must be a boolean expression, not {e.dtype}")
    return e


def create() -> IRBuilder:
    """A new builder."""
    return IRBuilder()


def as_emitted(where: str, value: Any) -> Emitted | None:
    """*value* (None, a call, or a builder's statement) as a sequence of calls."""
    if value is None or isinstance(value, Emitted):
        return value
    if isinstance(value, BodyStmt):
        raise ScheduleTypeError(f"{where}: a tensor intrinsic's statement is a sequence of calls (ib.emit); "
                                "loops, conditions and buffer accesses belong in te.extern")
    try:
        return Emitted((arith.convert(value),))
    except TypeError:
        raise ScheduleTypeError(f"{where}: expected a call expression or ir_builder.get(), not "
                                f"{type(value).__name__}") from None
