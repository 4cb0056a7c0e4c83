"""A schedule written back as the te calls that make it (what TVM's ``print_best`` prints as
"the equivalent python schedule"), read from the schedule's state: each stage's splits and
fuses in the order they were made (with the reorders a fuse needs), its loop order, its loop
annotations, and, once every stage's loops exist, where each stage is computed. Stages a
primitive added (caches, rfactor) are named in a comment, since the state does not say which
call made them."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from schedule.ir.itervar import IterVarType
from schedule.schedule.relations import Fuse, Split
from schedule.schedule.stage import AttachType

_ANNOTATIONS = {IterVarType.Parallelized: "parallel", IterVarType.Vectorized: "vectorize",
                IterVarType.Unrolled: "unroll"}


def _ident(text: str) -> str:
    return re.sub(r"\W", "_", text)


def schedule_text(s: Any, original_ops: Sequence[Any] = ()) -> str:
    """The te calls that make schedule *s* from an unscheduled one of *original_ops* (the
    computation's operations; stages of other operations are commented as added)."""
    lines: list[str] = []
    placing: list[str] = []  # after every stage's loops exist
    originals = {id(op) for op in original_ops}
    for stage in s.stages:
        op = stage.op
        if not hasattr(op, "axis") or getattr(stage, "attach_type", None) == AttachType.InlinedAlready:
            continue
        name = _ident(op.name)

        def var(iv: Any, name: str = name) -> str:
            return f"{name}_{_ident(iv.var.name)}"
        roots = [var(iv) for iv in op.axis] + [var(iv) for iv in getattr(op, "reduce_axis", ())]
        if originals and id(stage.origin_op) not in originals:
            lines.append(f"# {op.name}: a stage a primitive added (a cache or an rfactor)")
        if stage.attach_type == AttachType.Inline:
            placing.append(f"s[{name}].compute_inline()")
            continue
        if roots:
            lines.append(f"{', '.join(roots)} = tuple({name}.op.axis) + tuple({name}.op.reduce_axis)")
        leaves = list(roots)  # the loop order as the calls so far leave it
        for rel in stage.relations:
            if isinstance(rel, Split):
                arg = f"factor={rel.factor}" if rel.factor is not None else f"nparts={rel.nparts}"
                lines.append(f"{var(rel.outer)}, {var(rel.inner)} = s[{name}].split({var(rel.parent)}, {arg})")
                at = leaves.index(var(rel.parent))
                leaves[at:at + 1] = [var(rel.outer), var(rel.inner)]
            elif isinstance(rel, Fuse):
                outer, inner = var(rel.outer), var(rel.inner)
                if leaves.index(inner) != leaves.index(outer) + 1:  # fuse takes neighbours: reorder first
                    leaves.remove(inner)
                    leaves.insert(leaves.index(outer) + 1, inner)
                    lines.append(f"s[{name}].reorder({', '.join(leaves)})")
                lines.append(f"{var(rel.fused)} = s[{name}].fuse({outer}, {inner})")
                at = leaves.index(outer)
                leaves[at:at + 2] = [var(rel.fused)]
        final = [var(iv) for iv in stage.leaf_iter_vars]
        if len(final) > 1 and final != leaves:
            lines.append(f"s[{name}].reorder({', '.join(final)})")
        if stage.attach_type == AttachType.Scope and stage.attach_stage is not None:
            target = _ident(stage.attach_stage.op.name)
            placing.append(f"s[{name}].compute_at(s[{target}], {target}_{_ident(stage.attach_ivar.var.name)})")
        for iv, attr in stage.iter_var_attrs.items():
            kind = _ANNOTATIONS.get(attr.iter_type)
            if kind:
                lines.append(f"s[{name}].{kind}({var(iv)})")
            if attr.bind_thread is not None:
                lines.append(f"s[{name}].bind({var(iv)}, te.thread_axis(\"{attr.bind_thread.thread_tag}\"))")
            for key, value in zip(attr.pragma_keys, attr.pragma_values):
                lines.append(f"s[{name}].pragma({var(iv)}, \"{key}\", {value})")
    return "\n".join(lines + placing) + "\n"
