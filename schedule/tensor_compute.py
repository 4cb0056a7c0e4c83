"""A tensor intrinsic called inside ``te.compute`` over slices of tensors (TVM's
TensorComputeOp): ``te.compute((m, 16), lambda i: vadd(A[i, 0:16], B[i, 0:16]))``.

The compute's leading axes are its lambda's arguments; the intrinsic covers the rest. It is
built as an ordinary compute whose body is the intrinsic's, read through the slices, with its
inner axes tensorized by the intrinsic (an outer reduction, ``reduce_axis=k``, is a loop outside
them, so a reduction calls the intrinsic's reset and update)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from schedule import arith
from schedule.errors import ScheduleError, ScheduleTypeError
from schedule.expr import Expr, ProducerLoad, Reduce, Var
from schedule.functor import ExprMutator, substitute
from schedule.itervar import IterVar, IterVarType, Range, reduce_axis


@dataclass(frozen=True)
class TensorRegion:
    """``A[i, 0:16]``: per dimension a point (its index) or a ``(start, extent)`` slice."""

    tensor: Any
    parts: tuple[Any, ...]

    @property
    def sliced(self) -> list[int]:
        return [d for d, p in enumerate(self.parts) if isinstance(p, tuple)]

    def __repr__(self) -> str:
        return f"{self.tensor.name}{_text(self)}"

    def _refuse(self, *args: Any) -> Any:
        raise ScheduleTypeError(f"the tensor slice {self!r} is only an argument of a tensor intrinsic; index "
                                "every dimension to read an element")

    __add__ = __radd__ = __sub__ = __rsub__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = _refuse


def region(tensor: Any, indices: tuple[Any, ...]) -> TensorRegion:
    """The region *indices* (integers, expressions and ``start:stop`` slices) select of *tensor*."""
    parts: list[Any] = []
    for d, idx in enumerate(indices):
        if isinstance(idx, slice):
            if idx.step not in (None, 1):
                raise ScheduleTypeError(f"tensor '{tensor.name}': a slice with a step ({idx}) is not supported")
            start = arith.convert(0 if idx.start is None else idx.start)
            stop = arith.convert(tensor.shape[d] if idx.stop is None else idx.stop)
            parts.append((start, arith.sub(stop, start)))
        else:
            parts.append(arith.convert(idx))
    if len(parts) != len(tensor.shape):
        raise ScheduleError(f"tensor '{tensor.name}' has {len(tensor.shape)} dimensions but was sliced with "
                            f"{len(parts)}")
    return TensorRegion(tensor, tuple(parts))


@dataclass(frozen=True)
class TensorIntrinCall:
    """What calling a tensor intrinsic on regions gives, for ``te.compute`` to build."""

    intrin: Any
    regions: tuple[TensorRegion, ...]
    reduce_axis: tuple[IterVar, ...]


def intrin_call(intrin: Any, args: tuple[Any, ...], reduce_axis: Any) -> TensorIntrinCall:
    regions = tuple(args)
    if len(regions) != len(intrin.inputs) or not all(isinstance(r, TensorRegion) for r in regions):
        raise ScheduleTypeError(f"tensor intrinsic '{intrin.name}' takes {len(intrin.inputs)} tensor slices "
                                "(such as A[i, 0:16])")
    axes = () if reduce_axis is None else tuple(reduce_axis) if isinstance(reduce_axis, (list, tuple)) \
        else (reduce_axis,)
    return TensorIntrinCall(intrin, regions, axes)


def tensor_compute(name: str, shape: tuple[Expr, ...], outer: tuple[IterVar, ...], call: TensorIntrinCall) -> Any:
    """The compute of *call* over *shape*, with *outer* the lambda's axes (see above)."""
    from schedule.tensor import ComputeOp

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
            raise ScheduleError(f"compute '{name}': slice {r.tensor.name}{_text(r)} does not have the shape of "
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


def _text(r: TensorRegion) -> str:
    return "[" + ", ".join(f"{p[0]}:{arith.add(p[0], p[1])}" if isinstance(p, tuple) else str(p)
                           for p in r.parts) + "]"


def tensorize_at_creation(stage: Any) -> None:
    """Order a tensor-compute stage's loops (outer axes, the call's reduction, the intrinsic's
    axes) and tensorize them with its intrinsic."""
    intrin, n_outer, n_red = stage.op.attrs["tensor_intrin"]
    axes, red = list(stage.op.axis), list(stage.op.reduce_axis)
    stage.leaf_iter_vars = [*axes[:n_outer], *red[:n_red], *axes[n_outer:], *red[n_red:]]
    first = axes[n_outer] if n_outer < len(axes) else red[n_red]
    stage.tensorize(first, intrin)
