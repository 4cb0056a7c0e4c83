"""TVM's ``tvm.runtime``: devices, arrays (``runtime.tensor`` is ``nd.array``), modules
(``load_module`` of what ``export_library`` wrote) and ``convert``."""

from lower.backend.nd import Device, NDArray, array, cpu, cuda, device, empty
from lower.backend.nd import array as tensor
from lower.build import BuiltFunc as Module
from lower.build import load_module
from schedule.ir.arith import convert

__all__ = ["Device", "Module", "NDArray", "array", "convert", "cpu", "cuda", "device", "empty", "load_module", "tensor"]
