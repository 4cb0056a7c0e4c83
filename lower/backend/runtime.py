"""What generated Python kernels call at run time: checked loads and stores, and GPU blocks.

A block of GPU threads runs as one generator per thread: every thread runs up to the next
barrier (``yield``) before any thread passes it, as ``__syncthreads()`` guarantees.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

from schedule.evaluate import MATH_FUNCS, floor_div, trunc_div, trunc_mod


class OutOfBoundsError(IndexError):
    """A run read or wrote outside a buffer's realized region."""


class BarrierDivergenceError(RuntimeError):
    """Some threads of a block finished while others waited at a barrier (a deadlock on a GPU)."""


def _check(kind: str, name: str, checks: tuple, flat: int, size: int) -> None:
    index = checks[0::3]
    for i, lo, ext in zip(checks[0::3], checks[1::3], checks[2::3]):
        if not lo <= i < lo + ext:
            break
    else:
        if 0 <= flat < size:
            return
    region = " x ".join(f"[{lo}, {lo + ext})" for lo, ext in zip(checks[1::3], checks[2::3]))
    raise OutOfBoundsError(f"out-of-bounds {kind} of {name} at index {tuple(index)} (flat {flat}); "
                           f"the realized region is {region or 'flat [0, ' + str(size) + ')'}")


def _load(buf: list, flat: int, name: str, checks: tuple) -> Any:
    _check("read", name, checks or (flat, 0, len(buf)), flat, len(buf))
    return buf[flat]


def _store(buf: list, flat: int, value: Any, name: str, checks: tuple) -> None:
    _check("write", name, checks or (flat, 0, len(buf)), flat, len(buf))
    buf[flat] = value


def _run_block(threads: list[Iterator[None]]) -> None:
    """Run the threads of one block in lock step from barrier to barrier."""
    active = threads
    while active:
        waiting = []
        for t in active:
            try:
                next(t)
            except StopIteration:
                continue
            waiting.append(t)
        if waiting and len(waiting) != len(active):
            raise BarrierDivergenceError(
                f"{len(active) - len(waiting)} of {len(active)} threads of a block finished while the others "
                "wait at a barrier (tvm_storage_sync under a condition that differs between threads)")
        active = waiting


RUNTIME: dict[str, Any] = {"_load": _load, "_store": _store, "_tdiv": trunc_div, "_tmod": trunc_mod,
                           "_fdiv": floor_div, "_math": MATH_FUNCS, "_trunc": math.trunc,
                           "_inf": math.inf, "_nan": math.nan, "_math_fmod": math.fmod,
                           "_run_block": _run_block}
