"""TVM's ``tvm.runtime``: devices, arrays (``runtime.tensor`` is ``nd.array``), modules
(``load_module`` of what ``export_library`` wrote) and ``convert``."""

from lower.build import BuiltFunc as Module
from lower.build import load_module
from lower.nd import Device, NDArray, array, cpu, cuda, device, empty
from lower.nd import array as tensor
from schedule.ir.arith import convert

__all__ = ["Device", "Module", "NDArray", "array", "convert", "cpu", "cuda", "device", "empty", "load_module", "tensor"]
