"""Numbers describing a schedule without running it, for cost models.

- the loop nest around the statement that does the most work (its innermost :data:`LEVELS`
  loops, innermost first): each loop's extent, kind (parallel, vectorized, unrolled), and the
  footprint of the loop: the bytes its iterations touch, over all buffers and of the stored
  buffer alone (the product of the extents of the loops inside it that an access's index
  uses: exact for affine indices with distinct strides, an upper bound otherwise);
- per stage, elements allocated and computed (stores times the iterations around them) and
  their ratio, or, asked for, the exact counts of ``explain`` (allocated, computed, needed);
  and the bytes allocated per storage scope.

Every count enters as log2(1 + x), so that features of schedules of different sizes compare.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from bound import explain
from lower.ir.stmt import Allocate, For, ForKind, Load, Stmt, Store
from lower.ir.stmt_functor import stmt_children, stmt_exprs
from lower.lower import lower_quietly
from schedule import arith
from schedule.ir.dtype import bits
from schedule.ir.functor import distinct_post_order, free_vars

#: Loops described, from the innermost out.
LEVELS = 6
#: Stages described by their explain counts, from the output back.
STAGES = 4
_PER_LEVEL = 6
_SCOPES = ("global", "local", "shared")
#: The length of every feature vector.
LENGTH = LEVELS * _PER_LEVEL + STAGES * 3 + len(_SCOPES) + 2


def _log(x: float) -> float:
    return math.log2(1.0 + max(0.0, float(x)))


def _extent(loop: For) -> int:
    value = arith.value_of(loop.extent)
    return int(value) if isinstance(value, int) else 1


def _heaviest_path(body: Stmt) -> tuple[list[For], list[Stmt]]:
    """The loops around the store with the most iterations, outermost first, and each loop's
    body statements (explicit stack: nests may be deep)."""
    best: tuple[int, list[For]] = (-1, [])
    stack: list[tuple[Stmt, list[For], int]] = [(body, [], 1)]
    while stack:
        node, loops, work = stack.pop()
        if isinstance(node, Store) and work > best[0]:
            best = (work, loops)
        if isinstance(node, For):
            loops, work = [*loops, node], work * max(1, _extent(node))
        stack.extend((child, loops, work) for child in stmt_children(node))
    return best[1], [loop.body for loop in best[1]]


def _accesses(stmt: Stmt) -> list[tuple[Any, Any, bool]]:
    """(buffer, index, is_store) of every load and store under *stmt*."""
    out: list[tuple[Any, Any, bool]] = []
    stack = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, Store):
            out.append((node.buffer, node.index, True))
        for e in stmt_exprs(node):
            out.extend((x.buffer, x.index, False) for x in distinct_post_order(e) if isinstance(x, Load))
        stack.extend(stmt_children(node))
    return out


def _inner_extents(stmt: Stmt) -> dict[Any, int]:
    extents: dict[Any, int] = {}
    stack = [stmt]
    while stack:
        node = stack.pop()
        if isinstance(node, For):
            extents[node.loop_var] = max(1, _extent(node))
        stack.extend(stmt_children(node))
    return extents


def loop_features(body: Stmt) -> list[float]:
    """The :data:`LEVELS` innermost loops of the heaviest nest, innermost first (zeros pad)."""
    loops, _ = _heaviest_path(body)
    out: list[float] = []
    for loop in reversed(loops[-LEVELS:]):
        extents = _inner_extents(loop)
        total = stored = 0.0
        seen: set[tuple[int, str]] = set()
        for buf, index, is_store in _accesses(loop):
            used = free_vars([index])
            elements = math.prod(n for v, n in extents.items() if v in used)
            key = (id(buf), str(index))
            if key in seen:
                continue
            seen.add(key)
            size = elements * bits(buf.dtype) / 8
            total += size
            stored += size if is_store else 0.0
        out += [_log(_extent(loop)), float(loop.kind == ForKind.PARALLEL), float(loop.kind == ForKind.VECTORIZED),
                float(loop.kind == ForKind.UNROLLED), _log(total), _log(stored)]
    return out + [0.0] * (LEVELS * _PER_LEVEL - len(out))


def _allocated_bytes(body: Stmt) -> list[float]:
    per_scope = dict.fromkeys(_SCOPES, 0.0)
    stack = [body]
    while stack:
        node = stack.pop()
        if isinstance(node, Allocate):
            size = arith.value_of(node.buffer.size)
            scope = getattr(node.buffer, "scope", "global") or "global"
            if isinstance(size, int):
                per_scope[scope if scope in per_scope else "global"] += size * bits(node.buffer.dtype) / 8
        stack.extend(stmt_children(node))
    return [_log(per_scope[s]) for s in _SCOPES]


def _store_counts(body: Stmt) -> dict[Any, int]:
    """Iterations of the stores into each buffer (loop extents multiplied; guards ignored)."""
    counts: dict[Any, int] = {}
    stack: list[tuple[Stmt, int]] = [(body, 1)]
    while stack:
        node, work = stack.pop()
        if isinstance(node, Store):
            counts[node.buffer] = counts.get(node.buffer, 0) + work
        if isinstance(node, For):
            work *= max(1, _extent(node))
        stack.extend((child, work) for child in stmt_children(node))
    return counts


def schedule_features(s: Any, args: Sequence[Any], exact_counts: bool = False) -> np.ndarray:
    """The feature vector (length :data:`LENGTH`) of schedule *s* over *args*. Stage counts come
    from the loop nest (stores times enclosing iterations, against each buffer's size), or with
    *exact_counts* from ``explain`` (allocated, computed, computed / needed: exact, and up to
    a second per configuration)."""
    func = lower_quietly(s, args)  # a configuration reading outside is refused when built
    stage: list[float] = []
    if exact_counts:
        report = explain(s)
        rows = list(report.values())[::-1][:STAGES]
        for row in rows:
            stage += [_log(row.allocated), _log(row.computed), min(row.ratio, 64.0)]
        stages = len(report)
    else:
        counts = _store_counts(func.body)
        for buf, computed in sorted(counts.items(), key=lambda kv: -kv[1])[:STAGES]:
            size = arith.value_of(buf.size)
            size = size if isinstance(size, int) and size > 0 else computed
            stage += [_log(size), _log(computed), min(computed / max(size, 1), 64.0)]
        stages = len(counts)
    stage += [0.0] * (STAGES * 3 - len(stage))
    loops, _ = _heaviest_path(func.body)
    work = math.prod(max(1, _extent(loop)) for loop in loops)
    out = loop_features(func.body) + stage + _allocated_bytes(func.body) + [_log(work), float(stages)]
    return np.asarray(out, dtype=np.float64)
