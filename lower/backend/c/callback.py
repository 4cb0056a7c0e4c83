"""Calls from compiled C into Python functions (``call_packed``, registered externs, tensorize).

The C side packs a call's arguments into three arrays: pointers, 64-bit integers describing
each argument, and doubles. Every argument starts with its kind in the integers: an integer
(its value follows), a float (its value is the next double), a string (its index in the
call's table follows) or a buffer (its dtype, rank, shape, strides, offset, the size of its
storage, and whether the callee may write it; its base pointer is the next pointer). Python
receives buffers as NumPy arrays over the kernel's own memory, so nothing is copied.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from lower.backend.python.runtime import OutOfBoundsError
from schedule.evaluate import extern_function
from schedule.packed import get_global_func

INT, FLOAT, STRING, BUFFER = 0, 1, 2, 3
#: Buffer flags: the callee may write it; the pointer's extent stops at the end of its storage.
WRITES, CLIPPED = 1, 2
#: The element types a buffer may have, by the code the C side passes.
DTYPES = ("float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64", "bool")

#: ``int32_t callback(int32_t call, void** ptrs, int64_t* ints, double* floats,
#: double* float_result, int64_t* int_result)``; nonzero when the Python function raised.
CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p),
                            ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_double),
                            ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int64))

C_DECLARATION = ("typedef int32_t (*tb_callback_t)(int32_t, void**, int64_t*, double*, double*, int64_t*);")


@dataclass(frozen=True)
class PythonCall:
    """One call site: ``packed`` (looked up when called) or ``extern`` (a registered function)."""

    kind: str
    name: str
    strings: tuple[str, ...] = ()


class Callbacks:
    """The Python side of a kernel's calls; the first error a call raised waits in :attr:`error`."""

    def __init__(self, calls: Sequence[PythonCall]) -> None:
        self.calls = list(calls)
        self.error: BaseException | None = None
        self.pointer = CALLBACK(self._call)  # kept alive as long as the kernel

    def _call(self, index: int, ptrs: Any, ints: Any, floats: Any, fres: Any, ires: Any) -> int:
        try:
            call = self.calls[index]
            fn = get_global_func(call.name) if call.kind == "packed" else extern_function(call.name)
            if fn is None:
                raise ValueError(f"no external function '{call.name}'; register it with te.register_func")
            result = fn(*_arguments(call, ptrs, ints, floats))
            if result is None or (call.kind == "packed" and not isinstance(result, (int, float, np.number))):
                result = 0  # what a packed function returns is not used
            if not isinstance(result, (int, float, np.number)):
                raise TypeError(f"external function '{call.name}' returned {type(result).__name__}, not a number")
            fres[0] = float(result)
            ires[0] = int(result) if np.isfinite(result) else 0  # the float result carries inf and nan
        except BaseException as err:  # raised again when the kernel returns
            if self.error is None:
                self.error = err
            return 1
        return 0

    def raise_error(self) -> None:
        err, self.error = self.error, None
        if err is not None:
            raise err


def _arguments(call: PythonCall, ptrs: Any, ints: Any, floats: Any) -> list[Any]:
    values: list[Any] = []
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
            values.append(_array(call.name, ptrs[ptr], dtype, shape, strides, offset, size, flags))
            ptr += 1
    return values


def _array(name: str, base: int | None, dtype: str, shape: list[int], strides: list[int], offset: int,
           size: int, flags: int) -> np.ndarray:
    """The NumPy array over the kernel's memory that a buffer argument describes."""
    if flags & CLIPPED and shape:
        shape[0] = max(0, min(shape[0], size - offset))
    last = offset + sum((n - 1) * st for n, st in zip(shape, strides))
    if shape and (last >= size or offset < 0 or any(n < 0 for n in shape)):
        raise OutOfBoundsError(f"call '{name}': a buffer of shape {tuple(shape)} and strides {tuple(strides)} "
                               f"from element {offset} does not fit its storage of {size} elements")
    itemsize = np.dtype(dtype).itemsize
    count = max(last + 1 - offset, 0) if all(n > 0 for n in shape) else 0
    address = (base or 0) + offset * itemsize
    memory = (ctypes.c_char * (count * itemsize)).from_address(address) if count else bytearray()
    array = np.ndarray(tuple(shape), dtype, buffer=memory, strides=tuple(st * itemsize for st in strides))
    if not flags & WRITES:
        array.flags.writeable = False
    return array
