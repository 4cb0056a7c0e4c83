"""The iterations a schedule's loop nests execute, enumerated from bounds (for property tests).

Independent of lowering: loops come from leaf ranges, and an iteration runs when every
IterVar above the leaves lies in its inferred range and every root in its domain, which are
the guards a lowering must honour.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import schedule as te
from schedule.ir.evaluate import evaluate
from schedule.schedule.graph import attach_path
from schedule.schedule.relation_passing import pass_up_index


def _range(bounds, iv, env):
    lo = evaluate(bounds[iv].min, env)
    return range(lo, lo + evaluate(bounds[iv].extent, env))


def outer_envs(bounds, stage: te.Stage) -> Iterator[dict]:
    """Every assignment of the loops enclosing *stage* (its attach path), outermost first."""
    loops = list(reversed(attach_path(stage)))

    def rec(k, env):
        if k == len(loops):
            yield dict(env)
            return
        for v in _range(bounds, loops[k], env):
            env[loops[k].var] = v
            yield from rec(k + 1, env)
        env.pop(loops[k].var, None)
    yield from rec(0, {})


def body_envs(bounds, stage: te.Stage) -> Iterator[dict]:
    """Every executed iteration of *stage*'s body: loop variables and root axis values."""
    leaves = stage.leaf_iter_vars
    values = {iv: iv.var for iv in leaves}
    pass_up_index(stage, bounds, values)
    inner = [iv for iv in values if iv not in set(leaves)]
    for outer in outer_envs(bounds, stage):
        def rec(k, env):
            if k == len(leaves):
                yield env
                return
            for v in _range(bounds, leaves[k], env):
                env[leaves[k].var] = v
                yield from rec(k + 1, env)
        for env in rec(0, dict(outer)):
            vals = {iv: evaluate(values[iv], env) for iv in inner}
            if any(not evaluate(bounds[iv].min, env) <= v < evaluate(bounds[iv].min, env)
                   + evaluate(bounds[iv].extent, env) for iv, v in vals.items()):
                continue
            roots = stage.op.root_iter_vars
            full = dict(env)
            for iv in roots:
                full[iv.var] = vals.get(iv, env.get(iv.var))
            if any(iv.dom is not None and not evaluate(iv.dom.min, full) <= full[iv.var]
                   < evaluate(iv.dom.min, full) + evaluate(iv.dom.extent, full) for iv in roots):
                continue
            yield full


def box(bounds, T, env) -> list[tuple[int, int]]:
    """``[lo, hi)`` per dimension of *T*'s realized region under loop values *env*."""
    out = []
    for iv in T.op.axis:
        lo = evaluate(bounds[iv].min, env)
        out.append((lo, lo + evaluate(bounds[iv].extent, env)))
    return out


def volumes(bounds, stage: te.Stage) -> tuple[int, int]:
    """(largest region, elements computed over all executions: the region inside the shape)."""
    T = stage.op.output(0)
    sizes, computed = [], 0
    for env in outer_envs(bounds, stage):
        size = inside = 1
        for (lo, hi), n in zip(box(bounds, T, env), T.shape):
            size *= max(hi - lo, 0)
            inside *= max(min(hi, int(n)) - max(lo, 0), 0)
        sizes.append(size)
        computed += inside
    return max(sizes, default=0), computed


def region_points(bounds, stage: te.Stage) -> Iterator[dict]:
    """Every point of *stage*'s realized box inside its domain, all roots (reductions too), per execution."""
    roots = stage.op.root_iter_vars
    for env in outer_envs(bounds, stage):
        ranges = [range(max(r.start, 0), min(r.stop, evaluate(iv.dom.extent, env)))
                  for iv, r in ((iv, _range(bounds, iv, env)) for iv in roots)]
        for point in itertools.product(*ranges):
            yield {**env, **{iv.var: x for iv, x in zip(roots, point)}}
