"""Computes: ``T[i, j] = body``, one or several outputs, a reduction or a tensor intrinsic's call."""

from __future__ import annotations

import functools
import inspect
import types
from collections.abc import Callable, Mapping, Sequence
from dataclasses import field, replace
from functools import cached_property
from typing import Any

from schedule.base.checks import check_name
from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir import arith
from schedule.ir.dtype import is_float, lanes
from schedule.ir.expr import Call, Expr, Let, ProducerLoad, Reduce, Var
from schedule.ir.functor import ExprMutator, children, post_order_visit, structural_equal, substitute
from schedule.ir.intrinsics import FLOAT_UNARY
from schedule.ir.itervar import REDUCE_VARS, IterVar, IterVarType, Range, reduce_axis
from schedule.operation.op_attrs import AttrMap, attr_map
from schedule.operation.tag import current_tag
from schedule.operation.tensor import Operation, Tensor, _node, _shape
from schedule.operation.tensor_compute import TensorIntrinCall, TensorRegion, region_text


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
        object.__setattr__(self, "_shape", tuple(iv.dom.extent for iv in self.axis))  # type: ignore[union-attr]

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
        shape = self.__dict__.get("_shape")
        if shape is None:  # an op unpickled from before the shape was stored
            shape = tuple(iv.dom.extent for iv in self.axis)  # type: ignore[union-attr]
            object.__setattr__(self, "_shape", shape)
        return shape

    def output_dtype(self, index: int) -> str:
        return self._dtypes[index]  # type: ignore[attr-defined]

    def replace_inputs(self, vmap: Mapping[Tensor, Tensor]) -> Operation:
        if not any(t in vmap for t in self._inputs):
            return self
        body = replace_tensors(self.body, vmap)
        return ComputeOp(self.name, self.tag, self.attrs, self.axis, body)


class _ReplaceTensors(ExprMutator):
    def __init__(self, vmap: Mapping[Tensor, Tensor],
                 reindex: Mapping[Tensor, Callable[[Sequence[Expr]], Sequence[Expr]]] | None = None) -> None:
        self._vmap, self._reindex = vmap, reindex or {}

    def visit_producer_load(self, e: ProducerLoad) -> Expr:
        e2 = self.visit_default(e)
        new = self._vmap.get(e.producer)
        if new is None:
            return e2
        indices = e2.indices  # type: ignore[attr-defined]
        how = self._reindex.get(e.producer)
        return ProducerLoad(new, tuple(how(indices)) if how is not None else indices)


def replace_tensors(body: Sequence[Expr], vmap: Mapping[Tensor, Tensor],
                    reindex: Mapping[Tensor, Callable[[Sequence[Expr]], Sequence[Expr]]] | None = None
                    ) -> tuple[Expr, ...]:
    """*body* reading ``vmap[t]`` wherever it read ``t`` (at ``reindex[t](indices)`` where
    given); reductions stay one shared node."""
    mutator = _ReplaceTensors(vmap, reindex)
    if body and isinstance(body[0], Reduce):
        new = mutator(body[0])
        if new is body[0]:
            return tuple(body)
        assert isinstance(new, Reduce)
        return tuple(Reduce(new.combiner, new.source, new.axis, new.condition, k, new.init)
                     for k in range(len(body)))
    return tuple(mutator(b) for b in body)


def reindex_tensor(op: ComputeOp, old: Tensor, new: Tensor,
                   indices: Callable[[Sequence[Expr]], Sequence[Expr]]) -> ComputeOp:
    """*op* loading ``new[indices(i)]`` where it loaded ``old[i]`` (a tensor laid out anew)."""
    body = replace_tensors(op.body, {old: new}, {old: indices})
    return ComputeOp(op.name, op.tag, op.attrs, op.axis, body)


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
        if _check_reduce_vars(name, b):
            raise ScheduleError(f"compute '{name}': output {k} has a reduction below the top "
                                "level; a reduction must be the whole body (use a separate "
                                "compute for the reduction)")


