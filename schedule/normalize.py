"""Normalization before bound inference: inline, rebase root loops to 0, legalize attachments."""

from __future__ import annotations

from typing import TYPE_CHECKING

from schedule.errors import ScheduleError
from schedule.expr import Expr, ProducerLoad, Reduce, Var
from schedule.functor import ExprMutator, substitute
from schedule.graph import attach_ivar
from schedule.itervar import IterVar
from schedule.relations import Fuse, Rebase
from schedule.stage import AttachType
from schedule.tensor import ComputeOp, Operation, Tensor

if TYPE_CHECKING:
    from schedule.schedule import Schedule


def normalize(sch: Schedule) -> Schedule:
    """A normalized copy of *sch* (see :meth:`Schedule.normalize`)."""
    new = sch.copy()
    inject_inline(new)
    rebase_non_zero_min_loop(new)
    legalize_invalid_attach(new)
    return new


class _Inline(ExprMutator):
    """Replace each read of an inlined operation by its (already expanded) body at the read's indices."""

    def __init__(self, expanded: dict[Operation, tuple[list[Var], Expr]]) -> None:
        self._expanded = expanded

    def visit_producer_load(self, e: ProducerLoad) -> Expr:
        e2 = self.visit_default(e)
        assert isinstance(e2, ProducerLoad)
        found = self._expanded.get(e2.producer.op)
        if found is None:
            return e2
        args, body = found
        return substitute(body, dict(zip(args, e2.indices)))


def _inline_into(body: tuple[Expr, ...], mutator: _Inline) -> tuple[Expr, ...]:
    if isinstance(body[0], Reduce):
        new = mutator(body[0])
        if new is body[0]:
            return body
        assert isinstance(new, Reduce)
        return tuple(Reduce(new.combiner, new.source, new.axis, new.condition, k, new.init)
                     for k in range(len(body)))
    return tuple(mutator(b) for b in body)


def inject_inline(sch: Schedule) -> None:
    """Substitute every stage marked Inline into its readers and mark it InlinedAlready.

    Stages are visited producers first, each inlined body expanded once (with the inlined
    stages it reads already in it), so a chain of inlined stages collapses in one pass.
    """
    expanded: dict[Operation, tuple[list[Var], Expr]] = {}
    mutator = _Inline(expanded)
    repl: dict[Tensor, Tensor] = {}
    for st in sch.stages:
        op: Operation = st.op
        if not isinstance(op, ComputeOp):
            inlined = [t.op.name for t in op.input_tensors if t.op in expanded]
            if inlined:
                raise ScheduleError(f"normalize: stage '{inlined[0]}' is inlined but read by the "
                                    f"extern stage '{st.name}', which needs it computed")
        elif expanded and any(t.op in expanded for t in op.input_tensors):
            body = _inline_into(op.body, mutator)
            if any(a is not b for a, b in zip(body, op.body)):
                op = ComputeOp(op.name, op.tag, op.attrs, op.axis, body)
        if st.attach_type == AttachType.Inline:
            assert isinstance(op, ComputeOp)
            st.attach_type = AttachType.InlinedAlready
            expanded[st.op] = ([iv.var for iv in op.axis], op.body[0])
            continue
        op = op.replace_inputs(repl)
        if op is not st.op:
            for k in range(st.op.num_outputs):
                repl[st.op.output(k)] = op.output(k)
            st.op = op


def rebase_non_zero_min_loop(sch: Schedule) -> None:
    """Replace every root IterVar that is still a leaf by a rebased copy starting at 0.

    As in TVM, the rebased IterVar has the root's name, is not added to ``all_iter_vars``,
    inherits the root's annotations, and takes over attachments made at the root. Unlike TVM,
    thread-bound roots are rebased too, so a thread may run over a region that does not start
    at 0 (a cooperative fetch bound without a split).
    """
    rebased_of: dict[IterVar, IterVar] = {}
    for st in sch.stages:
        if st.attach_type == AttachType.InlinedAlready:
            continue
        for iv in st.op.root_iter_vars:
            pos = next((k for k, leaf in enumerate(st.leaf_iter_vars) if leaf is iv), None)
            if pos is None:
                continue
            rebased = st._rebased.get(iv)
            if rebased is None:
                rebased = IterVar(None, Var(iv.var.name, iv.var.dtype), iv.iter_type, iv.thread_tag)
                st._rebased[iv] = rebased
            st.relations.append(Rebase(iv, rebased))
            if iv in st.iter_var_attrs:
                st.iter_var_attrs[rebased] = st.iter_var_attrs[iv]
            st.leaf_iter_vars[pos] = rebased
            rebased_of[iv] = rebased
    for st in sch.stages:
        if st.attach_type == AttachType.Scope and st.attach_ivar in rebased_of:
            st.attach_ivar = rebased_of[st.attach_ivar]


def legalize_invalid_attach(sch: Schedule) -> None:
    """Move attachments at IterVars that were split or fused later to the leaf that carries them.

    :raises ScheduleError: when the attach point was fused as the outer part of a pair, which
        leaves no single loop to attach at.
    """
    for st in sch.stages:
        if st.attach_type != AttachType.Scope:
            continue
        target, iv = st.attach_stage, attach_ivar(st)
        assert target is not None
        if not any(leaf is iv for leaf in target.leaf_iter_vars):
            fused = next((r.fused for r in target.relations if isinstance(r, Fuse) and r.outer is iv), None)
            hint = (f"it was fused as the outer part of '{fused.name}'; attach at '{fused.name}'"
                    if fused is not None else "it is not a loop of that stage")
            raise ScheduleError(f"stage '{st.name}' is attached at '{st.attach_ivar.name}' of stage "
                                f"'{target.name}', but {hint}")
        st.attach_ivar = iv


def tensor_map(original: Schedule, normalized: Schedule) -> dict[Tensor, Tensor]:
    """Each output tensor of *original*'s stages -> the same tensor in its normalized copy.

    normalize keeps the stages in order but gives the readers of inlined stages new operations.
    """
    out: dict[Tensor, Tensor] = {}
    for a, b in zip(original.stages, normalized.stages):
        for k in range(a.op.num_outputs):
            out[a.op.output(k)] = b.op.output(k)
    return out
