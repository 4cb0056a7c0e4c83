"""Calls from compiled C into Python functions (``call_packed``, registered externs, tensorize).

The C side packs a call's arguments into three arrays: pointers, 64-bit integers describing
each argument, and doubles. Every argument starts with its kind in the integers: an integer
(its value follows), a float (its value is the next double), a string (its index in the
call's table follows) or a buffer (its dtype, rank, shape, strides, offset, the size of its
storage, and whether the callee may write it; its base pointer is the next pointer).

A buffer in one of the call's argument arrays reaches Python as a NumPy view of that array,
which keeps it alive, read-only where the function only reads the argument; a buffer the kernel
allocated (freed when the kernel is done with it) as an array of its own, copied in before the
call and back after it, so that a function may keep what it was given.
"""

from __future__ import annotations

import ctypes
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from lower.backend.c.runtime import CALLBACK, CallContext
from lower.backend.nd import NDArray
from lower.backend.python.runtime import OutOfBoundsError, call_result, check_signals
from schedule.base.packed import get_global_func
from schedule.ir.evaluate import extern_function

INT, FLOAT, STRING, BUFFER = 0, 1, 2, 3
#: Buffer flags: the callee may write it; the pointer's extent stops at the end of its storage.
WRITES, CLIPPED = 1, 2
#: The element types a buffer may have, by the code the C side passes.
DTYPES = ("float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "bool")


@dataclass(frozen=True)
class PythonCall:
    """One call site: ``packed`` (looked up when called) or ``extern`` (a registered function),
    returning *dtype* (None where its value is not used)."""

    kind: str
    name: str
    strings: tuple[str, ...] = ()
    dtype: str | None = None


@dataclass
class CallState:
    """The Python side of one call of a kernel: its arrays by address (each with whether the
    kernel writes it), and the first error a Python function raised."""

    arrays: dict[int, tuple[np.ndarray, bool]]
    error: BaseException | None = None
    context: CallContext = field(default_factory=CallContext)


class Callbacks:
    """The Python functions a kernel calls, and the state of each call in progress."""

    def __init__(self, calls: Sequence[PythonCall]) -> None:
        self.calls = list(calls)
        self.pointer = CALLBACK(self._call)  # kept alive as long as the kernel
        self._active: dict[int, CallState] = {}
        self._free: list[CallState] = []
        self._lock = threading.Lock()

    def begin(self, arrays: Sequence[np.ndarray], writes: Sequence[bool]) -> CallState:
        """A fresh state for a call over *arrays* (its context is what the kernel receives)."""
        with self._lock:
            state = self._free.pop() if self._free else None
        if state is None:
            state = CallState({})
            state.context.python = self.pointer
        state.arrays = {a.ctypes.data: (a, w) for a, w in zip(arrays, writes) if a.size} if self.calls else {}
        state.error = None
        state.context.status = 0
        self._active[ctypes.addressof(state.context)] = state
        return state

    def end(self, state: CallState) -> None:
        """Forget *state*'s call (its arrays), keeping the state for the next call."""
        del self._active[ctypes.addressof(state.context)]
        state.arrays, state.error = {}, None
        with self._lock:
            self._free.append(state)

    def _call(self, ctx: int, index: int, ptrs: Any, ints: Any, floats: Any, fres: Any, ires: Any) -> int:
        state = self._active[ctx]
        try:
            check_signals()
            call = self.calls[index]
            fn = get_global_func(call.name) if call.kind in ("packed", "trace") else extern_function(call.name)
            if fn is None:
                raise ValueError(f"no external function '{call.name}'; register it with te.register_func")
            values, copies = _arguments(call, state, ptrs, ints, floats)
            returned = fn(*values)
            if call.kind == "trace" and returned is None:  # a trace action that returns nothing keeps the value
                returned = values[-1]
            result = call_result(call.name, call.dtype, returned)
            for memory, copy in copies:
                memory[...] = copy
            if isinstance(result, float):
                fres[0] = result
            else:
                ires[0] = result
                fres[0] = float(result)
        except BaseException as err:  # raised again when the kernel returns
            if state.error is None:
                state.error = err
            return 1
        return 0


def _arguments(call: PythonCall, state: CallState, ptrs: Any, ints: Any,
               floats: Any) -> tuple[list[Any], list[tuple[np.ndarray, np.ndarray]]]:
    """The call's values, and the (memory, copy) pairs to copy back after it."""
    values: list[Any] = []
    copies: list[tuple[np.ndarray, np.ndarray]] = []
    at, ptr, fl = 1, 0, 0
    for _ in range(ints[0]):
        kind = ints[at]
        at += 1
        if kind == INT:
            values.append(int(ints[at]))
            at += 1
        elif kind == FLOAT:
            values.append(float(floats[fl]))
            fl += 1
        elif kind == STRING:
            values.append(call.strings[ints[at]])
            at += 1
        else:
            dtype, ndim = DTYPES[ints[at]], ints[at + 1]
            shape = [ints[at + 2 + k] for k in range(ndim)]
            strides = [ints[at + 2 + ndim + k] for k in range(ndim)]
            offset, size, flags = (ints[at + 2 + 2 * ndim + k] for k in range(3))
            at += 5 + 2 * ndim
            array = _array(call.name, state, ptrs[ptr], dtype, shape, strides, offset, size, flags, copies)
            values.append(array.view(NDArray))  # TVM passes NDArrays: .numpy(), .copyto()
            ptr += 1
    return values, copies


def _array(name: str, state: CallState, base: int | None, dtype: str, shape: list[int], strides: list[int],
           offset: int, size: int, flags: int, copies: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    """The NumPy array a buffer argument describes: a view of the call's array it lies in, or a
    copy of the kernel's own memory (see the module's docstring)."""
    if flags & CLIPPED and shape:
        shape[0] = max(0, min(shape[0], size - offset))
    last = offset + sum((n - 1) * st for n, st in zip(shape, strides))
    if shape and (last >= size or offset < 0 or any(n < 0 for n in shape)):
        raise OutOfBoundsError(f"call '{name}': a buffer of shape {tuple(shape)} and strides {tuple(strides)} "
                               f"from element {offset} does not fit its storage of {size} elements")
    itemsize = np.dtype(dtype).itemsize
    count = max(last + 1 - offset, 0) if all(n > 0 for n in shape) else 0
    byte_strides = tuple(st * itemsize for st in strides)
    owner = state.arrays.get(base or 0)
    if owner is not None and owner[0].dtype == np.dtype(dtype):
        array, written = owner
        view = np.ndarray(tuple(shape), dtype, buffer=array.reshape(-1), offset=offset * itemsize,
                          strides=byte_strides) if count else np.zeros(tuple(shape), dtype)
        if not (written and flags & WRITES) and view.flags.writeable:
            view.flags.writeable = False
        return view
    if not count:
        return np.zeros(tuple(shape), dtype)
    memory = np.ndarray(tuple(shape), dtype, buffer=(ctypes.c_char * (count * itemsize)).from_address(
        (base or 0) + offset * itemsize), strides=byte_strides)
    copy = memory.copy()
    if flags & WRITES:
        copies.append((memory, copy))
    else:
        copy.flags.writeable = False
    return copy
