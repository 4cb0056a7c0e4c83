"""TVM's ``tvm.runtime``: devices, arrays (``runtime.tensor`` is ``nd.array``), modules
(``load_module`` of what ``export_library`` wrote), ``convert`` and ``enabled``, and the
containers (``runtime.container``)."""

from lower.backend.nd import Device, NDArray, array, cpu, cuda, device, empty
from lower.backend.nd import array as tensor
from lower.build import BuiltFunc as Module
from lower.build import load_module
from schedule.base.errors import TeError as TVMError
from tebound.tvm.runtime import container, ndarray
from tebound.tvm.runtime.container import Array, Map, String
from tebound.tvm.runtime.convert import convert, enabled

__all__ = ["Array", "Device", "Map", "Module", "NDArray", "String", "TVMError", "array", "container", "convert",
           "cpu", "cuda", "device", "empty", "enabled", "load_module", "ndarray", "tensor"]
