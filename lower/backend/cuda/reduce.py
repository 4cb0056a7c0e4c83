"""Cross-thread reductions (``tvm_thread_allreduce``) in CUDA.

Over a power of two of ``threadIdx.x`` lanes, through shuffles: within a warp,
``__shfl_down_sync`` halving the distance each step, then the first lane's result passed to
every lane of the group (TVM's LowerThreadAllreduce does the same). Over more than a warp, each
warp's result goes to shared memory, and every warp reduces those the same way (two levels).
The terms combine as a tree, not in the order of the threads: a float sum may differ from the
CPU run's in its last bits (max and min never do).

Other reductions file every thread's term in shared memory, and each thread combines its
group's terms (the threads that differ only in the reduced indices) in the order of those
indices, as the CPU run does: both give the same bits.
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
    _shuffle_steps(gen, reducer, red, mask, min(width, WARP))
    if width > WARP:
        warps = width // WARP
        partial = [gen.names.fresh("red_buf1") for _ in values]
        for t, p, v in zip(types, partial, values):
            gen.emit(f"__shared__ {t} {p}[{warps * group_count}];")
            gen.shared.append((p, warps * group_count * element_bytes(v.dtype)))
        base = "" if groups == "0" else f"({groups}) * {warps} + "
        gen.emit("if ((((int)threadIdx.x) % 32) == 0) {")
        for p, r in zip(partial, red):
            gen.emit(f"  {p}[{base}(((int)threadIdx.x) / 32)] = {r};")
        gen.emit("}")
        gen.emit("__syncthreads();")
        for r, p, ident in zip(red, partial, reducer.identity_element):
            gen.emit(f"{r} = ((((int)threadIdx.x) % 32) < {warps}) ? {p}[{base}(((int)threadIdx.x) % 32)] : "
                     f"{gen.expr(ident)};")
        _shuffle_steps(gen, reducer, red, mask, warps)
    for r, temp in zip(red, temps):
        gen.emit(f"{gen.expr.buffer_name(temp)}[0] = __shfl_sync({mask}, {r}, 0, {min(width, WARP)});")
    if width > WARP:
        gen.emit("__syncthreads();")  # before the next reduction writes the partial results again


def _shuffle_steps(gen: Any, reducer: CommReducer, red: list[str], mask: str, width: int) -> None:
    """Combine *red* over groups of *width* lanes into each group's first lane."""
    offset = width // 2
    while offset:
        shuffled = [f"__shfl_down_sync({mask}, {r}, {offset}, {width})" for r in red]
        _combine(gen, reducer, red, shuffled, red)
        offset //= 2


def shared_allreduce(gen: Any, reducer: CommReducer, values: list[Expr], cond: str, temps: list[Any],
                     over: list[str], block: list[str], extents: dict[str, int]) -> None:
    """The reduction over the tags *over* through shared memory, in the CPU run's order."""
    count = int_product(extents.values())
    index = {t: f"((int){t})" for t in block}
    bufs = [gen.names.fresh("red_buf0") for _ in values]
    for v, buf in zip(values, bufs):
        gen.emit(f"__shared__ {c_type(v.dtype)} {buf}[{count}];")
        gen.shared.append((buf, count * element_bytes(v.dtype)))
    for v, buf, ident in zip(values, bufs, reducer.identity_element):
        term = gen.expr(v) if cond == "1" else f"({cond} ? {gen.expr(v)} : {gen.expr(ident)})"
        gen.emit(f"{buf}[{linear_index(index, block, extents)}] = {term};")
    gen.emit("__syncthreads();")
    accs = [gen.names.fresh("red_acc") for _ in values]
    for v, acc, ident in zip(values, accs, reducer.identity_element):
        gen.emit(f"{c_type(v.dtype)} {acc} = {gen.expr(ident)};")
    rank = dict(index)
    for tag in over:
        rank[tag] = r = gen.names.fresh("red_r")
        gen.emit(f"for (int {r} = 0; {r} < {extents[tag]}; ++{r}) {{")
        gen.indent += 1
    at = linear_index(rank, block, extents)
    _combine(gen, reducer, accs, [f"{buf}[{at}]" for buf in bufs], accs)
    for _ in over:
        gen.indent -= 1
        gen.emit("}")
    for temp, acc in zip(temps, accs):
        gen.emit(f"{gen.expr.buffer_name(temp)}[0] = {acc};")
    gen.emit("__syncthreads();")  # before the next reduction writes the terms again


def _combine(gen: Any, reducer: CommReducer, lhs: list[str], rhs: list[str], out: list[str]) -> None:
    """``out = combine(lhs, rhs)`` (C texts), in a scope of its own for the reducer's names."""
    gen.emit("{")
    gen.indent += 1
    for var, text in zip(reducer.lhs, lhs):
        gen.emit(f"const {c_type(var.dtype)} {gen.names(var, var.name)} = {text};")
    for var, text in zip(reducer.rhs, rhs):
        gen.emit(f"const {c_type(var.dtype)} {gen.names(var, var.name)} = {text};")
    new = [gen.names.fresh("red_next") for _ in out]
    for n, e in zip(new, reducer.result):
        gen.emit(f"const {c_type(e.dtype)} {n} = {gen.expr(e)};")
    for o, n in zip(out, new):
        gen.emit(f"{o} = {n};")
    gen.indent -= 1
    gen.emit("}")


def linear_index(index: dict[str, str], tags: list[str], extents: dict[str, Any]) -> str:
    """The linear index of the per-tag indices *index*, threadIdx.x fastest."""
    text = ""
    for tag in reversed(tags):
        text = index[tag] if not text else f"({text}) * {extents[tag]} + {index[tag]}"
    return text or "0"


def element_bytes(dtype: str) -> int:
    return max(bits(dtype) // 8, 1)


def int_product(xs: Any) -> int:
    out = 1
    for x in xs:
        out *= x
    return out
