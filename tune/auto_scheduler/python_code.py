"""A state's schedule written as te calls (TVM's ``print_python_code_from_state``), one or two
lines per step, the stages and loops named as the state names them."""

from __future__ import annotations

from typing import Any

from tune.auto_scheduler.loop_state import replay_on_state
from tune.auto_scheduler.steps import ANNOTATION_NAMES, fused_split_length, split_lengths


def _ident(name: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in name)


def _split_lines(stage: str, axis: str, names: list[str], lengths: list[Any], inner: bool) -> list[str]:
    """The te splits of *axis* into *names* (outermost first): by factors from the inside
    out, or by part counts from the outside in."""
    lines, rest = [], axis
    count = len(lengths)
    for k in range(count):
        if inner:  # peel the innermost remaining piece
            outer = names[0] if k == count - 1 else f"{axis}_rest{k}"
            lines.append(f"{outer}, {names[count - k]} = s[{stage}].split({rest}, factor={lengths[count - 1 - k]})")
            rest = outer
        else:  # peel the outermost remaining piece
            after = names[-1] if k == count - 1 else f"{axis}_rest{k}"
            lines.append(f"{names[k]}, {after} = s[{stage}].split({rest}, nparts={lengths[k]})")
            rest = after
    return lines


def python_code(state: Any) -> str:
    """The te calls that make *state*'s schedule from the DAG's, replaying its steps."""
    dag = state.compute_dag
    replayed = dag.get_init_state()
    lines: list[str] = []
    for step in state.transform_steps:
        f, k = step.fields, step.kind
        stages = replayed.stages
        stage = _ident(stages[f[0]].op.name)
        iters = [_ident(it.name) for it in stages[f[0]].iters]
        if k in ("SP", "FSP", "FFSP"):
            lengths = (list(f[3]) if k == "SP" else split_lengths(replayed.transform_steps, f[2], f[3]) if k == "FSP"
                       else [fused_split_length(replayed.transform_steps, list(f[2]), f[3])])
            inner = bool(f[4]) if k in ("SP", "FFSP") else True
            replay_on_state(replayed, [step])
            names = [_ident(it.name) for it in replayed.stages[f[0]].iters[f[1]:f[1] + len(lengths) + 1]]
            lines += _split_lines(stage, iters[f[1]], names, lengths, inner)
            continue
        elif k == "FU":
            replay_on_state(replayed, [step])
            fused = _ident(replayed.stages[f[0]].iters[f[1][0]].name)
            lines.append(f"{fused} = s[{stage}].fuse({', '.join(iters[i] for i in f[1])})")
            continue
        elif k == "RE":
            lines.append(f"s[{stage}].reorder({', '.join(iters[i] for i in f[1])})")
        elif k == "AN":
            name = ANNOTATION_NAMES[f[2]]
            call = {"unroll": "unroll", "vectorize": "vectorize", "parallel": "parallel"}.get(name)
            lines.append(f"s[{stage}].{call}({iters[f[1]]})" if call else
                         f"s[{stage}].bind({iters[f[1]]}, te.thread_axis({name!r}))")
        elif k == "PR":
            lines.append(f"s[{stage}].pragma({iters[f[1]]}, {f[2]!r})")
        elif k == "SA":
            lines.append(f"s[{stage}].storage_align({iters[f[1]]}, {f[2]}, {f[3]})")
        elif k == "CA":
            target = stages[f[1]]
            lines.append(f"s[{stage}].compute_at(s[{_ident(target.op.name)}], {_ident(target.iters[f[2]].name)})")
        elif k == "CI":
            lines.append(f"s[{stage}].compute_inline()")
        elif k == "CR":
            lines.append(f"s[{stage}].compute_root()")
        elif k == "CHR":
            readers = ", ".join(_ident(stages[i].op.name) for i in f[2])
            lines.append(f"{stage}_{_ident(f[1])} = s.cache_read({stage}, {f[1]!r}, [{readers}])")
        elif k == "CHW":
            lines.append(f"{stage}_{_ident(f[1])} = s.cache_write({stage}, {f[1]!r})")
        elif k == "RF":
            lines.append(f"{stage}_rf = s.rfactor({stage}, {iters[f[1]]}, factor_axis={f[2]})")
        replay_on_state(replayed, [step])
    return "\n".join(lines) + ("\n" if lines else "")
