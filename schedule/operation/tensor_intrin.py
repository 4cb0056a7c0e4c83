"""Tensor intrinsics (``te.decl_tensor_intrin``): a computation a hardware instruction or a
library routine performs, and the calls that perform it.

``s[C].tensorize(axis, intrin)`` replaces the loops from *axis* inward with those calls once
lowering has checked that they compute the same thing (see :mod:`bound.inference.tensorize`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from schedule.base.checks import check_name
from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir.buffer import DeclBuffer, decl_buffer
from schedule.ir.ir_builder import Emitted, as_emitted
from schedule.operation.compute import ComputeOp
from schedule.operation.tensor import Operation, Tensor
from schedule.operation.tensor_compute import intrin_call


@dataclass(frozen=True, eq=False)
class TensorIntrin:
    """The computation *op* (over *inputs*), the buffers the calls see (inputs, then outputs),
    and its statements: *body* computes the whole result; a reduction split across calls
    starts with *reduce_init* (or *body* when there is none) and goes on with *reduce_update*."""

    name: str
    op: ComputeOp
    inputs: tuple[Tensor, ...]
    buffers: tuple[DeclBuffer, ...]
    body: Emitted | None
    reduce_init: Emitted | None
    reduce_update: Emitted | None

    def __repr__(self) -> str:
        return f"TensorIntrin({self.name})"

    def __call__(self, *regions: Any, reduce_axis: Any = None) -> Any:
        """The intrinsic applied to tensor slices inside ``te.compute`` (TVM's TensorComputeOp)."""
        return intrin_call(self, regions, reduce_axis)


def decl_tensor_intrin(op: Any, fcompute: Callable[[list[DeclBuffer], list[DeclBuffer]], Any],
                       name: str = "tensor_intrin", binds: Mapping[Tensor, DeclBuffer] | None = None,
                       scalar_params: Any = None, default_buffer_params: Mapping[str, Any] | None = None
                       ) -> TensorIntrin:
    """The intrinsic computing *op*: *fcompute(ins, outs)* receives a buffer per input and
    output (from *binds*, else declared with *default_buffer_params*) and returns the body,
    or the triple ``(body, reset, update)`` of a reduction."""
    check_name("decl_tensor_intrin", name)
    if isinstance(op, Tensor):
        op = op.op
    if not isinstance(op, Operation):
        raise ScheduleTypeError(f"decl_tensor_intrin '{name}': expected the intrinsic's compute "
                                f"operation (z.op), not {type(op).__name__}")
    if not isinstance(op, ComputeOp):
        raise ScheduleError(f"decl_tensor_intrin '{name}': '{op.name}' is not a compute; an intrinsic "
                            "is declared by a te.compute")
    if scalar_params:
        raise ScheduleError(f"decl_tensor_intrin '{name}': scalar_params are not supported")
    binds = dict(binds or {})
    params = dict(default_buffer_params or {})
    allowed = {"strides", "elem_offset", "scope", "data_alignment", "offset_factor"}
    if set(params) - allowed:
        raise ScheduleTypeError(f"decl_tensor_intrin '{name}': unknown buffer parameters "
                                f"{sorted(set(params) - allowed)}; expected some of {sorted(allowed)}")
    inputs = tuple(op.input_tensors)
    tensors = [*inputs, *(op.output(k) for k in range(op.num_outputs))]
    for t, b in binds.items():
        if not isinstance(t, Tensor) or not any(t == x for x in tensors):
            raise ScheduleError(f"decl_tensor_intrin '{name}': binds names {t!r}, which is not an input "
                                f"or output of '{op.name}'")
        if not isinstance(b, DeclBuffer):
            raise ScheduleTypeError(f"decl_tensor_intrin '{name}': binds[{t.name}] must be a buffer from "
                                    f"te.decl_buffer, not {type(b).__name__}")
        if b.ndim != t.ndim:
            raise ScheduleError(f"decl_tensor_intrin '{name}': buffer '{b.name}' has {b.ndim} dimensions, "
                                f"tensor '{t.name}' {t.ndim}")
    buffers = tuple(binds.get(t) or decl_buffer(t.shape, t.dtype, t.op.name, **params) for t in tensors)
    result = fcompute(list(buffers[:len(inputs)]), list(buffers[len(inputs):]))
    where = f"decl_tensor_intrin '{name}'"
    if isinstance(result, (tuple, list)):
        if len(result) != 3:
            raise ScheduleTypeError(f"{where}: the function returns a body or (body, reset, update), "
                                    f"not {len(result)} items")
        body, init, update = (as_emitted(where, x) for x in result)
    else:
        body, init, update = as_emitted(where, result), None, None
    if body is None and update is None:
        raise ScheduleError(f"{where}: the function returned no body")
    return TensorIntrin(name, op, inputs, buffers, body, init, update)
