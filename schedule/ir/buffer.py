"""Declared buffers (``te.decl_buffer``): how an extern call sees a tensor's storage.

A buffer has a shape, optional strides (compact row-major when none are given), an element
offset and an offset factor, as TVM's ``tir.Buffer``. Passed to ``call_packed`` it becomes a
:class:`BufferArg`; lowering binds it to the tensor it stands for, and a call receives the
NumPy view the declaration describes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schedule.base.checks import check_name
from schedule.base.errors import ScheduleTypeError
from schedule.base.packed import get_global_func, register_func
from schedule.ir import arith
from schedule.ir.dtype import check_dtype
from schedule.ir.expr import Call, Expr, IntImm, Ramp, StringImm, Var, _node
from schedule.ir.extern_stmt import ElemLoad, ElemStore

_counter = [0]


@dataclass(frozen=True, eq=False)
class DeclBuffer:
    """A buffer declaration; compared by identity."""

    name: str
    dtype: str
    shape: tuple[Expr, ...]
    strides: tuple[Expr, ...]  # empty: compact row-major
    elem_offset: Expr
    scope: str = ""
    data_alignment: int = -1
    offset_factor: int = 0

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def data(self) -> DeclBuffer:
        """The buffer's data, as TVM's ``buf.data``: passed to a call, the same array."""
        return self

    def __repr__(self) -> str:
        return f"buffer({self.name})"

    def offset_of(self, indices: Any) -> list[Expr]:
        """The flat element index of *indices* in the buffer's storage, ``elem_offset`` included,
        as a list of one expression (TVM's, one per group of axes; ours have one group)."""
        where = f"offset_of of buffer '{self.name}'"
        index = [arith.as_index(i, f"{where}: index") for i in _as_tuple(indices)]
        if len(index) != len(self.shape):
            raise ScheduleTypeError(f"{where}: {len(index)} indices for {len(self.shape)} dimensions")
        flat: Expr = self.elem_offset
        if self.strides:
            for i, step in zip(index, self.strides):
                flat = arith.add(flat, arith.mul(i, step))
        else:
            inner: Expr = arith.const(0)
            for i, d in zip(index, self.shape):
                inner = arith.add(arith.mul(inner, d), i)
            flat = arith.add(flat, inner)
        return [flat]

    def _element(self, begin: Any, dtype: str | None, where: str) -> tuple[Expr, str]:
        """The index and dtype of a load or store of *dtype* (a vector dtype: its lanes, in a row)
        at *begin*; an element offset that is a variable is bound where the storage starts."""
        lanes_dtype = check_dtype(dtype or self.dtype)
        scalar, _, lanes = lanes_dtype.partition("x")
        if scalar != self.dtype:
            raise ScheduleTypeError(f"{where}: the buffer holds {self.dtype}, not {scalar}")
        flat = self.offset_of(begin)[0]
        if not isinstance(self.elem_offset, IntImm):
            flat = arith.sub(flat, self.elem_offset)
        return (Ramp(flat, arith.const(1, flat.dtype), int(lanes)) if lanes else flat), lanes_dtype

    def vload(self, begin: Any, dtype: str | None = None) -> Expr:
        """The element at *begin* (a vector *dtype* such as ``"float32x4"``: that many elements
        from it on), for an ir_builder body."""
        index, dtype = self._element(begin, dtype, f"vload of buffer '{self.name}'")
        return ElemLoad(self, index, dtype)

    def vstore(self, begin: Any, value: Any) -> ElemStore:
        """The statement storing *value* at *begin* (a vector: its lanes from *begin* on); emit it
        with ``ib.emit``."""
        where = f"vstore of buffer '{self.name}'"
        try:
            e = arith.convert(value)
        except TypeError as err:
            raise ScheduleTypeError(f"{where}: {err}") from None
        index, _ = self._element(begin, e.dtype, where)
        return ElemStore(self, e, index)

    #: TVM's access masks: ``Buffer.READ | Buffer.WRITE`` reads and writes.
    READ = 1
    WRITE = 2

    def access_ptr(self, access_mask: Any, ptr_type: str = "handle", content_lanes: int = 1,
                   offset: Any = 0, extent: Any = None) -> Expr:
        """A pointer to the buffer's data from element *offset* on, for an external call that
        reads (``"r"``), writes (``"w"``) or both (``"rw"``); the call receives a flat array of
        the *extent* elements the pointer reaches (by default, to the end of the buffer). As
        TVM's, the call is ``tvm_access_ptr(type_annotation(dtype), data, offset, extent, mask)``;
        its offset is counted from the buffer's first element (lowering adds ``elem_offset``)."""
        mask = _access_mask(self.name, access_mask)
        start = arith.as_index(offset, f"access_ptr of buffer '{self.name}': offset")
        if extent is None:
            if self.strides:
                whole = arith.mul(self.strides[0], self.shape[0]) if self.shape else arith.const(1)
            else:
                whole = self.shape[0] if self.shape else arith.const(1)
                for d in self.shape[1:]:
                    whole = arith.mul(whole, d)
            extent = whole if arith.value_of(start) == 0 else arith.sub(whole, start)
        size = arith.as_index(extent, f"access_ptr of buffer '{self.name}': extent")
        return Call("handle", "tvm_access_ptr", (Call(self.dtype, "type_annotation", ()), BufferArg(self), start, size,
                                                 arith.const(mask)))


@_node
class BufferArg(Expr):
    """A buffer passed to a call (``call_packed("f", A_buf)``)."""

    buffer: DeclBuffer
    dtype: str = "handle"


def decl_buffer(shape: Any, dtype: str = "float32", name: str = "buffer", data: Any = None,
                strides: Any = None, elem_offset: Any = None, scope: str = "", data_alignment: int = -1,
                offset_factor: int = 0) -> DeclBuffer:
    """A buffer of *shape*; ``elem_offset`` defaults to 0, or to a new variable when
    ``offset_factor`` is given (the offset is then a multiple of it, known at call time)."""
    check_name("decl_buffer", name)
    if data is not None:
        raise ScheduleTypeError(f"decl_buffer '{name}': data= (a buffer's own data pointer) is not "
                                "supported; the buffer is bound to a tensor's storage")
    dims = tuple(arith.as_index(s, f"decl_buffer '{name}': shape") for s in _as_tuple(shape))
    steps = tuple(arith.as_index(s, f"decl_buffer '{name}': strides") for s in _as_tuple(strides or ()))
    if steps and len(steps) != len(dims):
        raise ScheduleTypeError(f"decl_buffer '{name}': {len(steps)} strides for {len(dims)} dimensions")
    if elem_offset is None:
        elem_offset = Var(f"{name}_elem_offset") if offset_factor else arith.const(0)
    offset = arith.as_index(elem_offset, f"decl_buffer '{name}': elem_offset")
    return DeclBuffer(name, check_dtype(dtype), dims, steps, offset, scope, data_alignment, offset_factor)


def _access_mask(name: str, mask: Any) -> int:
    """TVM's access mask: 1 reads, 2 writes."""
    if isinstance(mask, str) and mask and set(mask) <= {"r", "w"}:
        return ("r" in mask) * 1 + ("w" in mask) * 2
    if isinstance(mask, int) and not isinstance(mask, bool) and 1 <= mask <= 3:
        return mask
    raise ScheduleTypeError(f"access_ptr of buffer '{name}': the access mask is 'r', 'w' or 'rw' "
                            f"(or 1, 2, 3), not {mask!r}")


def _as_tuple(x: Any) -> tuple:
    return tuple(x) if isinstance(x, (list, tuple)) else (x,)


def call_packed(name: str, *args: Any) -> Expr:
    """A call of the function registered as *name* (``te.register_func``); buffers are passed
    as NumPy arrays, other arguments as numbers."""
    check_name("call_packed", name)
    converted = []
    for k, a in enumerate(args):
        if isinstance(a, DeclBuffer):
            converted.append(BufferArg(a))
            continue
        try:
            converted.append(arith.convert(a))
        except TypeError as err:
            raise ScheduleTypeError(f"call_packed '{name}': argument {k}: {err}") from None
    return Call("int32", "tvm_call_packed", (StringImm(name), *converted))


#: The trace action ``trace`` calls unless told another: it prints the traced values.
DEFAULT_TRACE_ACTION = "tvm.default_trace_action"


def trace(args: Any, trace_action: str = DEFAULT_TRACE_ACTION) -> Expr:
    """The last of *args* (the traced value), passed with the others to the function registered
    as *trace_action* each time the kernel computes it: a value the action returns replaces it
    (TVM's ``tir.trace``); an action that returns nothing leaves it.

    :raises TypeError: for *args* that are not a non-empty list.
    """
    if not isinstance(args, list) or not args:
        raise ScheduleTypeError(f"trace takes its values as a non-empty list, the traced one last, not {args!r}")
    if trace_action == DEFAULT_TRACE_ACTION and get_global_func(trace_action, allow_missing=True) is None:
        register_func(trace_action, _print_trace)
    packed = call_packed(trace_action, *args)
    return Call(packed.args[-1].dtype, "tvm_call_trace_packed", packed.args)


def _print_trace(*args: Any) -> None:
    print(list(args))
