"""The arguments of ``lower`` and ``build``: checked, and mapped to the stages that compute them.

Users pass the tensors they hold. Primitives such as cache_read, cache_write and
compute_inline give a stage a new operation, and normalize copies the schedule; as TVM's
ScheduleOps maps a replaced operation back to its origin, each argument here maps to the
normalized stage that computes it, so the arrays given to a built function are the ones read
and written.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from schedule.ir.expr import Expr, Reduce, Var
from schedule.ir.functor import free_vars, post_order_visit
from schedule.ir.itervar import IterVar
from schedule.operation.compute import ComputeOp
from schedule.operation.placeholder import PlaceholderOp
from schedule.operation.tensor import Operation, Tensor
from schedule.schedule.schedule import Schedule
from schedule.schedule.stage import AttachType, Stage


def argument_list(where: str, args: Any) -> list[Tensor | Var]:
    """*args* as a list of tensors and scalar variables, or a TypeError naming the bad one."""
    if isinstance(args, Tensor):
        raise TypeError(f"{where}: args must be a list of tensors; wrap the tensor '{args.name}' in a "
                        f"list ([{args.name}])")
    if not isinstance(args, (list, tuple)):
        raise TypeError(f"{where}: args must be a list of tensors, not {type(args).__name__}")
    out: list[Tensor | Var] = []
    for k, a in enumerate(args):
        if isinstance(a, Operation):
            raise TypeError(f"{where}: argument {k} is the operation '{a.name}'; pass its tensor "
                            f"({a.name}.output(0)) instead")
        if isinstance(a, IterVar):
            raise TypeError(f"{where}: argument {k} is the IterVar '{a.name}'; arguments are tensors "
                            "and te.var scalars")
        if not isinstance(a, (Tensor, Var)):
            raise TypeError(f"{where}: argument {k} is a {type(a).__name__} ({a!r}); arguments are "
                            "tensors and te.var scalars")
        if any(a is b or (isinstance(a, Tensor) and a == b) for b in out):
            raise ValueError(f"{where}: '{a.name}' is given twice as an argument")
        out.append(a)
    return out


def argument_stages(where: str, s: Schedule, args: Sequence[Tensor | Var]) -> dict[Tensor, Stage | None]:
    """The stage of *s* computing each argument tensor (None for an input *s* never reads or
    a tensor it inlines, which is bound but unused, as in TVM).

    :raises ValueError: for a computed tensor that is not part of *s*, naming it.
    """
    out: dict[Tensor, Stage | None] = {}
    for t in args:
        if not isinstance(t, Tensor):
            continue
        stage = s.stage_map.get(t.op) or s.stage_of(t.op)
        if stage is None and isinstance(t.op, PlaceholderOp):
            out[t] = None
            continue
        if stage is None or t.value_index >= stage.op.num_outputs:
            raise ValueError(f"{where}: tensor '{t.name}' is not part of this schedule; pass tensors of "
                             f"the schedule's own operations (its stages: "
                             f"{', '.join(st.name for st in s.stages)})")
        if stage.attach_type in (AttachType.Inline, AttachType.InlinedAlready):
            out[t] = None  # inlined: its buffer is bound and never used, as in TVM
            continue
        out[t] = stage
    return out


def normalized_tensors(s: Schedule, sn: Schedule, stages: dict[Tensor, Stage | None]) -> dict[Tensor, Tensor]:
    """Each argument tensor -> the output of its stage's operation in the normalized *sn*."""
    index = {id(st): k for k, st in enumerate(s.stages)}
    return {t: (t if st is None else sn.stages[index[id(st)]].op.output(t.value_index))
            for t, st in stages.items()}


def scalar_vars(args: Sequence[Tensor | Var]) -> list[Var]:
    """The variables a built function takes: scalar arguments, then shape variables in order."""
    out: dict[Var, None] = {a: None for a in args if isinstance(a, Var)}
    for t in args:
        if isinstance(t, Tensor):
            for e in t.shape:
                post_order_visit(e, lambda x: out.setdefault(x, None) if isinstance(x, Var) else None)
    return list(out)


def check_bound_vars(sn: Schedule, params: Sequence[Var]) -> None:
    """Every variable a stage uses must be a loop of its own or a parameter of the function.

    :raises ValueError: naming the variable and the stage, for a variable no loop, argument or
        argument shape binds (a stray ``te.var``, another compute's axis).
    """
    known = set(params)
    for st in sn.stages:
        op = st.op
        if st.attach_type == AttachType.InlinedAlready or not isinstance(op, ComputeOp):
            continue
        own = {iv.var for iv in op.root_iter_vars} | {iv.var for iv in st.all_iter_vars}
        exprs: list[Expr] = [e for iv in op.root_iter_vars if iv.dom is not None for e in (iv.dom.min, iv.dom.extent)]
        exprs += list(op.body)
        for red in op.body[:1]:
            if isinstance(red, Reduce):
                exprs += [*red.combiner.result, *red.combiner.identity_element]
                own |= {*red.combiner.lhs, *red.combiner.rhs}
        for rel in st.relations:
            exprs += [e for e in (getattr(rel, "factor", None), getattr(rel, "nparts", None)) if e is not None]
        for v in free_vars(exprs):
            if v not in own and v not in known:
                raise ValueError(f"build: stage '{st.name}' uses the variable '{v.name}', which no loop of "
                                 "it binds and no argument (or argument shape) gives; pass it as a te.var "
                                 "argument or use a loop variable")
