"""Tensors and the operations that produce them (placeholder, compute, extern)."""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from schedule import arith
from schedule.buffer import DeclBuffer, decl_buffer
from schedule.checks import check_name
from schedule.dtype import check_dtype
from schedule.errors import ScheduleError, ScheduleTypeError
from schedule.expr import Expr, IntImm, ProducerLoad, Reduce, Var
from schedule.expr_like import ExprLike
from schedule.extern_stmt import Block, BodyStmt, Eval, check_body
from schedule.functor import ExprMutator, children, post_order_visit, structural_equal
from schedule.ir_builder import Emitted
from schedule.itervar import REDUCE_VARS, IterVar, IterVarType, Range
from schedule.op_attrs import AttrMap, attr_map
from schedule.tag import current_tag

_node = dataclass(frozen=True, eq=False, repr=False)


@_node
class Tensor:
    """Output *value_index* of operation *op*; ``A[i, j]`` reads one element.

    Two tensors are equal when they are the same output of the same operation.
    """

    op: Operation
    value_index: int = 0

    @property
    def shape(self) -> tuple[Expr, ...]:
        return self.op.output_shape(self.value_index)

    @property
    def dtype(self) -> str:
        return self.op.output_dtype(self.value_index)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def name(self) -> str:
        if self.op.num_outputs == 1:
            return self.op.name
        return f"{self.op.name}.v{self.value_index}"

    def __getitem__(self, indices: Any) -> Expr:
        if isinstance(indices, slice) or (
                isinstance(indices, tuple) and any(isinstance(i, slice) for i in indices)):
            from schedule.tensor_compute import region  # a slice is only a tensor intrinsic's argument

            return region(self, indices if isinstance(indices, tuple) else (indices,))  # type: ignore[return-value]
        if not isinstance(indices, tuple):
            indices = (indices,)
        if 0 < len(indices) < self.ndim:
            return TensorSlice(self, indices)  # type: ignore[return-value]
        return self(*indices)

    def __call__(self, *indices: Any) -> Expr:
        if len(indices) != self.ndim:
            raise ScheduleError(f"tensor '{self.name}' has {self.ndim} dimensions but was indexed "
                                f"with {len(indices)} indices")
        exprs = []
        for k, idx in enumerate(indices):
            try:
                exprs.append(arith.as_index(idx, f"tensor '{self.name}', index {k}"))
            except TypeError as err:
                raise ScheduleTypeError(str(err)) from None
        return ProducerLoad(self, tuple(exprs))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Tensor):
            return NotImplemented
        return self.op is other.op and self.value_index == other.value_index

    def __iter__(self) -> Any:
        # Without this, iteration would go through __getitem__ forever.
        raise TypeError(f"tensor '{self.name}' is not iterable; index it (such as {self.name}[i]) or "
                        "use its .shape")

    def __hash__(self) -> int:
        return hash((id(self.op), self.value_index))

    # -- whole-tensor arithmetic (schedule.tensor_ops): a new compute, as TVM's overloads --
    defers_arithmetic = True  # an expression's operator gives way to these
    __array_ufunc__ = None  # and so does NumPy's

    def __add__(self, other: Any) -> Any: return _binary("add", self, other)
    def __radd__(self, other: Any) -> Any: return _binary("add", other, self)
    def __sub__(self, other: Any) -> Any: return _binary("sub", self, other)
    def __rsub__(self, other: Any) -> Any: return _binary("sub", other, self)
    def __mul__(self, other: Any) -> Any: return _binary("mul", self, other)
    def __rmul__(self, other: Any) -> Any: return _binary("mul", other, self)
    def __truediv__(self, other: Any) -> Any: return _binary("truediv", self, other)
    def __rtruediv__(self, other: Any) -> Any: return _binary("truediv", other, self)
    def __floordiv__(self, other: Any) -> Any: return _binary("floordiv", self, other)
    def __rfloordiv__(self, other: Any) -> Any: return _binary("floordiv", other, self)
    def __mod__(self, other: Any) -> Any: return _binary("mod", self, other)
    def __rmod__(self, other: Any) -> Any: return _binary("mod", other, self)

    def __repr__(self) -> str:
        return f"Tensor(shape=[{', '.join(map(str, self.shape))}], op.name={self.op.name})"


def _binary(kind: str, a: Any, b: Any) -> Any:
    from schedule.tensor_ops import tensor_binary  # it builds computes with this module

    return tensor_binary(kind, a, b)


