"""A cross-thread reduction within a warp: ``__shfl_down_sync`` halving the distance each
step, then the first lane's result passed to every lane of the group (TVM's LowerThreadAllreduce
does the same where the reduced threads are a power of two of ``threadIdx.x`` within a warp).

The terms combine as a tree, not in the order of the threads: a float sum may differ from the
CPU run's in its last bits (max and min never do).
"""

from __future__ import annotations

from typing import Any

from lower.backend.c.expr import c_type
from schedule.ir.expr import Expr
from schedule.ir.reduce import CommReducer

#: The dtypes ``__shfl_sync`` moves.
SHUFFLED = ("float32", "float64", "int32", "uint32", "int64", "uint64", "float16")
#: The lanes of a warp.
WARP = 32


def fits_warp(over: list[str], extents: dict[str, Any], values: list[Expr]) -> bool:
    """Whether the reduction over the tags *over* can go through shuffles: over threadIdx.x
    alone, a power of two of lanes that divides the warp, values of a shuffled dtype."""
    width = extents.get("threadIdx.x")
    return (over == ["threadIdx.x"] and isinstance(width, int) and 1 < width <= WARP and WARP % width == 0
            and all(v.dtype in SHUFFLED for v in values))


def warp_allreduce(gen: Any, reducer: CommReducer, values: list[Expr], cond: str, temps: list[Any],
                   width: int) -> None:
    """Write the reduction with *gen* (the kernel source: ``emit``, ``names``, ``expr``)."""
    types = [c_type(v.dtype) for v in values]
    red = [gen.names.fresh("red_buf0") for _ in values]
    for t, r, v, ident in zip(types, red, values, reducer.identity_element):
        term = gen.expr(v) if cond == "1" else f"({cond} ? {gen.expr(v)} : {gen.expr(ident)})"
        gen.emit(f"{t} {r} = {term};")
    mask = gen.names.fresh("mask")
    gen.emit(f"uint32_t {mask} = __activemask();")
    offset = width // 2
    while offset:
        gen.emit("{")
        gen.indent += 1
        for var, r in zip(reducer.lhs, red):
            gen.emit(f"const {c_type(var.dtype)} {gen.names(var, var.name)} = {r};")
        for var, r in zip(reducer.rhs, red):
            gen.emit(f"const {c_type(var.dtype)} {gen.names(var, var.name)} = "
                     f"__shfl_down_sync({mask}, {r}, {offset}, {width});")
        new = [gen.names.fresh("red_next") for _ in values]
        for t, n, e in zip(types, new, reducer.result):
            gen.emit(f"const {t} {n} = {gen.expr(e)};")
        for r, n in zip(red, new):
            gen.emit(f"{r} = {n};")
        gen.indent -= 1
        gen.emit("}")
        offset //= 2
    for r, temp in zip(red, temps):
        gen.emit(f"{gen.expr.buffer_name(temp)}[0] = __shfl_sync({mask}, {r}, 0, {width});")
