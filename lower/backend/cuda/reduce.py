"""A cross-thread reduction through shuffles: within a warp, ``__shfl_down_sync`` halving the
distance each step, then the first lane's result passed to every lane of the group (TVM's
LowerThreadAllreduce does the same where the reduced threads are a power of two of
``threadIdx.x``). Over more than a warp, each warp's result goes to shared memory, and every
warp reduces those the same way (two levels, as TVM).

The terms combine as a tree, not in the order of the threads: a float sum may differ from the
CPU run's in its last bits (max and min never do).
"""

from __future__ import annotations

from typing import Any

from lower.backend.c.expr import c_type
from schedule.ir.dtype import bits
from schedule.ir.expr import Expr
from schedule.ir.reduce import CommReducer

#: The dtypes ``__shfl_sync`` moves.
SHUFFLED = ("float32", "float64", "int32", "uint32", "int64", "uint64", "float16")
#: The lanes of a warp.
WARP = 32


def fits_warp(over: list[str], extents: dict[str, Any], values: list[Expr]) -> bool:
    """Whether the reduction over the tags *over* can go through shuffles: over threadIdx.x
    alone, a power of two of lanes (up to 1024), values of a shuffled dtype."""
    width = extents.get("threadIdx.x")
    return (over == ["threadIdx.x"] and isinstance(width, int) and 1 < width <= 1024 and width & (width - 1) == 0
            and all(v.dtype in SHUFFLED for v in values))


def warp_allreduce(gen: Any, reducer: CommReducer, values: list[Expr], cond: str, temps: list[Any],
                   width: int, groups: str = "0", group_count: int = 1) -> None:
    """Write the reduction with *gen* (the kernel source: ``emit``, ``names``, ``expr``,
    ``shared``). *groups* is the linear index of the group of threads (those that agree on the
    other thread indices), of *group_count*."""
    types = [c_type(v.dtype) for v in values]
    red = [gen.names.fresh("red_buf0") for _ in values]
    for t, r, v, ident in zip(types, red, values, reducer.identity_element):
        term = gen.expr(v) if cond == "1" else f"({cond} ? {gen.expr(v)} : {gen.expr(ident)})"
        gen.emit(f"{t} {r} = {term};")
    mask = gen.names.fresh("mask")
    gen.emit(f"uint32_t {mask} = __activemask();")
    _shuffle_steps(gen, reducer, red, types, mask, min(width, WARP))
    if width > WARP:
        warps = width // WARP
        partial = [gen.names.fresh("red_buf1") for _ in values]
        for t, p, v in zip(types, partial, values):
            gen.emit(f"__shared__ {t} {p}[{warps * group_count}];")
            gen.shared.append((p, warps * group_count * max(bits(v.dtype) // 8, 1)))
        base = "" if groups == "0" else f"({groups}) * {warps} + "
        gen.emit("if ((((int)threadIdx.x) % 32) == 0) {")
        for p, r in zip(partial, red):
            gen.emit(f"  {p}[{base}(((int)threadIdx.x) / 32)] = {r};")
        gen.emit("}")
        gen.emit("__syncthreads();")
        for r, p, ident in zip(red, partial, reducer.identity_element):
            gen.emit(f"{r} = ((((int)threadIdx.x) % 32) < {warps}) ? {p}[{base}(((int)threadIdx.x) % 32)] : "
                     f"{gen.expr(ident)};")
        _shuffle_steps(gen, reducer, red, types, mask, warps)
    for r, temp in zip(red, temps):
        gen.emit(f"{gen.expr.buffer_name(temp)}[0] = __shfl_sync({mask}, {r}, 0, {min(width, WARP)});")
    if width > WARP:
        gen.emit("__syncthreads();")  # before the next reduction writes the partial results again


def _shuffle_steps(gen: Any, reducer: CommReducer, red: list[str], types: list[str], mask: str, width: int) -> None:
    """Combine *red* over groups of *width* lanes into each group's first lane."""
    offset = width // 2
    while offset:
        gen.emit("{")
        gen.indent += 1
        for var, r in zip(reducer.lhs, red):
            gen.emit(f"const {c_type(var.dtype)} {gen.names(var, var.name)} = {r};")
        for var, r in zip(reducer.rhs, red):
            gen.emit(f"const {c_type(var.dtype)} {gen.names(var, var.name)} = "
                     f"__shfl_down_sync({mask}, {r}, {offset}, {width});")
        new = [gen.names.fresh("red_next") for _ in red]
        for t, n, e in zip(types, new, reducer.result):
            gen.emit(f"const {t} {n} = {gen.expr(e)};")
        for r, n in zip(red, new):
            gen.emit(f"{r} = {n};")
        gen.indent -= 1
        gen.emit("}")
        offset //= 2
