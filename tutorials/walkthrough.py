"""Shared by the tutorials: print a schedule's bounds and lowered IR in both modes, then run it."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import schedule as te
from bound import explain, infer_bound
from lower import build, lower, reference, schedule_ops


def show(title: str, s: te.Schedule, args: Sequence[te.Tensor], watch: Sequence[te.Tensor],
         keep_trivial: bool = False, realize_form: bool = False) -> None:
    """Bounds of *watch*'s axes, the lowered IR and the explain table in faithful and exact
    mode (and the realize/produce form of ScheduleOps if *realize_form*); then run both builds
    on random inputs and compare with the reference."""
    print(f"==== {title}")
    inputs = [t for t in args if isinstance(t.op, te.PlaceholderOp)]
    outputs = [t for t in args if not isinstance(t.op, te.PlaceholderOp)]
    rng = np.random.default_rng(0)
    data = {t: rng.integers(-5, 6, size=[int(n) for n in t.shape]).astype(t.dtype) for t in inputs}
    expected = reference(outputs, data)
    for exact in (False, True):
        mode = "exact" if exact else "faithful"
        bounds = infer_bound(s, exact=exact)
        print(f"-- {mode} bounds ([min, extent] per axis)")
        for t in watch:
            dims = " x ".join(f"[{bounds[iv].min}, {bounds[iv].extent}]" for iv in t.op.axis)
            print(f"   {t.name}: {dims}")
        if realize_form:
            print(f"-- {mode} ScheduleOps (realize/produce form)")
            print(schedule_ops(s, debug_keep_trivial_loop=keep_trivial, exact=exact), end="")
        print(f"-- {mode} lowered IR")
        print(lower(s, args, exact=exact, debug_keep_trivial_loop=keep_trivial), end="")
        print(explain(s, exact=exact))
        results = [np.zeros([int(n) for n in t.shape], t.dtype) for t in outputs]
        build(s, args, exact=exact)(*(data[t] for t in inputs), *results)
        same = all(np.array_equal(r, expected[t]) for r, t in zip(results, outputs))
        print(f"-- {mode} run matches the reference: {same}")
        if not same:
            raise SystemExit(f"{title}: the {mode} build differs from the reference")
    print()