class TensorSlice(ExprLike):
    """``A[i]`` of a multi-dimensional tensor: index it further (``A[i][j]``) to read an element."""

    def __init__(self, tensor: Tensor, indices: tuple[Any, ...]) -> None:
        self.tensor, self.indices = tensor, indices

    def __getitem__(self, more: Any) -> Any:
        return self.tensor[(*self.indices, *(more if isinstance(more, tuple) else (more,)))]

    def as_expr(self) -> Expr:
        return self.tensor(*self.indices)


class Operation:
    """Base of operations: immutable, hashed and compared by identity."""

    name: str
    tag: str

    @property
    def num_outputs(self) -> int:
        return 1

    def output(self, index: int) -> Tensor:
        if not 0 <= index < self.num_outputs:
            raise IndexError(f"operation '{self.name}' has {self.num_outputs} outputs, not {index + 1}")
        return Tensor(self, index)

    @property
    def root_iter_vars(self) -> list[IterVar]:
        return []

    @property
    def input_tensors(self) -> list[Tensor]:
        return []

    def output_shape(self, index: int) -> tuple[Expr, ...]:
        raise NotImplementedError

    def output_dtype(self, index: int) -> str:
        raise NotImplementedError

    def replace_inputs(self, vmap: Mapping[Tensor, Tensor]) -> Operation:
        """This operation reading ``vmap[t]`` instead of each input ``t``; itself if none changes."""
        return self

    def bindings(self) -> dict[DeclBuffer, Tensor]:
        """The tensor each buffer this operation declares stands for (an extern's inputs and outputs)."""
        return {}

    def step_operations(self) -> list[Operation]:
        """The operations computed inside this one's loops at each of its steps (a scan's body)."""
        return []

    def aliases(self) -> dict[Tensor, Tensor]:
        """Tensors stored in this operation's outputs rather than in storage of their own."""
        return {}

    def __repr__(self) -> str:
        return f"{self.kind}({self.name}, {id(self):#x})"

    @property
    def kind(self) -> str:
        return type(self).__name__.removesuffix("Op").lower()


@_node
class PlaceholderOp(Operation):
    """An input tensor of the program."""

    name: str
    shape: tuple[Expr, ...]
    dtype: str = "float32"
    tag: str = ""

    def output_shape(self, index: int) -> tuple[Expr, ...]:
        return self.shape

    def output_dtype(self, index: int) -> str:
        return self.dtype


@_node
class ComputeOp(Operation):
    """``T[axis] = body`` over the box of its axes; several bodies make several outputs.

    ``reduce_axis`` is taken from the first body when it is a reduction.
    """

    name: str
    tag: str
    attrs: Mapping[str, Any]
    axis: tuple[IterVar, ...]
    body: tuple[Expr, ...]
    reduce_axis: tuple[IterVar, ...] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "axis", tuple(self.axis))
        object.__setattr__(self, "body", tuple(self.body))
        object.__setattr__(self, "attrs", AttrMap(self.attrs or {}))
        _verify_compute(self.name, self.body)
        first = self.body[0]
        object.__setattr__(self, "reduce_axis", first.axis if isinstance(first, Reduce) else ())
        # Stored once: a read's dtype is its producer's, so deriving it lazily would walk the
        # whole chain of producers.
        object.__setattr__(self, "_dtypes", tuple(b.dtype for b in self.body))

    @property
    def num_outputs(self) -> int:
        return len(self.body)

    @property
    def root_iter_vars(self) -> list[IterVar]:
        return [*self.axis, *self.reduce_axis]

    @cached_property
    def _inputs(self) -> list[Tensor]:
        seen: dict[Tensor, None] = {}

        def visit(e: Expr) -> None:
            if isinstance(e, ProducerLoad):
                seen.setdefault(e.producer, None)
        for b in self.body:
            post_order_visit(b, visit)
        return list(seen)

    @property
    def input_tensors(self) -> list[Tensor]:
        return list(self._inputs)

    def output_shape(self, index: int) -> tuple[Expr, ...]:
        return tuple(iv.dom.extent for iv in self.axis)  # type: ignore[union-attr]

    def output_dtype(self, index: int) -> str:
        return self._dtypes[index]  # type: ignore[attr-defined]

    def replace_inputs(self, vmap: Mapping[Tensor, Tensor]) -> Operation:
        if not any(t in vmap for t in self._inputs):
            return self
        body = replace_tensors(self.body, vmap)
        return ComputeOp(self.name, self.tag, self.attrs, self.axis, body)


