"""Arrays for built functions, as TVM's ``tvm.nd``: NumPy arrays whose data starts on a 64-byte
boundary, so that vector loads and stores of a vectorized row do not straddle cache lines.

NumPy's allocator aligns large arrays to 16 bytes only; with 64-byte vectors every access of
such an array then touches two cache lines (the tiled matmul of the benchmarks ran 1.5x slower
on them). ``nd.array(a)`` copies *a* into aligned memory, ``nd.empty`` allocates it; both are
NumPy arrays, with TVM's ``.numpy()`` and ``.copyfrom()`` besides.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

#: The alignment of the data of the arrays made here, in bytes (TVM's kAllocAlignment).
ALIGNMENT = 64


@dataclass(frozen=True)
class Device:
    """Where an array lives: only the host CPU here (TVM's ``tvm.cpu(0)``)."""

    device_type: str = "cpu"
    device_id: int = 0

    def __str__(self) -> str:
        return f"{self.device_type}({self.device_id})"


def cpu(dev_id: int = 0) -> Device:
    """The host CPU (TVM's ``tvm.cpu()``)."""
    if not isinstance(dev_id, int) or isinstance(dev_id, bool) or dev_id < 0:
        raise ValueError(f"cpu: dev_id is a non-negative int, got {dev_id!r}")
    return Device("cpu", dev_id)


class NDArray(np.ndarray):
    """A NumPy array with TVM's NDArray methods; views and results of NumPy operations are
    NDArrays too (their alignment is whatever the view's offset gives)."""

    @property
    def device(self) -> Device:
        return cpu()

    def numpy(self) -> np.ndarray:
        """A plain NumPy copy (TVM's ``.numpy()``)."""
        return np.array(self, copy=True).view(np.ndarray)

    asnumpy = numpy

    def copyfrom(self, source: Any) -> NDArray:
        """Copies *source* (same shape) into this array and returns it."""
        source = np.asarray(source)
        if source.shape != self.shape:
            raise ValueError(f"copyfrom: shape {source.shape} differs from the array's {self.shape}")
        self[...] = source
        return self


def empty(shape: Any, dtype: Any = "float32", device: Device | None = None) -> NDArray:
    """An uninitialized array of *shape* and *dtype* whose data is 64-byte aligned."""
    _check_device(device)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(not isinstance(d, (int, np.integer)) or d < 0 for d in shape):
        raise ValueError(f"empty: the shape is a tuple of non-negative ints, got {shape!r}")
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    return raw[start:start + nbytes].view(dtype).reshape(shape).view(NDArray)


def array(source: Any, device: Device | None = None, dtype: Any = None) -> NDArray:
    """A 64-byte aligned copy of *source* (an array or anything ``np.asarray`` takes)."""
    source = np.asarray(source, dtype=dtype)
    out = empty(source.shape, source.dtype, device)
    out[...] = source
    return out


def _check_device(device: Any) -> None:
    if device is not None and not isinstance(device, Device):
        raise TypeError(f"nd: the device is lower.cpu(), got {device!r}")