def _check_reduce_vars(name: str, body: Expr) -> bool:
    """Refuse a reduction axis read outside a reduction over it (no loop would bind it); also
    whether a reduction sits below the top of *body* (one walk for both)."""
    stack: list[tuple[Expr, frozenset]] = [(body, frozenset())]
    nested = False
    while stack:
        e, bound = stack.pop()
        if isinstance(e, Var):
            if e in REDUCE_VARS and e not in bound:
                raise ScheduleError(f"compute '{name}': the reduction axis '{e.name}' is used outside a "
                                    f"reduction over it; use it inside te.sum(..., axis={e.name}) (or "
                                    "another reducer)")
            continue
        if isinstance(e, Reduce):
            nested = nested or e is not body
            inner = bound | {iv.var for iv in e.axis}
            for iv in e.axis:
                if iv.dom is not None:
                    stack += [(iv.dom.min, bound), (iv.dom.extent, bound)]
            stack += [(x, inner) for x in (*e.source, *e.init, e.condition)]
            continue
        stack += [(c, bound) for c in children(e)]
    return nested


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


def _arg_names(fcompute: Callable[..., Any], ndim: int, name: str,
               varargs_names: Sequence[str] | None = None) -> list[str]:
    positional, varargs = _signature(fcompute, name)
    names = list(positional)
    if varargs and len(names) <= ndim:
        extra = ndim - len(names)
        if varargs_names is not None:
            if isinstance(varargs_names, str) or len(varargs_names) != extra or \
                    not all(isinstance(n, str) and n for n in varargs_names):
                raise ScheduleError(f"compute '{name}': varargs_names must be {extra} names (strings), one per "
                                    f"dimension *args takes, got {varargs_names!r}")
            names += list(varargs_names)
        else:
            names += [f"i{k}" for k in range(len(names), ndim)]
    if len(names) != ndim:
        raise ScheduleError(f"compute '{name}': fcompute takes {len(names)} index arguments but the "
                            f"shape has {ndim} dimensions")
    return names


def compute(shape: Any, fcompute: Callable[..., Any], name: str = "compute", tag: str = "",
            attrs: Mapping[str, Any] | None = None, varargs_names: Sequence[str] | None = None) -> Any:
    """``T[i, j, ...] = fcompute(i, j, ...)`` over *shape*; *varargs_names* name the axes an
    ``fcompute(*args)`` takes (by default ``i0``, ``i1``, ...).

    :returns: a Tensor, or a list of Tensors when *fcompute* returns a tuple (multi-output).
    :raises ScheduleError: when *fcompute*'s arity differs from the number of dimensions, or its
        body is malformed (a reduction below the top level, mixed reductions).
    """
    check_name("compute", name)
    dims = _shape(shape, f"compute '{name}'")
    positional, varargs = _signature(fcompute, name)
    if len(positional) < len(dims) and not varargs:  # the rest may be a tensor intrinsic's (TensorComputeOp)
        outer = tuple(IterVar(Range.from_min_extent(0, d), Var(n, d.dtype), IterVarType.DataPar)
                      for n, d in zip(positional, dims))
        result = fcompute(*(iv.var for iv in outer))
        if isinstance(result, TensorIntrinCall):
            return tensor_compute(name, dims, outer, result)
    names = _arg_names(fcompute, len(dims), name, varargs_names)
    axis = tuple(IterVar(Range.from_min_extent(0, d), Var(n, d.dtype), IterVarType.DataPar)
                 for n, d in zip(names, dims))
    result = fcompute(*(iv.var for iv in axis))
    values = result if isinstance(result, (tuple, list)) else (result,)
    try:
        body = tuple(_InlineLets()(arith.convert(v)) for v in values)
    except TypeError as err:
        raise ScheduleTypeError(f"compute '{name}': {err}") from None
    for v in body:
        if lanes(v.dtype) != 1:
            raise ScheduleTypeError(f"compute '{name}': the body {v} is the vector type {v.dtype}; a compute "
                                    "holds scalars (vectors serve the arithmetic analysis; vectorize a loop instead)")
    op = ComputeOp(name, current_tag(tag), attr_map(attrs, f"compute '{name}'"), axis, body)
    outputs = [op.output(k) for k in range(op.num_outputs)]
    return outputs if isinstance(result, (tuple, list)) else outputs[0]