@_node
class ExternOp(Operation):
    """An opaque call over whole tensors: *body* (``call_packed(...)``) sees input ``k`` through
    ``input_placeholders[k]`` and writes output ``k`` through ``output_placeholders[k]``."""

    name: str
    inputs: tuple[Tensor, ...]
    input_placeholders: tuple[DeclBuffer, ...]
    output_placeholders: tuple[DeclBuffer, ...]
    body: Expr | BodyStmt
    tag: str = ""

    @property
    def num_outputs(self) -> int:
        return len(self.output_placeholders)

    @property
    def input_tensors(self) -> list[Tensor]:
        return list(self.inputs)

    def output_shape(self, index: int) -> tuple[Expr, ...]:
        return self.output_placeholders[index].shape

    def output_dtype(self, index: int) -> str:
        return self.output_placeholders[index].dtype

    def replace_inputs(self, vmap: Mapping[Tensor, Tensor]) -> Operation:
        if not any(t in vmap for t in self.inputs):
            return self
        inputs = tuple(vmap.get(t, t) for t in self.inputs)
        return ExternOp(self.name, inputs, self.input_placeholders, self.output_placeholders, self.body, self.tag)

    def bindings(self) -> dict[DeclBuffer, Tensor]:
        """The tensor each declared buffer stands for."""
        out = dict(zip(self.input_placeholders, self.inputs))
        out.update((b, self.output(k)) for k, b in enumerate(self.output_placeholders))
        return out


class _ReplaceTensors(ExprMutator):
    def __init__(self, vmap: Mapping[Tensor, Tensor]) -> None:
        self._vmap = vmap

    def visit_producer_load(self, e: ProducerLoad) -> Expr:
        e2 = self.visit_default(e)
        new = self._vmap.get(e.producer)
        return ProducerLoad(new, e2.indices) if new is not None else e2  # type: ignore[attr-defined]


def replace_tensors(body: Sequence[Expr], vmap: Mapping[Tensor, Tensor]) -> tuple[Expr, ...]:
    """*body* reading ``vmap[t]`` wherever it read ``t``; reductions stay one shared node."""
    mutator = _ReplaceTensors(vmap)
    if body and isinstance(body[0], Reduce):
        new = mutator(body[0])
        if new is body[0]:
            return tuple(body)
        assert isinstance(new, Reduce)
        return tuple(Reduce(new.combiner, new.source, new.axis, new.condition, k, new.init)
                     for k in range(len(body)))
    return tuple(mutator(b) for b in body)


def _verify_compute(name: str, body: tuple[Expr, ...]) -> None:
    if not body:
        raise ScheduleError(f"compute '{name}': fcompute returned no value")
    for b in body:
        if not isinstance(b, Expr):
            raise ScheduleTypeError(f"compute '{name}': fcompute returned a {type(b).__name__}, "
                                    "not an expression")
    first = body[0]
    if isinstance(first, Reduce):
        for k, b in enumerate(body):
            if not isinstance(b, Reduce):
                raise ScheduleError(f"compute '{name}': output {k} is not a reduction while output 0 "
                                    "is; all outputs must reduce or none")
            if not (b.value_index == k and structural_equal(b.combiner, first.combiner)
                    and structural_equal(b.source, first.source) and b.axis == first.axis
                    and structural_equal(b.condition, first.condition)):
                raise ScheduleError(f"compute '{name}': the reductions of a multi-output compute "
                                    "must be one reduction (the same combiner, sources, axes and "
                                    "condition, value_index 0, 1, ...)")
    for k, b in enumerate(body):
        _check_reduce_vars(name, b)
        for child in (children(b) if isinstance(b, Reduce) else [b]):
            if _contains_reduce(child):
                raise ScheduleError(f"compute '{name}': output {k} has a reduction below the top "
                                    "level; a reduction must be the whole body (use a separate "
                                    "compute for the reduction)")


def _check_reduce_vars(name: str, body: Expr) -> None:
    """Refuse a reduction axis read outside a reduction over it: no loop would bind it."""
    stack: list[tuple[Expr, frozenset]] = [(body, frozenset())]
    while stack:
        e, bound = stack.pop()
        if isinstance(e, Var):
            if e in REDUCE_VARS and e not in bound:
                raise ScheduleError(f"compute '{name}': the reduction axis '{e.name}' is used outside a "
                                    f"reduction over it; use it inside te.sum(..., axis={e.name}) (or "
                                    "another reducer)")
            continue
        if isinstance(e, Reduce):
            inner = bound | {iv.var for iv in e.axis}
            for iv in e.axis:
                if iv.dom is not None:
                    stack += [(iv.dom.min, bound), (iv.dom.extent, bound)]
            stack += [(x, inner) for x in (*e.source, *e.init, e.condition)]
            continue
        stack += [(c, bound) for c in children(e)]


