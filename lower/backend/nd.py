"""Arrays for built functions, as TVM's ``tvm.nd``: NumPy arrays whose data starts on a 64-byte
boundary, so that vector loads and stores of a vectorized row do not straddle cache lines.

NumPy's allocator aligns large arrays to 16 bytes only; with 64-byte vectors every access of
such an array then touches two cache lines (the tiled matmul of the benchmarks ran 1.5x slower
on them). ``nd.array(a)`` copies *a* into aligned memory, ``nd.empty`` allocates it; both are
NumPy arrays, with TVM's ``.numpy()`` and ``.copyfrom()`` besides. ``nd.at_page_offset(a, k)``
does the opposite on purpose: a plain NumPy copy whose data starts *k* bytes into a page, to
measure or test a kernel on the arrays users pass.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from lower.backend.cuda.driver import present_arch

#: The alignment of the data of the arrays made here, in bytes (TVM's kAllocAlignment).
ALIGNMENT = 64
#: The size of a memory page, in bytes.
PAGE = 4096


#: TVM's device names and the device each means here: the CPU, or another kind (a GPU's
#: programs run on the CPU with a GPU's semantics; its arrays are host arrays). Only the CPU
#: exists: a test asking for another device's presence is told no.
DEVICE_NAMES = {"cpu": "cpu", "llvm": "cpu", "c": "cpu", "stackvm": "cpu", "test": "cpu", "hybrid": "cpu",
                "cuda": "cuda", "gpu": "cuda", "nvptx": "cuda", "rocm": "rocm", "vulkan": "vulkan", "metal": "metal",
                "opencl": "opencl", "cl": "opencl", "sdaccel": "opencl", "aocl": "aocl", "aocl_sw_emu": "aocl",
                "hexagon": "hexagon", "webgpu": "webgpu", "ext_dev": "ext_dev", "vpi": "vpi"}


@dataclass(frozen=True)
class Device:
    """Where an array lives (TVM's ``tvm.cpu(0)``, ``tvm.cuda(0)``): always host memory here; a
    GPU device stands for programs that run with a GPU's semantics on the CPU."""

    device_type: str = "cpu"
    device_id: int = 0

    def __str__(self) -> str:
        return f"{self.device_type}({self.device_id})"

    @property
    def exist(self) -> bool:
        """Whether such a device is here: the CPU is; a CUDA GPU is where the driver finds one
        (and the cuda extra is installed); no other is (its programs run on the CPU)."""
        return self.device_type == "cpu" or (self.device_type == "cuda" and present_arch() is not None)

    @property
    def compute_version(self) -> str | None:
        """A CUDA GPU's compute capability, as ``"9.0"``; None where no GPU is present, and
        for other devices."""
        arch = present_arch() if self.device_type == "cuda" else None
        return None if arch is None else f"{arch[3:-1]}.{arch[-1]}"

    def sync(self) -> None:
        """Nothing to wait for: every call has finished when it returns."""


def device(name: str, dev_id: int = 0) -> Device:
    """The device TVM names *name* (``"cpu"``, ``"llvm"``, ``"cuda"`` ...; case-insensitive).

    :raises ValueError: for a name no device has, listing those there are.
    """
    kind = DEVICE_NAMES.get(str(name).split(" ")[0].lower()) if isinstance(name, str) else None
    if kind is None:
        raise ValueError(f"device: no device {name!r}; the devices are {', '.join(map(repr, DEVICE_NAMES))}")
    return Device(kind, _dev_id("device", dev_id))


def cpu(dev_id: int = 0) -> Device:
    """The host CPU (TVM's ``tvm.cpu()``)."""
    return Device("cpu", _dev_id("cpu", dev_id))


def cuda(dev_id: int = 0) -> Device:
    """TVM's ``tvm.cuda()``: its arrays are host arrays; a CUDA build's calls copy them to the
    GPU where one is present (``exist``), else run with a GPU's semantics on the CPU."""
    return Device("cuda", _dev_id("cuda", dev_id))


def _dev_id(where: str, dev_id: Any) -> int:
    if not isinstance(dev_id, int) or isinstance(dev_id, bool) or dev_id < 0:
        raise ValueError(f"{where}: dev_id is a non-negative int, got {dev_id!r}")
    return dev_id


class NDArray(np.ndarray):
    """A NumPy array with TVM's NDArray methods; views and results of NumPy operations are
    NDArrays too (their alignment is whatever the view's offset gives)."""

    @property
    def device(self) -> Device:
        return getattr(self, "_device", None) or cpu()

    def numpy(self) -> np.ndarray:
        """A plain NumPy copy (TVM's ``.numpy()``)."""
        return np.array(self, copy=True).view(np.ndarray)

    asnumpy = numpy

    def copyto(self, target: Any) -> Any:
        """Copies this array into *target* (an array of the same shape, written in place) and
        returns it; a Device gives a copy on that device (TVM's ``copyto``)."""
        if isinstance(target, Device):
            return array(self, device=target)
        if not isinstance(target, np.ndarray):
            raise TypeError(f"copyto: the target is an array or a Device, got {target!r}")
        if target.shape != self.shape:
            raise ValueError(f"copyto: shape {self.shape} differs from the target's {target.shape}")
        target[...] = self
        return target

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
    # A tensor's shape (TVM's nd.empty(t.shape, ...)) holds constant expressions.
    shape = tuple(d.value if isinstance(getattr(d, "value", None), int) and not isinstance(d, bool) else d
                  for d in shape)
    if any(not isinstance(d, (int, np.integer)) or isinstance(d, bool) or d < 0 for d in shape):
        raise ValueError(f"empty: the shape is a tuple of non-negative ints, got {shape!r}")
    dtype = np.dtype(dtype)
    nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
    raw = np.empty(nbytes + ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % ALIGNMENT
    out = raw[start:start + nbytes].view(dtype).reshape(shape).view(NDArray)
    if device is not None:
        out._device = device  # type: ignore[attr-defined]
    return out


def array(source: Any, device: Device | None = None, dtype: Any = None) -> NDArray:
    """A 64-byte aligned copy of *source* (an array or anything ``np.asarray`` takes)."""
    source = np.asarray(source, dtype=dtype)
    out = empty(source.shape, source.dtype, device)
    out[...] = source
    return out


def at_page_offset(source: Any, offset: int) -> np.ndarray:
    """A plain NumPy copy of *source* whose data starts *offset* bytes into a page (NumPy's own
    large arrays start 16 bytes in)."""
    if not isinstance(offset, (int, np.integer)) or isinstance(offset, bool) or not 0 <= offset < PAGE:
        raise ValueError(f"at_page_offset: the offset is an int from 0 to {PAGE - 1} bytes, got {offset!r}")
    source = np.asarray(source)
    raw = np.empty(source.nbytes + 2 * PAGE, np.uint8)
    start = -raw.ctypes.data % PAGE + int(offset)
    out = raw[start:start + source.nbytes].view(source.dtype).reshape(source.shape)
    out[...] = source
    return out


def _check_device(device: Any) -> None:
    if device is not None and not isinstance(device, Device):
        raise TypeError(f"nd: the device is a Device such as lower.nd.cpu(), got {device!r}")
