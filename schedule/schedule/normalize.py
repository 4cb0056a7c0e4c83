"""Normalization before bound inference: inline, rebase root loops to 0, legalize attachments."""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any

from schedule.base.errors import ScheduleError
from schedule.base.recursion import drive
from schedule.ir.expr import Expr, IntImm, ProducerLoad, Reduce, Var
from schedule.ir.functor import children, substitute
from schedule.ir.itervar import IterVar
from schedule.operation.compute import ComputeOp
from schedule.operation.tensor import Operation, Tensor
from schedule.schedule.graph import attach_ivar
from schedule.schedule.group import resolve_groups
from schedule.schedule.relations import Fuse, Rebase
from schedule.schedule.stage import AttachType

if TYPE_CHECKING:
    from schedule.schedule.schedule import Schedule


def normalize(sch: Schedule) -> Schedule:
    """A normalized copy of *sch* (see :meth:`Schedule.normalize`)."""
    new = sch.copy()
    resolve_groups(new)
    inject_inline(new)
    rebase_non_zero_min_loop(new)
    legalize_invalid_attach(new)
    return new


class _Expander:
    """Each read of an inlined operation replaced by its body at the read's indices, the
    inlined operations that body reads expanded in turn.

    Bodies are expanded where they are read, on an explicit stack, so a chain of N inlined
    stages costs the size of the final expression, not N copies of growing ones.
    """

    def __init__(self, inlined: dict[Operation, tuple[list[Var], Expr]]) -> None:
        self.inlined = inlined

    def __call__(self, body: tuple[Expr, ...]) -> tuple[Expr, ...]:
        if isinstance(body[0], Reduce):
            new = drive(self.expand(body[0]))
            if new is body[0]:
                return body
            return tuple(Reduce(new.combiner, new.source, new.axis, new.condition, k, new.init)
                         for k in range(len(body)))
        return tuple(drive(self.expand(b)) for b in body)

    def expand(self, e: Expr) -> Generator[Any, Any, Expr]:
        if isinstance(e, (Var, IntImm)) or (not isinstance(e, ProducerLoad) and isinstance(e, Expr)
                                            and not any(True for _ in children(e))):
            return e  # a leaf; a read of a scalar (0-d) tensor has no children but may be inlined
        if isinstance(e, ProducerLoad):
            indices = []
            for i in e.indices:
                indices.append((yield self.expand(i)))
            found = self.inlined.get(e.producer.op)
            if found is not None:
                args, body = found
                return (yield self.expand(substitute(body, dict(zip(args, indices)))))
            return e if all(a is b for a, b in zip(indices, e.indices)) else ProducerLoad(e.producer, tuple(indices))
        if isinstance(e, Reduce):
            source = []
            for x in e.source:
                source.append((yield self.expand(x)))
            condition = yield self.expand(e.condition)
            if all(a is b for a, b in zip(source, e.source)) and condition is e.condition:
                return e
            return Reduce(e.combiner, tuple(source), e.axis, condition, e.value_index, e.init)
        changed: dict[str, Any] = {}
        for f in fields(e):
            old = getattr(e, f.name)
            if isinstance(old, Expr):
                new = yield self.expand(old)
            elif isinstance(old, tuple) and old and all(isinstance(v, Expr) for v in old):
                items = []
                for v in old:
                    items.append((yield self.expand(v)))
                new = old if all(a is b for a, b in zip(items, old)) else tuple(items)
            else:
                continue
            if new is not old:
                changed[f.name] = new
        return replace(e, **changed) if changed else e


def inject_inline(sch: Schedule) -> None:
    """Substitute every stage marked Inline into its readers and mark it InlinedAlready."""
    inlined: dict[Operation, tuple[list[Var], Expr]] = {}
    expand = _Expander(inlined)
    repl: dict[Tensor, Tensor] = {}
    for st in sch.stages:
        op: Operation = st.op
        if not isinstance(op, ComputeOp):
            names = [t.op.name for t in op.input_tensors if t.op in inlined]
            if names:
                raise ScheduleError(f"normalize: stage '{names[0]}' is inlined but read by the "
                                    f"extern stage '{st.name}', which needs it computed")
        elif st.attach_type == AttachType.Inline:
            st.attach_type = AttachType.InlinedAlready
            inlined[st.op] = ([iv.var for iv in op.axis], op.body[0])
            continue
        elif inlined and any(t.op in inlined for t in op.input_tensors):
            body = expand(op.body)
            if any(a is not b for a, b in zip(body, op.body)):
                op = ComputeOp(op.name, op.tag, op.attrs, op.axis, body)
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
