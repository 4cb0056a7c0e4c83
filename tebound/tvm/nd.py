"""TVM's ``tvm.nd``: 64-byte aligned NumPy arrays with TVM's methods."""

from lower.backend.nd import NDArray, array, cpu, cuda, device, empty

__all__ = ["NDArray", "array", "cpu", "cuda", "device", "empty"]
