"""TVM's ``tvm.te.tensor``: ``Tensor`` and the operations that make tensors."""

from schedule import ComputeOp, ExternOp, HybridOp, Operation, PlaceholderOp, ScanOp, Tensor

__all__ = ["ComputeOp", "ExternOp", "HybridOp", "Operation", "PlaceholderOp", "ScanOp", "Tensor"]
