"""TVM's ``autotvm.feature``: the per-loop touch features of a schedule
(:mod:`tune.autotvm.touch`), as rows of named values, flattened into one vector, named, or
sampled as curves of reuse against count per buffer."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lower.lower import lower_for_analysis
from tune.autotvm.touch import ANNOTATIONS, TouchAnalysis, transform

_NAMES = {"_attr_": ["length", "nest_level", "topdown", "bottomup"] + [f"ann_{i}" for i in range(20)],
          "_arith_": ["add", "mul", "div"], "buf_touch": ["stride", "mod", "count", "reuse", "T_count", "T_reuse"]}


def get_itervar_feature(sch: Any, args: Any, take_log: bool = False) -> list[list[list[Any]]]:
    """Per loop, in the order the loops first appear: ``["_itervar_", var]``, ``["_attr_",
    length, nest level, top-down product, bottom-up product, one-hot kind...]``, ``["_arith_",
    additions, multiplications, divisions]``, then per access under it (by name)
    ``[name, stride, mod, count, reuse, thread count, thread reuse]``; numbers as log2(1 + x)
    with *take_log*."""
    def f(x: int) -> float:
        return float(transform(x, take_log))
    rows = []
    for loop in TouchAnalysis(lower_for_analysis(sch, args)).loops():
        row: list[list[Any]] = [["_itervar_", loop.var]]
        row.append(["_attr_", f(loop.length), loop.nest_level, f(loop.topdown), f(loop.bottomup),
                    *(int(a == loop.ann) for a in ANNOTATIONS)])
        row.append(["_arith_", *(f(loop.arith[k]) for k in ("add", "mul", "div"))])
        row += [[name, *(f(v) for v in loop.touch[name].values())] for name in sorted(loop.touch)]
        rows.append(row)
    return rows


def flatten_itervar_feature(fea: list[list[list[Any]]]) -> np.ndarray:
    """The numbers of :func:`get_itervar_feature`'s rows (the variables left out), in order."""
    return np.concatenate([np.asarray(pair[1:], dtype="float64") for row in fea for pair in row[1:]])


def get_itervar_feature_flatten(sch: Any, args: Any, take_log: bool = True) -> tuple[float, ...]:
    """:func:`get_itervar_feature` flattened, as float32 values."""
    flat = flatten_itervar_feature(get_itervar_feature(sch, args, take_log))
    return tuple(float(x) for x in flat.astype("float32"))


def get_flatten_name(fea: list[list[list[Any]]]) -> list[str]:
    """The name of each number of the flattened features: ``f<k>.<var>.<key>.<what>``."""
    names = []
    for row in fea:
        var = str(row[0][1])
        for pair in row[1:]:
            labels = _NAMES.get(pair[0], _NAMES["buf_touch"])
            names += [f"f{len(names) + i}.{var}.{pair[0]}.{labels[i]}" for i in range(len(pair) - 1)]
    return names


def get_buffer_curve_sample_flatten(sch: Any, args: Any, sample_n: int = 30) -> tuple[float, ...]:
    """For each buffer touched in the innermost loops: its counts, reuses and top-down
    products along the nest (log2, each sorted), sampled at *sample_n* points as the curves
    reuse(count), count(reuse), topdown(count) and count(topdown): 2 numbers per point."""
    loops = TouchAnalysis(lower_for_analysis(sch, args)).loops()
    depth = max((lp.nest_level for lp in loops), default=0)
    chosen, seen = [], set()
    for loop in reversed(loops):
        if loop.nest_level == depth:
            for name in sorted(loop.touch):
                raw = name[:name.rfind("_")].split(".")[0]
                if raw not in seen:
                    seen.add(raw)
                    chosen.append(name)
    out: list[float] = []

    def sample(x: list[float], y: list[float]) -> None:
        for i in range(sample_n):
            j = max(k for k in range(len(x)) if i > x[k] - 1e-6)
            out.extend((y[j], i - x[j]))

    for name in sorted(chosen):
        count, reuse, topdown = [0.0], [0.0], [0.0]
        for loop in loops:
            if name in loop.touch:
                reuse.append(math.log2(loop.touch[name].reuse))
                count.append(math.log2(loop.touch[name].count))
                topdown.append(math.log2(loop.topdown))
        count, reuse, topdown = sorted(count), sorted(reuse), sorted(topdown)
        sample(count, reuse)
        sample(reuse, count)
        sample(count, topdown)
        sample(topdown, count)
    return tuple(float(x) for x in np.asarray(out, dtype="float32"))
