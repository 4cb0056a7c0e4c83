"""What generated Python kernels call at run time: checked loads and stores, and GPU blocks.

A block of GPU threads runs as one generator per thread: every thread runs up to the next
barrier (``yield``) before any thread passes it, as ``__syncthreads()`` guarantees.
"""

from __future__ import annotations

import ctypes
import math
import numbers
from collections.abc import Iterator
from typing import Any

import numpy as np

from lower.backend.nd import NDArray
from schedule.base.packed import get_global_func
from schedule.ir.dtype import is_bool, is_float
from schedule.ir.evaluate import (
    MATH_FUNCS,
    clz_in,
    extern_function,
    float_div,
    floor_div,
    floor_mod,
    nextafter_in,
    popcount_in,
    trunc_div,
    trunc_mod,
)

_check_signals = ctypes.pythonapi.PyErr_CheckSignals
_check_signals.restype = ctypes.c_int


def _wrapping(dtype: str) -> Any:
    """The value an integer takes when stored as *dtype*: two's complement wrap-around, as C
    stores it (and NumPy computes): a sum that passes the limit is the same on every target."""
    width = np.iinfo(dtype).bits
    mask, signed = (1 << width) - 1, np.iinfo(dtype).min < 0
    half = 1 << (width - 1)

    def wrap(v: Any) -> Any:
        if v.__class__ is not int:
            return v  # a bool, or a float on its way to an integer buffer (converted on writeback)
        v &= mask
        return v - (1 << width) if signed and v >= half else v
    return wrap


