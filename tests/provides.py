"""Running the realize/provide form of a schedule and recording what it provides (for tests).

Independent of explain and of the backends: a small interpreter over the statements
ScheduleOps builds, which evaluates loop bounds and guards and notes every Provide.
"""

from __future__ import annotations

from collections import Counter

from lower.ir.stmt import AttrStmt, Evaluate, For, IfThenElse, LetStmt, ProducerConsumer, Provide, Realize, SeqStmt
from lower.passes.schedule_ops import build_pipeline, inferred
from schedule.ir.evaluate import evaluate


def pipeline(s, exact: bool = True):
    """The realize/provide form of *s* as ``lower`` builds it (exact stages visit their sets)."""
    sn = s.normalize()
    regions: dict = {}
    bounds = inferred(sn, exact, regions)
    return build_pipeline(sn, bounds, False, exact, regions)


def _run(stmt, on_provide) -> None:
    stack = [(stmt, {})]
    while stack:
        s, env = stack.pop()
        match s:
            case For():
                lo = evaluate(s.min, env)
                for v in reversed(range(lo, lo + evaluate(s.extent, env))):
                    stack.append((s.body, {**env, s.loop_var: v}))
            case SeqStmt():
                stack.extend((x, env) for x in reversed(s.seq))
            case IfThenElse():
                if evaluate(s.condition, env):
                    stack.append((s.then_case, env))
                elif s.else_case is not None:
                    stack.append((s.else_case, env))
            case LetStmt():
                stack.append((s.body, {**env, s.var: evaluate(s.value, env)}))
            case AttrStmt() | Realize() | ProducerConsumer():
                stack.append((s.body, env))
            case Provide():
                on_provide(s, env)
            case Evaluate():
                pass
            case _:
                raise AssertionError(f"unexpected statement {type(s).__name__}")


def provided(stmt, name: str, outer_name: str) -> dict[int, list[tuple[int, ...]]]:
    """Per value of the loop *outer_name*, the elements of tensor *name* provided, in order
    (repeats kept)."""
    out: dict[int, list[tuple[int, ...]]] = {}

    def note(s, env) -> None:
        if s.op.name == name:
            outer = next(v for k, v in env.items() if k.name == outer_name)
            out.setdefault(outer, []).append(tuple(evaluate(i, env) for i in s.indices))
    _run(stmt, note)
    return out


def provide_counts(stmt) -> Counter:
    """How many times each operation's Provide runs (by the operation)."""
    counts: Counter = Counter()
    _run(stmt, lambda s, env: counts.update([s.op]))
    return counts
