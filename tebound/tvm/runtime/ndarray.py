"""TVM's ``tvm.runtime.ndarray``: arrays on a device (``tvm.nd``)."""

from lower.backend.nd import Device, NDArray, array, cpu, cuda, device, empty

__all__ = ["Device", "NDArray", "array", "cpu", "cuda", "device", "empty"]
