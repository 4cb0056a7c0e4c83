"""What TVM's control-flow graph tells its passes, on isl regions: the buffer values known at
a statement (:mod:`.knowns`) and the stores nothing reads before they are overwritten
(:mod:`.unused`). ``Simplify`` and ``RemoveNoOp`` use it when their options ask for it."""

from tebound.tvm.tir.dataflow.flow import BufferFlow

__all__ = ["BufferFlow"]