#: The wrap-around of each integer dtype, by its name in generated code (``_w_int32``).
WRAPS = {f"_w_{d}": _wrapping(d) for d in ("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                            "uint64")}


def _int_div(a: int, b: int, smallest: int, floor: bool, where: str) -> int:
    """An integer quotient of a signed type whose smallest value is *smallest*: the one that
    does not fit (the smallest by -1) is an OverflowError, as on the C target."""
    if b == -1 and a == smallest:
        raise OverflowError(f"integer overflow: the quotient of the smallest {where.split(':')[0]} by -1 in "
                            f"{where.split(':', 1)[1]} does not fit {where.split(':')[0]}")
    return a // b if floor else trunc_div(a, b)


def _float_to_int(x: Any, dtype: str) -> int:
    """A float converted to the integer *dtype* as the C target and NumPy on x86 do (see
    ``lower.backend.c.expr.FLOAT_TO_INT``): out of range or NaN is the "integer indefinite"."""
    def to64(v: float) -> int:
        return int(v) if -9223372036854775808.0 <= v < 9223372036854775808.0 else -(1 << 63)

    def to32(v: float) -> int:
        return int(v) if -2147483649.0 < v < 2147483648.0 else -(1 << 31)
    if x.__class__ is not float:
        return WRAPS[f"_w_{dtype}"](x if x.__class__ is int else int(x))
    if dtype == "int64":
        return to64(x)
    if dtype == "uint64":
        return to64(x) & (2**64 - 1) if x < 9223372036854775808.0 else \
            (to64(x - 9223372036854775808.0) & (2**64 - 1)) ^ (1 << 63)
    return WRAPS[f"_w_{dtype}"](to64(x) if dtype == "uint32" else to32(x))


def _to_float32(x: Any) -> float:
    """An integer as float32, rounded once (through float64 it may round twice)."""
    if x.__class__ is int and not -(1 << 24) <= x <= 1 << 24:
        return float(np.array(x, dtype="int64" if x < 2**63 else "uint64").astype(np.float32))
    return float(np.float32(x))


def _to_float16(x: Any) -> float:
    """*x* rounded to float16 (to infinity past its range, as C's conversion and NumPy's)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return float(np.float16(x))


def _shift(a: int, b: int, left: bool, dtype: str) -> int:
    """``a << b`` or ``a >> b`` in *dtype*, as NumPy defines them: a count outside ``[0, bits)``
    (negative too) shifts everything out, giving 0 (or -1 for a negative value shifted right);
    a left shift wraps around."""
    width = np.iinfo(dtype).bits
    if 0 <= b < width:
        return WRAPS[f"_w_{dtype}"](a << b) if left else a >> b
    return -1 if not left and a < 0 else 0


def _fmax(a: float, b: float) -> float:
    """The larger float, NaN if either is NaN (NumPy's ``maximum``; the C target's too)."""
    return a if a > b or a != a else b


def _fmin(a: float, b: float) -> float:
    """The smaller float, NaN if either is NaN (NumPy's ``minimum``)."""
    return a if a < b or a != a else b


def check_signals() -> None:
    """Run the handlers of signals that arrived meanwhile (Ctrl-C raises KeyboardInterrupt here),
    so that a kernel calling back into Python stops promptly."""
    _check_signals()


def call_result(name: str, dtype: str | None, value: Any) -> Any:
    """What a call of the Python function *name* evaluates to in the kernel: its return value
    *value* as a number of *dtype*, by the same rules on every target.

    A call whose value nobody reads (*dtype* None: a statement, as ``ib.emit(call_packed(...))``)
    may return anything. Otherwise the value must be a real number: a float for a float call;
    for an integer call an integral number, or a float truncated toward zero (as C converts
    it), which must be finite and fit *dtype*.

    :raises TypeError: for a value that is not a number (None, a string, an array ...).
    :raises ValueError: for NaN where an integer is needed.
    :raises OverflowError: for infinity, or an integer outside *dtype*'s range.
    """
    if dtype is None:
        return 0
    if isinstance(value, np.generic) and value.shape == ():
        value = value.item()
    if not isinstance(value, numbers.Real):
        raise TypeError(f"external function '{name}' returned {type(value).__name__}, but the call needs a "
                        f"{dtype} number")
    if is_float(dtype):
        return float(value)
    if is_bool(dtype):
        return int(bool(value))
    if isinstance(value, float):
        if math.isnan(value):
            raise ValueError(f"external function '{name}' returned NaN, which is no {dtype} value")
        if math.isinf(value):
            raise OverflowError(f"external function '{name}' returned {value}, which is no {dtype} value")
    number = int(value)
    info = np.iinfo(dtype) if dtype != "handle" else np.iinfo("int64")
    if not info.min <= number <= info.max:
        raise OverflowError(f"external function '{name}' returned {number}, outside the range of "
                            f"{dtype} [{info.min}, {info.max}]")
    return number


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


class UnwrittenReadError(RuntimeError):
    """A thread read an element of warp memory that no thread of its warp had written yet."""


class _Unwritten:
    """What an element of memory shared by threads (of a warp, of a block) holds until a thread
    writes it (checked runs only)."""

    def __init__(self, group: str) -> None:
        self.group = group

    def __repr__(self) -> str:
        return "<unwritten>"


_UNWRITTEN = _Unwritten("warp")
_UNWRITTEN_BLOCK = _Unwritten("block")


def unwritten_message(name: str, flat: int, group: str) -> str:
    """The error of a read of element *flat* of *name*, which no thread of its *group* wrote."""
    scope, sync = ("warp memory", "'warp'") if group == "warp" else ("shared memory", "'shared'")
    return (f"read of {name} at flat index {flat}, which no thread of the {group} has written ({scope} is "
            f"exchanged between the threads of a {group}: write before reading, with tvm_storage_sync({sync}) "
            "between)")


def _load(buf: list, flat: int, name: str, checks: tuple) -> Any:
    _check("read", name, checks or (flat, 0, len(buf)), flat, len(buf))
    value = buf[flat]
    if value.__class__ is _Unwritten:
        raise UnwrittenReadError(unwritten_message(name, flat, value.group))
    return value


def _store(buf: list, flat: int, value: Any, name: str, checks: tuple) -> None:
    _check("write", name, checks or (flat, 0, len(buf)), flat, len(buf))
    buf[flat] = value


class _View:
    """A buffer passed to a function: *shape* elements with *strides* from element *offset* of a
    flat list (see ``_view``); *writes* is False for a pointer the function only reads."""

    def __init__(self, flat: list, dtype: str, shape: tuple, strides: tuple, offset: int,
                 writes: bool = True) -> None:
        self.flat, self.dtype, self.shape, self.strides, self.offset = flat, dtype, shape, strides, offset
        self.writes = writes


def _view(flat: list, dtype: str, shape: tuple, strides: tuple, offset: int) -> _View:
    return _View(flat, dtype, shape, strides, offset)


def _ptr(view: _View, mask: int) -> _View:
    """``access_ptr``: the flat elements a pointer reaches, written back if *mask* writes.

    A strided buffer's pointer claims rows times row stride elements, which may pass the end
    of the storage at its last region; the array stops there."""
    view.writes = bool(mask & 2)
    view.shape = (max(0, min(view.shape[0], len(view.flat) - view.offset)),)
    return view


def _alloc(count: int, name: str, itemsize: int, fill: Any = 0) -> list:
    """The elements of an allocated buffer (none for a negative count, as in C), each *fill*.

    :raises MemoryError: naming the buffer and its size in bytes, when the memory is not there.
    """
    try:
        return [fill] * count
    except (MemoryError, OverflowError):
        raise MemoryError(f"cannot allocate buffer '{name}': {count} elements of {itemsize} bytes "
                          f"({count * itemsize} bytes)") from None


class InputList(list):
    """The elements of an argument the function only reads: a function it calls gets them
    read-only, as on the C target."""


def _call_packed(name: str, dtype: str | None, *args: Any) -> Any:
    """Call the function registered as *name* (see :func:`_call_arrays`)."""
    fn = get_global_func(name)
    assert fn is not None
    return _call_arrays(name, dtype, fn, *args)


def _call_trace(name: str, dtype: str | None, *args: Any) -> Any:
    """The value of ``tir.trace``: what the action registered as *name* returns, or the traced
    value (the last argument) where it returns nothing."""
    fn = get_global_func(name)
    assert fn is not None
    returned = fn(*args)
    return call_result(name, dtype, args[-1] if returned is None else returned)


def _call_arrays(name: str, dtype: str | None, fn: Any, *args: Any) -> Any:
    """Call *fn*: buffers become NumPy arrays over a copy of the storage they reach, written
    back after the call (read-only where the function only reads them); other arguments are
    passed as they are. The result is converted by :func:`call_result`."""
    copies = []
    values = []
    for a in args:
        if not isinstance(a, _View):
            values.append(a)
            continue
        last = a.offset + sum((n - 1) * st for n, st in zip(a.shape, a.strides))
        if a.shape and (last >= len(a.flat) or a.offset < 0 or any(n < 0 for n in a.shape)):
            raise OutOfBoundsError(f"call '{name}': a buffer of shape {a.shape} and strides {a.strides} "
                                   f"from element {a.offset} does not fit its storage of {len(a.flat)} elements")
        end = max(last + 1, a.offset)
        base = np.array(a.flat[a.offset:end], dtype=a.dtype)
        view = np.lib.stride_tricks.as_strided(base, shape=a.shape,
                                               strides=tuple(st * base.itemsize for st in a.strides))
        if a.writes and not isinstance(a.flat, InputList):
            copies.append((a, end, base))
        else:
            view.flags.writeable = False
        values.append(view.view(NDArray))  # TVM passes NDArrays: .numpy(), .copyto()
    check_signals()
    result = call_result(name, dtype, fn(*values))
    for a, end, base in copies:
        a.flat[a.offset:end] = base.tolist()
    return result


def _call(name: str, dtype: str | None, fn: Any, *args: Any) -> Any:
    """Call the registered function *fn* on numbers; its result by :func:`call_result`."""
    check_signals()
    return call_result(name, dtype, fn(*args))


class _Externs(dict):
    """External functions by name, looked up when a kernel calls them (see :func:`extern_function`)."""

    def __missing__(self, name: str) -> Any:
        fn = extern_function(name)
        if fn is None:
            raise ValueError(f"no external function '{name}'; register it with te.register_func")
        return fn


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


def _reinterpret(value: Any, source: str, dtype: str) -> Any:
    """The bits of *value* (a *source* scalar) read as a *dtype* one."""
    return np.array(value, dtype=source).view(dtype).item()


RUNTIME: dict[str, Any] = {"_load": _load, "_store": _store, "_tdiv": trunc_div, "_tmod": trunc_mod,
                           "_fdiv": floor_div, "_fdivide": float_div, "_fmod": floor_mod, "_math": MATH_FUNCS,
                           "_reinterpret": _reinterpret,
                           "_trunc": math.trunc,
                           "_inf": math.inf, "_nan": math.nan, "_math_fmod": math.fmod,
                           "_run_block": _run_block, "_view": _view, "_ptr": _ptr,
                           "_call_packed": _call_packed, "_call_trace": _call_trace, "_call_arrays": _call_arrays,
                           "_call": _call, "_alloc": _alloc,
                           "_extern": _Externs(), "_UNWRITTEN": _UNWRITTEN,
                           "_UNWRITTEN_BLOCK": _UNWRITTEN_BLOCK, "_int_div": _int_div, "_fmax": _fmax, "_fmin": _fmin,
                           "_float_to_int": _float_to_int, "_to_float32": _to_float32, "_to_float16": _to_float16,
                           "_shift": _shift,
                           "_popcount": popcount_in, "_clz": clz_in, "_nextafter": nextafter_in,
                           **WRAPS}