def _contains_reduce(e: Expr) -> bool:
    found = []
    post_order_visit(e, lambda x: found.append(x) if isinstance(x, Reduce) else None)
    return bool(found)


def _shape(shape: Any, what: str) -> tuple[Expr, ...]:
    if isinstance(shape, (Expr, int, float)) and not isinstance(shape, bool):
        shape = (shape,)
    if not isinstance(shape, (tuple, list)):
        raise ScheduleTypeError(f"{what}: shape must be a tuple of integer expressions, not {shape!r}")
    dims = []
    for k, s in enumerate(shape):
        if isinstance(s, (float, np.floating)):
            # TVM accepts a Python float with an integral value (a tutorial's ``N / bn``).
            if not float(s).is_integer():
                raise ScheduleTypeError(f"{what}: shape[{k}] = {s} is not an integer")
            s = int(s)
        try:
            e = arith.as_index(s, f"{what}: shape[{k}]")
        except TypeError as err:
            raise ScheduleTypeError(str(err)) from None
        if isinstance(e, IntImm) and e.value < 0:
            raise ScheduleError(f"{what}: shape[{k}] = {e.value} is negative")
        dims.append(e)
    return tuple(dims)


def placeholder(shape: Any, dtype: str = "float32", name: str = "placeholder") -> Tensor:
    """An input tensor of *shape* (ints or integer expressions such as ``te.var("n")``)."""
    check_name("placeholder", name)
    dims = _shape(shape, f"placeholder '{name}'")
    return PlaceholderOp(name, dims, check_dtype(dtype)).output(0)


def _signature(fcompute: Callable[..., Any], name: str) -> tuple[list[str], bool]:
    """The positional parameter names of *fcompute* and whether it takes ``*args``; a plain
    function's are read from its code object, cached (signature() is slow)."""
    if isinstance(fcompute, types.FunctionType) and not fcompute.__defaults__ and not fcompute.__kwdefaults__:
        code = fcompute.__code__
        if not code.co_kwonlyargcount and not code.co_flags & inspect.CO_VARKEYWORDS:
            return _code_signature(code)
    try:
        params = list(inspect.signature(fcompute).parameters.values())
    except (TypeError, ValueError):
        raise ScheduleTypeError(f"compute '{name}': fcompute must be a function") from None
    others = [p for p in params if p.kind in (p.KEYWORD_ONLY, p.VAR_KEYWORD) or p.default is not p.empty]
    if others:
        raise ScheduleError(f"compute '{name}': fcompute may take only plain positional index "
                            f"arguments; '{others[0].name}' is not one")
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return positional, any(p.kind == p.VAR_POSITIONAL for p in params)


@functools.lru_cache(maxsize=4096)
def _code_signature(code: Any) -> tuple[list[str], bool]:
    n = code.co_argcount
    return list(code.co_varnames[:n]), bool(code.co_flags & inspect.CO_VARARGS)


def _arg_names(fcompute: Callable[..., Any], ndim: int, name: str) -> list[str]:
    positional, varargs = _signature(fcompute, name)
    names = list(positional)
    if varargs and len(names) <= ndim:
        names += [f"i{k}" for k in range(len(names), ndim)]
    if len(names) != ndim:
        raise ScheduleError(f"compute '{name}': fcompute takes {len(names)} index arguments but the "
                            f"shape has {ndim} dimensions")
    return names


def compute(shape: Any, fcompute: Callable[..., Any], name: str = "compute", tag: str = "",
            attrs: Mapping[str, Any] | None = None) -> Any:
    """``T[i, j, ...] = fcompute(i, j, ...)`` over *shape*.

    :returns: a Tensor, or a list of Tensors when *fcompute* returns a tuple (multi-output).
    :raises ScheduleError: when *fcompute*'s arity differs from the number of dimensions, or its
        body is malformed (a reduction below the top level, mixed reductions).
    """
    check_name("compute", name)
    dims = _shape(shape, f"compute '{name}'")
    positional, varargs = _signature(fcompute, name)
    if len(positional) < len(dims) and not varargs:  # the rest may be a tensor intrinsic's (TensorComputeOp)
        outer = tuple(IterVar(Range(0, d), Var(n, d.dtype), IterVarType.DataPar) for n, d in zip(positional, dims))
        result = fcompute(*(iv.var for iv in outer))
        from schedule.tensor_compute import TensorIntrinCall, tensor_compute

        if isinstance(result, TensorIntrinCall):
            return tensor_compute(name, dims, outer, result)
    names = _arg_names(fcompute, len(dims), name)
    axis = tuple(IterVar(Range(0, d), Var(n, d.dtype), IterVarType.DataPar) for n, d in zip(names, dims))
    result = fcompute(*(iv.var for iv in axis))
    values = result if isinstance(result, (tuple, list)) else (result,)
    try:
        body = tuple(arith.convert(v) for v in values)
    except TypeError as err:
        raise ScheduleTypeError(f"compute '{name}': {err}") from None
    op = ComputeOp(name, current_tag(tag), attr_map(attrs, f"compute '{name}'"), axis, body)
    outputs = [op.output(k) for k in range(op.num_outputs)]
    return outputs if isinstance(result, (tuple, list)) else outputs[0]


