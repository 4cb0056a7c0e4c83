"""Scans: ``te.scan(init, update, state_placeholder, inputs)``, a recurrence over the first axis.

Row ``t`` of the output is ``update`` evaluated with the rows before it visible through
``state_placeholder``; the first ``init.shape[0]`` rows are ``init``. The scan's loop is its
scan axis; the stages of its body (the update and what it reads, down to the state and the
inputs) are computed inside that loop, at each step (attach type ``ScanUpdate``), and every
one of ``init``, ``update`` and the state is stored in the scan's own output.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from schedule.base.checks import check_name
from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir import arith
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import structural_equal
from schedule.ir.itervar import IterVar, IterVarType, Range
from schedule.operation.tensor import Operation, Tensor

_node = dataclass(frozen=True, eq=False, repr=False)


@_node
class ScanOp(Operation):
    """A scan over *scan_axis*; output ``k`` has the shape of ``state_placeholder[k]``."""

    name: str
    tag: str
    attrs: Mapping[str, Any]
    scan_axis: IterVar
    init: tuple[Tensor, ...]
    update: tuple[Tensor, ...]
    state_placeholder: tuple[Tensor, ...]
    inputs: tuple[Tensor, ...]
    spatial_axis: tuple[IterVar, ...] = field(init=False)

    def __post_init__(self) -> None:
        spatial = []
        for k, u in enumerate(self.update):
            for d in range(1, len(u.shape)):
                spatial.append(IterVar(Range.from_min_extent(arith.const(0, u.shape[d].dtype), u.shape[d]),
                                       Var(f"{self.name}.out{k}.i{d}", u.shape[d].dtype), IterVarType.Opaque))
        object.__setattr__(self, "spatial_axis", tuple(spatial))

    @property
    def spatial_axis_(self) -> tuple[IterVar, ...]:
        """TVM's name of :attr:`spatial_axis`."""
        return self.spatial_axis

    @property
    def num_outputs(self) -> int:
        return len(self.update)

    @property
    def root_iter_vars(self) -> list[IterVar]:
        return [self.scan_axis, *self.spatial_axis]

    @property
    def input_tensors(self) -> list[Tensor]:
        return [*self.init, *self.update]

    def output_shape(self, index: int) -> tuple[Expr, ...]:
        return self.state_placeholder[index].shape

    def output_dtype(self, index: int) -> str:
        return self.update[index].dtype

    def replace_inputs(self, vmap: Mapping[Tensor, Tensor]) -> Operation:
        if not any(t in vmap for t in (*self.init, *self.update)):
            return self
        return ScanOp(self.name, self.tag, self.attrs, self.scan_axis,
                      tuple(vmap.get(t, t) for t in self.init), tuple(vmap.get(t, t) for t in self.update),
                      self.state_placeholder, self.inputs)

    def step_operations(self) -> list[Operation]:
        return scan_body(self)

    def aliases(self) -> dict[Tensor, Tensor]:
        """The tensors stored in the scan's outputs: its init, update and state, per output."""
        out: dict[Tensor, Tensor] = {}
        for k in range(self.num_outputs):
            for t in (self.init[k], self.update[k], self.state_placeholder[k]):
                out[t] = self.output(k)
        return out


def scan(init: Any, update: Any, state_placeholder: Any, inputs: Any = None, name: str = "scan",
         tag: str = "", attrs: Mapping[str, Any] | None = None) -> Any:
    """The scan whose first ``init.shape[0]`` rows are *init* and each later row *update*.

    Each argument is a tensor or a list of tensors (one per output). :returns: a tensor, or a
    list of tensors for several outputs.
    :raises ScheduleError: where shapes or dtypes do not match as TVM requires, naming them.
    """
    check_name("scan", name)
    many = isinstance(init, (list, tuple))
    inits, updates, states = (_tensors(x, what) for x, what in
                              ((init, "init"), (update, "update"), (state_placeholder, "state_placeholder")))
    extra = _tensors(inputs if inputs is not None else [], "inputs")
    if not (len(inits) == len(updates) == len(states)) or not inits:
        raise ScheduleError(f"scan '{name}': give as many init, update and state_placeholder tensors "
                            f"(got {len(inits)}, {len(updates)}, {len(states)})")
    first, length = inits[0].shape[0], updates[0].shape[0]
    for k, (i, u, st) in enumerate(zip(inits, updates, states)):
        where = f"scan '{name}', output {k}"
        if not i.dtype == u.dtype == st.dtype:
            raise ScheduleError(f"{where}: init, update and state_placeholder have dtypes {i.dtype}, "
                                f"{u.dtype}, {st.dtype}; they must agree")
        if not len(i.shape) == len(u.shape) == len(st.shape):
            raise ScheduleError(f"{where}: init, update and state_placeholder must have the same number "
                                "of dimensions")
        if not _same(i.shape[0], first):
            raise ScheduleError(f"{where}: init has {i.shape[0]} rows, output 0's init has {first}")
        for d in range(len(u.shape)):
            if not _same(u.shape[d], st.shape[d]):
                raise ScheduleError(f"{where}: update and state_placeholder differ in dimension {d} "
                                    f"({u.shape[d]} vs {st.shape[d]})")
            if d > 0 and not _same(i.shape[d], st.shape[d]):
                raise ScheduleError(f"{where}: init and state_placeholder differ in dimension {d} "
                                    f"({i.shape[d]} vs {st.shape[d]})")
        if not _same(u.shape[0], length):
            raise ScheduleError(f"{where}: every update must have the same number of rows")
    axis = IterVar(Range.from_min_extent(first, arith.sub(length, first)), Var(f"{name}.idx", first.dtype),
                   IterVarType.Ordered)
    op = ScanOp(name, tag, dict(attrs or {}), axis, tuple(inits), tuple(updates), tuple(states), tuple(extra))
    outputs = [op.output(k) for k in range(op.num_outputs)]
    return outputs if many else outputs[0]


def _tensors(x: Any, what: str) -> list[Tensor]:
    items = list(x) if isinstance(x, (list, tuple)) else [x]
    for t in items:
        if not isinstance(t, Tensor):
            raise ScheduleTypeError(f"scan: {what} must be tensors, not {type(t).__name__}")
    return items


def scan_body(op: ScanOp) -> list[Operation]:
    """The operations computed at each step of *op*: the updates and what they read, down to
    (not including) the state placeholders and the scan's inputs, as far as they lead there."""
    stops = {t.op for t in (*op.state_placeholder, *op.inputs)}
    leads: dict[Operation, bool] = {}
    order: list[Operation] = []
    stack: list[tuple[Operation, bool]] = [(t.op, False) for t in op.update]
    while stack:
        node, done = stack.pop()
        if done:
            leads[node] = any(t.op in stops or leads.get(t.op, False) for t in node.input_tensors)
            order.append(node)
            continue
        if node in leads or node in stops:
            continue
        leads[node] = False
        stack.append((node, True))
        stack.extend((t.op, False) for t in node.input_tensors if t.op not in leads and t.op not in stops)
    updates = {t.op for t in op.update}
    return [o for o in order if leads[o] or o in updates]


def _same(a: Expr, b: Expr) -> bool:
    """Whether two extents are the same expression, or differ by the constant 0."""
    return structural_equal(a, b) or arith.value_of(arith.sub(a, b)) == 0
