"""TVM's ``tvm._ffi``: tests catch ``tvm._ffi.base.TVMError``; here there is no foreign
function interface, and the error is this project's base error."""

from tebound.tvm._ffi import base

__all__ = ["base"]
