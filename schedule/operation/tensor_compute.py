"""A tensor intrinsic called inside ``te.compute`` over slices of tensors (TVM's
TensorComputeOp): ``te.compute((m, 16), lambda i: vadd(A[i, 0:16], B[i, 0:16]))``.

The compute's leading axes are its lambda's arguments; the intrinsic covers the rest. It is
built as an ordinary compute whose body is the intrinsic's, read through the slices, with its
inner axes tensorized by the intrinsic (an outer reduction, ``reduce_axis=k``, is a loop outside
them, so a reduction calls the intrinsic's reset and update). The builder is
``schedule.operation.compute.tensor_compute``, beside ``compute`` which calls it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir import arith
from schedule.ir.itervar import IterVar


@dataclass(frozen=True)
class TensorRegion:
    """``A[i, 0:16]``: per dimension a point (its index) or a ``(start, extent)`` slice."""

    tensor: Any
    parts: tuple[Any, ...]

    @property
    def sliced(self) -> list[int]:
        return [d for d, p in enumerate(self.parts) if isinstance(p, tuple)]

    def __repr__(self) -> str:
        return f"{self.tensor.name}{region_text(self)}"

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


def region_text(r: TensorRegion) -> str:
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