def tensor_compute(name: str, shape: tuple[Expr, ...], outer: tuple[IterVar, ...], call: TensorIntrinCall) -> Any:
    """The compute of *call* over *shape*, with *outer* the lambda's axes (see above)."""
    intrin = call.intrin
    iop = intrin.op
    inner_shape = shape[len(outer):]
    if len(inner_shape) != len(iop.axis) or any(
            arith.value_of(arith.sub(a, iv.dom.extent)) != 0 for a, iv in zip(inner_shape, iop.axis)):
        raise ScheduleError(f"compute '{name}': the dimensions after the lambda's ({list(map(str, inner_shape))}) "
                            f"must be those of intrinsic '{intrin.name}' "
                            f"({[str(iv.dom.extent) for iv in iop.axis]})")
    inner = tuple(IterVar(Range(0, iv.dom.extent), Var(iv.var.name, iv.var.dtype), IterVarType.DataPar)
                  for iv in iop.axis)
    own_red = tuple(reduce_axis((iv.dom.min, arith.add(iv.dom.min, iv.dom.extent)), name=iv.var.name)
                    for iv in iop.reduce_axis)
    for r, t in zip(call.regions, intrin.inputs):
        if len(r.sliced) != len(t.shape) or any(
                arith.value_of(arith.sub(r.parts[d][1], e)) != 0 for d, e in zip(r.sliced, t.shape)):
            raise ScheduleError(f"compute '{name}': slice {r.tensor.name}{region_text(r)} does not have the shape of "
                                f"the intrinsic's input {list(map(str, t.shape))}")
    vmap = {**{iv.var: n.var for iv, n in zip(iop.axis, inner)}, **{iv.var: n.var for iv, n in
                                                                     zip(iop.reduce_axis, own_red)}}
    body = _Reads(dict(zip(intrin.inputs, call.regions)))(substitute(iop.body[0], vmap))
    if isinstance(body, Reduce):
        body = replace(body, axis=(*call.reduce_axis, *own_red))
    elif call.reduce_axis:
        raise ScheduleError(f"compute '{name}': reduce_axis= needs an intrinsic that reduces")
    op = ComputeOp(name, "", {}, (*outer, *inner), (body,))
    op.attrs["tensor_intrin"] = (intrin, len(outer), len(call.reduce_axis))
    return op.output(0)


class _InlineLets(ExprMutator):
    """``let v = value in body`` as *body* with *value* for *v* (the kernels take no lets); a
    float function of an integer (which TVM's ``tir.log`` builds) is refused."""

    def visit_let(self, e: Let) -> Expr:
        return self(substitute(e.body, {e.var: e.value}))

    def visit_call(self, e: Call) -> Expr:
        if e.name in FLOAT_UNARY and not is_float(e.dtype):
            raise TypeError(f"{e.name}({e.args[0]}) of the {e.dtype} argument cannot be computed; cast it to a "
                            "float type first (x.astype('float32'))")
        return self.visit_default(e)


class _Reads(ExprMutator):
    """The intrinsic's reads of its inputs as reads of the regions they stand for."""

    def __init__(self, regions: dict[Any, TensorRegion]) -> None:
        self.regions = regions

    def visit_producer_load(self, e: ProducerLoad) -> Expr:
        e = self.visit_default(e)
        r = self.regions.get(e.producer)
        if r is None:
            return e
        inner = iter(e.indices)
        indices = [arith.add(p[0], next(inner)) if isinstance(p, tuple) else p for p in r.parts]
        return r.tensor(*indices)
