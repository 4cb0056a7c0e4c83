"""A lowered function as C: emitted, compiled (or found in the cache), loaded with ctypes, and
called on the arrays' own memory."""

from __future__ import annotations

import ctypes
import os
from collections.abc import Sequence
from typing import Any

import numpy as np

from lower.backend.c.callback import Callbacks
from lower.backend.c.compile import compile_c
from lower.backend.c.interrupts import INTERRUPTED, attach, ensure_handler, interrupted
from lower.backend.c.runtime import PYTHON, CallContext, failure
from lower.backend.c.stmt import ENTRY, c_source
from lower.ir.stmt import Buffer, Stmt
from schedule.ir.dtype import is_float
from schedule.ir.expr import Var

# OpenMP threads that spin while they wait cost a scheduler tick each time a busy machine
# preempts one: a conv2d under two busy processes took 16 ms with libgomp's default spinning
# (300000 turns), 3-4 ms waiting passively. Passive waiting, though, makes a quiet machine wake
# each thread at each parallel loop (the blur 10-25% slower than Halide's pool, equal on one
# thread). A short spin (10000 turns, tens of microseconds) measured as fast as passive under
# two busy processes and 3-10% faster than passive when quiet, as fast as Halide on the blur.
# libgomp reads this when it is loaded, with the first kernel; a choice of the user's is kept.
SPIN_COUNT = "10000"
if "OMP_WAIT_POLICY" not in os.environ and "GOMP_SPINCOUNT" not in os.environ:
    os.environ["GOMP_SPINCOUNT"] = SPIN_COUNT

class CKernel:
    """The compiled function of *body* over *buffers* and the scalar *params*.

    C checks only what it cannot know before running (indices computed from data, divisors,
    reads of memory threads share, allocations); with *checks* False, allocations only.
    *fast_math* compiles with GCC's fast math (see :data:`~lower.backend.c.compile.FAST_MATH`);
    *libm* keeps the C library's exp, log, tanh and erf in vector loops (see
    :mod:`lower.backend.c.vector_math`).
    """

    def __init__(self, body: Stmt, buffers: Sequence[Buffer], params: Sequence[Var], checks: bool = True,
                 fast_math: bool = False, library: str | None = None, libm: bool = False,
                 fp_contract: bool = False) -> None:
        program = c_source(body, buffers, params, checked=checks, libm=libm)
        self.source = program.source
        # *library*: a shared object export_library wrote from this same source.
        self._lib = ctypes.CDLL(library if library is not None else str(compile_c(self.source, fast_math, fp_contract)))
        attach(self._lib)
        self._fn = getattr(self._lib, ENTRY)
        self._fn.restype = ctypes.c_int32
        self._scalars = [_scalar_type(v.dtype) for v in params]
        self._fn.argtypes = [ctypes.c_void_p] * len(buffers) + self._scalars + [ctypes.c_void_p]
        self._callbacks = Callbacks(program.calls)
        self._sites = program.sites
        self._contexts: list[tuple[CallContext, int]] = []  # free contexts of direct calls
        #: Whether :meth:`direct` may run it (no Python function to give arrays to).
        self.direct_calls = not program.calls

    def direct(self, addresses: list[int], values: list[Any]) -> None:
        """Run on arrays given by their data addresses (C-contiguous, checked by the caller)."""
        ensure_handler()
        if not self._sites:
            if self._fn(*addresses, *values, None) == INTERRUPTED:
                interrupted()
            return
        try:
            ctx, at = self._contexts.pop()
        except IndexError:
            ctx = CallContext()
            at = ctypes.addressof(ctx)
        ctx.status = 0
        try:
            if self._fn(*addresses, *values, at) == INTERRUPTED:
                interrupted()
            if ctx.status:
                raise failure(ctx, self._sites)
        finally:
            self._contexts.append((ctx, at))

    def __call__(self, arrays: Sequence[np.ndarray], values: Sequence[Any], writes: Sequence[bool]) -> None:
        """Run on *arrays* in place (a non-contiguous one through a contiguous copy, copied back
        if *writes* says it is written); an error raised by a Python function it called is
        raised here."""
        data = [a if a.flags.c_contiguous else np.ascontiguousarray(a) for a in arrays]
        state = self._callbacks.begin(data, writes)
        ensure_handler()
        try:
            if self._fn(*(a.ctypes.data for a in data), *(t(v) for t, v in zip(self._scalars, values)),
                        ctypes.addressof(state.context)) == INTERRUPTED:
                interrupted()
            status, error = state.context.status, state.error
            if status:
                raise error if status == PYTHON and error is not None else failure(state.context, self._sites)
        finally:
            self._callbacks.end(state)
        for a, copy, written in zip(arrays, data, writes):
            if copy is not a and written:
                a[...] = copy


def _scalar_type(dtype: str) -> Any:
    if is_float(dtype):
        return ctypes.c_float if dtype == "float32" else ctypes.c_double
    return {"int64": ctypes.c_int64, "uint64": ctypes.c_uint64, "uint32": ctypes.c_uint32,
            "bool": ctypes.c_bool}.get(dtype, ctypes.c_int32)
