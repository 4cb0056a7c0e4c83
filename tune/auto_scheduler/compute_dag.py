"""The computation a search task schedules (TVM's ``ComputeDAG``): its tensors, and the text
TVM prints for it, one line per operation in dependence order::

    A = PLACEHOLDER [512, 512]
    B = PLACEHOLDER [512, 512]
    matmul(i, j) += (A[i, k]*B[k, j])
    C = PLACEHOLDER [512, 512]
    out(i, j) = (matmul[i, j] + C[i, j])
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from typing import Any

from bound import infer_bound
from schedule import PlaceholderOp, Schedule, Tensor
from schedule.base.errors import ScheduleError
from schedule.base.pass_context import tvm_rules
from schedule.ir.expr import Add, Max, Min, Mul, ProducerLoad, Reduce
from schedule.ir.itervar import Range
from schedule.ir.printer import ExprPrinter
from tune.auto_scheduler.flop import estimate_flop
from tune.auto_scheduler.layout_rewrite import has_layout_free, rewrite_layout
from tune.auto_scheduler.loop_state import INLINED, Stage, State, replay_on_state
from tune.auto_scheduler.python_code import python_code
from tune.auto_scheduler.steps import Replay, Step
from tune.auto_scheduler.workload import workload_tensors

_REDUCE_SIGNS = {Add: "+=", Max: "max=", Min: "min=", Mul: "*="}


class _DagPrinter(ExprPrinter):
    """Loads as TVM's DAG prints them: ``A[i, k]``."""

    def visit_producer_load(self, e: ProducerLoad) -> str:
        return f"{e.producer.op.name}[{', '.join(self(i) for i in e.indices)}]"


