"""A hand-built ``tir.PrimFunc`` (``PrimFunc([A_buf, B_buf, n], ib.get())``) as a lowered function
that builds: each parameter buffer becomes an argument array of its shape and dtype (compact,
as TVMScript's arguments are), each scalar parameter a scalar argument; the body's loads and
stores of those buffers become flat ones, checked while the kernel runs (the body's indices
are the user's), and a buffer passed to a call becomes a view of its argument's storage."""

from __future__ import annotations

from typing import Any

from lower.ir.stmt import Buffer, BufferView, DeclStore, Load, Stmt, Store
from lower.ir.stmt_functor import StmtMutator
from lower.lower import LoweredFunc
from schedule import arith
from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir.buffer import BufferArg, DeclBuffer
from schedule.ir.expr import Call, Expr, StringImm, Var
from schedule.ir.extern_stmt import ElemLoad
from schedule.ir.functor import ExprMutator
from schedule.ir.ir_builder import BufferVar
from schedule.operation.placeholder import placeholder


def lowered_from_prim_func(func: Any) -> LoweredFunc:
    """The lowered function of *func* (see the module), named by its ``global_symbol``.

    :raises ScheduleTypeError: for a parameter that is neither a declared buffer (``ib.pointer``'s
        is a 1-d array of any length) nor a scalar variable: a bare handle.
    :raises ScheduleError: for a parameter buffer of another layout than a compact array.
    """
    args: list[Any] = []
    buffers: dict[Any, Buffer] = {}
    flat: dict[DeclBuffer, Buffer] = {}
    for p in func.params:
        if isinstance(p, BufferVar):  # ib.pointer(...): a 1-d array, its length the pointer's extent
            p = p.asobject()
        if isinstance(p, DeclBuffer):
            _check_compact(p)
            tensor = placeholder(p.shape, p.dtype, name=p.name)
            size: Expr = arith.const(1)
            for d in p.shape:
                size = arith.mul(size, d)
            buf = Buffer(p.name, p.dtype, tuple(tensor.shape), "global", tensor)
            buffers[tensor], flat[p] = buf, buf
            args.append(tensor)
        elif isinstance(p, Var) and not p.dtype.startswith("handle"):
            args.append(p)
        else:
            raise ScheduleTypeError(f"build: the PrimFunc parameter {p!r} is a bare handle, which no array binds; "
                                    f"declare a buffer (tvm.tir.decl_buffer, or ib.pointer) and pass it instead")
    body = _Bound(flat)(func.body)
    out = LoweredFunc(args, buffers, body, exact=False)
    symbol = getattr(func, "attrs", {}).get("global_symbol")
    out.name = symbol.value if isinstance(symbol, StringImm) else symbol if isinstance(symbol, str) else "main"
    out.attrs = dict(getattr(func, "attrs", {}))  # type: ignore[attr-defined]
    return out


def _check_compact(p: DeclBuffer) -> None:
    offset = arith.value_of(p.elem_offset) if p.elem_offset is not None else 0
    strides = [arith.value_of(s) for s in p.strides] if p.strides else []
    compact: list[Any] = []
    step: Any = 1
    for d in reversed(p.shape):
        compact.insert(0, step)
        value = arith.value_of(d)
        step = step * value if value is not None and step is not None else None
    if offset not in (0, None) or (strides and strides != compact):
        raise ScheduleError(f"build: the PrimFunc parameter buffer '{p.name}' has strides {p.strides} or element "
                            f"offset {p.elem_offset}; a parameter is a compact array (declare other layouts in "
                            f"te.extern's in_buffers)")


class _Bound(StmtMutator):
    """Loads and stores of the parameter buffers as flat ones."""

    def __init__(self, flat: dict[DeclBuffer, Buffer]) -> None:
        self.flat = flat
        self.exprs = _Reads(flat)

    def visit_decl_store(self, s: DeclStore) -> Stmt:
        buf = self.flat.get(s.buffer)
        if buf is None:
            raise ScheduleError(f"build: buffer '{s.buffer.name}' is written but is no parameter of the PrimFunc")
        index = self.mutate_expr(s.index)
        return Store(buf, self.mutate_expr(s.value), index, _checks(buf, index), checked=True)

    def mutate_expr(self, e: Expr) -> Expr:
        return self.exprs(e)


class _Reads(ExprMutator):
    def __init__(self, flat: dict[DeclBuffer, Buffer]) -> None:
        self.flat = flat

    def visit_elem_load(self, e: ElemLoad) -> Expr:
        buf = self.flat.get(e.buffer)
        if buf is None:
            raise ScheduleError(f"build: buffer '{e.buffer.name}' is read but is no parameter of the PrimFunc")
        index = self(e.index)
        return Load(buf, index, _checks(buf, index), checked=True)

    def visit_buffer_arg(self, e: BufferArg) -> Expr:
        buf = self.flat.get(e.buffer)
        if buf is None:
            raise ScheduleError(f"build: buffer '{e.buffer.name}' is passed to a call but is no parameter of the "
                                f"PrimFunc")
        strides: list[Expr] = []
        step: Expr = arith.const(1)
        for d in reversed(e.buffer.shape):
            strides.insert(0, step)
            step = arith.mul(step, d)
        return BufferView(buf, e.buffer.name, tuple(e.buffer.shape), tuple(strides), arith.const(0))

    def visit_call(self, e: Call) -> Expr:
        if e.name != "tvm_access_ptr":
            return self.visit_default(e)
        kind, arg, offset, extent, mask = (self(a) for a in e.args)
        if not isinstance(arg, BufferView):
            return Call(e.dtype, e.name, (kind, arg, offset, extent, mask))
        view = BufferView(arg.buffer, arg.name, (extent,), (arith.const(1),), offset)
        return Call("handle", "tvm_access_ptr", (StringImm(arg.buffer.dtype), view, offset, extent, mask))


def _checks(buf: Buffer, index: Expr) -> tuple[Expr, ...]:
    size: Expr = arith.const(1)
    for d in buf.extents:
        size = arith.mul(size, d)
    return (index, arith.const(0, index.dtype), size)
