"""TVM's ``tvm.contrib.cc``: ``create_shared`` links the object files ``mod.save("x.o")`` writes
into a library ``tvm.runtime.load_module`` loads (``lower.library``)."""

from lower.library import create_shared

__all__ = ["create_shared"]