class ComputeDAG:
    """The operations of *compute* (a list of tensors: inputs and outputs, a workload key, or a
    te schedule, whose stages give the order), in dependence order; its initial loop state,
    and the schedules and bounds of states (:mod:`.loop_state`).

    :raises ScheduleError: (TVM's error) when an operation names two of its iterators alike.
    """

    def __init__(self, compute: Any) -> None:
        if isinstance(compute, Schedule):
            self.ops = [st.op for st in compute.stages]
            outputs = [st.op.output(0) for st in compute.stages if st.is_output]
            inputs = [op.output(0) for op in self.ops if isinstance(op, PlaceholderOp)]
            self.tensors = [*inputs, *outputs]
        else:
            tensors = workload_tensors(compute) if isinstance(compute, str) else compute
            if not isinstance(tensors, (list, tuple)) or not tensors or not all(isinstance(t, Tensor)
                                                                                for t in tensors):
                raise TypeError(f"ComputeDAG: a list of tensors, a workload key or a schedule, got {compute!r}")
            self.tensors = list(tensors)
            self.ops = _ordered_ops(self.tensors)
        for op in self.ops:
            names = [iv.var.name for iv in (*getattr(op, "axis", ()), *getattr(op, "reduce_axis", ()))]
            if len(set(names)) != len(names):
                raise ScheduleError(f"ComputeDAG: operation {op.name!r} names two iterators alike ({names}); the "
                                    f"loop states name iterators, so give each its own name")

    @property
    def outputs(self) -> list[Tensor]:
        """The tensors no other operation of the DAG reads."""
        read = {id(t.op) for op in self.ops for t in op.input_tensors}
        return [op.output(0) for op in self.ops if id(op) not in read and not isinstance(op, PlaceholderOp)]

    @property
    def flop_ct(self) -> float:
        """TVM's estimate of the floating-point operations (-1 when a size is not constant)."""
        return estimate_flop(self.ops)

    @property
    def init_state(self) -> State:
        """The initial state (TVM's attribute)."""
        return self.get_init_state()

    def get_init_state(self) -> State:
        """The state with every operation's loops as declared."""
        return State(self, [Stage.of(op) for op in self.ops])

    def _replay(self, steps: Sequence[Step]) -> Replay:
        replay = Replay(self.outputs, self.ops)
        for k, step in enumerate(steps):
            replay.apply(steps[:k + 1], step)
        return replay

    def ops_after(self, steps: Sequence[Step]) -> list[Any]:
        """The operations of the schedule *steps* make, in its order: only the steps that add
        stages are replayed (an rfactor with the fuse and split just before it, as TVM
        does), so open split lengths elsewhere do not matter."""
        kept: list[Step] = []
        for k, step in enumerate(steps):
            if step.kind in ("CHR", "CHW"):
                kept.append(step)
            elif step.kind == "RF":
                if k >= 2 and steps[k - 2].kind == "FU" and steps[k - 2].stage_id == step.stage_id:
                    kept.append(steps[k - 2])
                kept += [steps[k - 1], step]
        return [st.op for st in self._replay(kept).stages]

    def apply_steps_from_state(self, state: State, layout_rewrite: Any = None) -> tuple[Schedule, list[Tensor]]:
        """The te schedule *state* describes, and the DAG's tensors (its arguments); with
        *layout_rewrite* (a ``LayoutRewriteOption``), its layout-free inputs laid out for
        the state's loops (:mod:`.layout_rewrite`)."""
        option = 0 if layout_rewrite is None else layout_rewrite
        if isinstance(option, bool) or option not in (0, 1, 2):
            raise ValueError(f"apply_steps_from_state: layout_rewrite is a LayoutRewriteOption (0, 1 or 2), got "
                             f"{layout_rewrite!r}")
        if option and state.transform_steps and has_layout_free(self.ops):
            dag, steps = rewrite_layout(self, state.transform_steps, int(option), ComputeDAG)
            return dag._replay(steps).schedule, list(dag.tensors)
        return self._replay(state.transform_steps).schedule, list(self.tensors)

    def infer_bound_from_state(self, state: State) -> State:
        """*state* with the range of every iterator, from the bounds of the schedule it makes."""
        replay = self._replay(state.transform_steps)
        with tvm_rules():  # a state's bounds are TVM's (v0.13: a split child no longer than its parent)
            bounds = infer_bound(replay.schedule, exact=False)
        # a state read from a log holds only its steps: rebuilt from them
        out = state.copy() if state.stages else replay_on_state(self.get_init_state(), state.transform_steps)
        for sid, (stage, axes) in enumerate(zip(out.stages, replay.axes)):
            if stage.compute_at == INLINED or len(axes) != len(stage.iters):
                continue
            out._set_iters(sid, [_bounded(it, ax, bounds, replay.fused_from) for it, ax in zip(stage.iters, axes)])
        return out

    def print_python_code_from_state(self, state: State) -> str:
        """The te calls that make *state*'s schedule, one step a line."""
        return python_code(state)

    def workload_key(self) -> str:
        """A key naming this DAG: its text's hash and its tensors' shapes."""
        shapes = [[int(d) if hasattr(d, "value") else str(d) for d in t.shape] for t in self.tensors]
        return json.dumps([hashlib.md5(str(self).encode()).hexdigest(), *shapes])

    def __str__(self) -> str:
        printer = _DagPrinter()
        lines = []
        for op in self.ops:
            if isinstance(op, PlaceholderOp):
                lines.append(f"{op.name} = PLACEHOLDER [{', '.join(printer(d) for d in op.shape)}]")
                continue
            body = getattr(op, "body", None)
            if body is None:  # an extern or other operation
                lines.append(f"{op.name} = EXTERN")
                continue
            for k, value in enumerate(body):
                name = op.name if len(body) == 1 else f"{op.name}.v{k}"
                indices = ", ".join(iv.var.name for iv in op.axis)
                if isinstance(value, Reduce):
                    sign = _REDUCE_SIGNS.get(type(value.combiner.result[value.value_index]), "reduce=")
                    text = ", ".join(printer(s) for s in value.source)
                    lines.append(f"{name}({indices}) {sign} {text}")
                else:
                    lines.append(f"{name}({indices}) = {printer(value)}")
        return "\n".join(lines) + "\n"

    def __repr__(self) -> str:
        return f"ComputeDAG({[t.name for t in self.tensors]})"


def _bounded(it: Any, ax: Any, bounds: Any, fused_from: dict[Any, list[Any]]) -> Any:
    """Iterator *it* with the range of its IterVar *ax*, and each iterator it fused with the
    range of the IterVar it was (the layout rewrite reads them)."""
    parts = fused_from.get(ax)
    changes: dict[str, Any] = {}
    if it.orig_iters and parts is not None and len(parts) == len(it.orig_iters):
        changes["orig_iters"] = tuple(_bounded(o, p, bounds, fused_from) for o, p in zip(it.orig_iters, parts))
    if ax in bounds:
        changes["range_"] = Range.from_min_extent(bounds[ax].min, bounds[ax].extent)
    return it.with_(**changes) if changes else it


def _ordered_ops(tensors: Sequence[Tensor]) -> list[Any]:
    """Every operation the outputs read, each after its inputs, inputs in their order (then
    any input no output reads)."""
    order: list[Any] = []
    seen: set[int] = set()
    computed = [t for t in tensors if not isinstance(t.op, PlaceholderOp)]
    for root in computed + [t for t in tensors if isinstance(t.op, PlaceholderOp)]:
        stack: list[tuple[Any, bool]] = [(root.op, False)]
        while stack:
            op, expanded = stack.pop()
            if expanded:
                order.append(op)
                continue
            if id(op) in seen:
                continue
            seen.add(id(op))
            stack.append((op, True))
            stack.extend((t.op, False) for t in reversed(list(op.input_tensors)) if id(t.op) not in seen)
    return order