def extern(shape: Any, inputs: Sequence[Tensor], fcompute: Callable[[list[Any], list[Any]], Any],
           name: str = "extern", dtype: str | Sequence[str] | None = None,
           in_buffers: Sequence[Any] | None = None, out_buffers: Sequence[Any] | None = None,
           tag: str = "") -> Any:
    """An opaque operation over whole tensors, as TVM's ``te.extern``.

    *fcompute(ins, outs)* receives the declared buffers of the inputs and outputs (compact
    ones unless *in_buffers* / *out_buffers* give them, see ``te.decl_buffer``) and returns
    the call that computes the outputs, such as ``te.call_packed("my_func", ins[0], outs[0])``.
    *shape* is one shape or a list of shapes (one per output).
    """
    check_name("extern", name)
    shapes = [shape] if not shape or not isinstance(shape[0], (tuple, list)) else list(shape)
    dims = tuple(_shape(s, f"extern '{name}'") for s in shapes)
    for t in inputs:
        if not isinstance(t, Tensor):
            raise ScheduleTypeError(f"extern '{name}': inputs must be tensors, not {type(t).__name__}")
    if dtype is None:
        kinds = {t.dtype for t in inputs}
        if len(kinds) != 1:
            raise ScheduleError(f"extern '{name}': cannot infer the output dtype; pass dtype=")
        dtype = kinds.pop()
    dtypes = [dtype] * len(dims) if isinstance(dtype, str) else list(dtype)
    if len(dtypes) != len(dims):
        raise ScheduleError(f"extern '{name}': {len(dtypes)} dtypes for {len(dims)} outputs")
    ins = _buffers(name, "in_buffers", in_buffers, [(t.shape, t.dtype, t.op.name) for t in inputs])
    outs = _buffers(name, "out_buffers", out_buffers,
                    [(d, check_dtype(t), name) for d, t in zip(dims, dtypes)])
    body = extern_body(name, fcompute(list(ins), list(outs)), [*ins, *outs])
    op = ExternOp(name, tuple(inputs), tuple(ins), tuple(outs), body, tag)
    outputs = [op.output(k) for k in range(op.num_outputs)]
    return outputs[0] if len(outputs) == 1 else outputs


def extern_body(name: str, body: Any, declared: Sequence[DeclBuffer]) -> Expr | BodyStmt:
    """What an extern's fcompute returned, as its body: one call, or a statement of
    ``te.ir_builder`` whose loads and stores reach only *declared* buffers and its allocations."""
    if isinstance(body, Emitted):
        body = body.calls[0] if len(body.calls) == 1 else Block(tuple(Eval(c) for c in body.calls))
    if isinstance(body, Expr):
        return body
    if not isinstance(body, BodyStmt):
        raise ScheduleTypeError(f"extern '{name}': fcompute must return the call that computes the outputs "
                                f"(such as te.call_packed(...)) or ib.get() of a te.ir_builder, not "
                                f"{type(body).__name__}")
    check_body(f"extern '{name}'", body, declared)
    return body


def _buffers(name: str, what: str, given: Sequence[Any] | None, specs: list) -> list[Any]:
    """The declared buffers of an extern's inputs or outputs: *given*, or compact ones."""
    if given is None:
        return [decl_buffer(shape, dtype, f"{base}_buf" if what == "in_buffers" else base)
                for shape, dtype, base in specs]
    given = list(given)
    if len(given) != len(specs):
        raise ScheduleError(f"extern '{name}': {len(given)} {what} for {len(specs)} tensors")
    for b, (shape, dtype, _) in zip(given, specs):
        if not isinstance(b, DeclBuffer):
            raise ScheduleTypeError(f"extern '{name}': {what} must be te.decl_buffer buffers, not "
                                    f"{type(b).__name__}")
        if b.dtype != dtype or len(b.shape) != len(shape):
            raise ScheduleError(f"extern '{name}': buffer '{b.name}' ({b.dtype}, {len(b.shape)} dimensions) "
                                f"does not match its tensor ({dtype}, {len(shape)} dimensions)")
    return given
