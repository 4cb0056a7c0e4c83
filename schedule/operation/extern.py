"""Extern operations: opaque calls (or ir_builder statements) over whole tensors."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from schedule.base.checks import check_name
from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir.buffer import DeclBuffer, decl_buffer
from schedule.ir.dtype import check_dtype
from schedule.ir.expr import Expr
from schedule.ir.extern_stmt import Block, BodyStmt, Eval, check_body
from schedule.ir.ir_builder import Emitted
from schedule.operation.tensor import Operation, Tensor, _node, _shape


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
        return dataclasses.replace(self, inputs=tuple(vmap.get(t, t) for t in self.inputs))

    def bindings(self) -> dict[DeclBuffer, Tensor]:
        """The tensor each declared buffer stands for."""
        out = dict(zip(self.input_placeholders, self.inputs))
        out.update((b, self.output(k)) for k, b in enumerate(self.output_placeholders))
        return out


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
