"""Arguments a C kernel updates in place, realigned for the call.

A kernel whose stores read the element they write (a reduction through memory, as the output
tile of a tiled matmul) runs 1.5-1.8x slower when that argument's data starts off a 64-byte
boundary, as NumPy's large arrays do (16 bytes into a page): every vector of the update then
straddles two cache lines. Measured on the tiled 512^3 matmul: 2.6 ms aligned, 4.0-4.9 ms with
the output 16 or 32 bytes off, whatever the inputs' offsets; kernels that write each element
once (the blur, the conv2d with a register accumulator) move by 10% at most. Such an
argument, if misaligned and at least :data:`REALIGN_BYTES` large, is copied into aligned
memory for the call and back after it (two copies: about 0.1 ms a megabyte).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from lower.backend.nd import ALIGNMENT, empty
from lower.ir.stmt import Buffer, Load, Stmt, Store
from lower.ir.stmt_functor import walk
from schedule.ir.functor import distinct_post_order

#: Arguments smaller than this are left where they are.
REALIGN_BYTES = 1 << 16


def updated_in_place(body: Stmt) -> list[Buffer]:
    """The buffers *body* stores into with a value that loads the same buffer."""
    found: dict[int, Buffer] = {}
    for s in walk(body):
        if isinstance(s, Store) and id(s.buffer) not in found and any(
                isinstance(x, Load) and x.buffer is s.buffer for x in distinct_post_order(s.value)):
            found[id(s.buffer)] = s.buffer
    return list(found.values())


class Spares:
    """Aligned arrays kept between calls (fresh memory costs a page fault a page), taken by one
    call at a time: calls from several threads each get their own."""

    def __init__(self) -> None:
        self._free: list[np.ndarray] = []

    def take(self, like: np.ndarray) -> np.ndarray:
        for _ in range(len(self._free)):
            try:
                a = self._free.pop()
            except IndexError:
                break
            if a.shape == like.shape and a.dtype == like.dtype:
                return a
        return empty(like.shape, like.dtype)

    def give(self, a: np.ndarray) -> None:
        if len(self._free) < 4:
            self._free.append(a)


def realigned(arrays: Sequence[Any], positions: Sequence[int], spares: Spares
              ) -> tuple[list[Any], list[tuple[np.ndarray, np.ndarray]]]:
    """*arrays* with those at *positions* that need it replaced by aligned copies (from
    *spares*), and the (original, copy) pairs to copy back after the call. An array that may
    overlap another argument stays, so that the call's checks see the overlap."""
    out = list(arrays)
    moved = []
    for k in positions:
        a = out[k] if k < len(out) else None
        if isinstance(a, np.ndarray) and a.flags.c_contiguous and a.flags.writeable \
                and a.nbytes >= REALIGN_BYTES and a.ctypes.data % ALIGNMENT \
                and not any(isinstance(b, np.ndarray) and j != k and np.may_share_memory(a, b)
                            for j, b in enumerate(arrays)):
            copy = spares.take(a)
            copy[...] = a
            out[k] = copy
            moved.append((a, copy))
    return out, moved
