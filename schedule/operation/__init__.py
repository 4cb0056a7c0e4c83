"""The operations (TVM's te operations): tensors, placeholders, computes, externs, scans, tensor
intrinsics, whole-tensor arithmetic, autodiff, hybrid scripts and the read graph.

``tensor_ops`` is imported first: it installs the arithmetic operators of whole tensors
(``schedule.operation.tensor.install_binary``)."""

# isort: off
from schedule.operation import tensor_ops
# isort: on
from schedule.operation import hybrid
from schedule.operation.autodiff import gradient
from schedule.operation.compute import ComputeOp, compute
from schedule.operation.extern import ExternOp, extern
from schedule.operation.graph import feed_graph, post_dfs_order, read_graph
from schedule.operation.hybrid.op import HybridOp
from schedule.operation.placeholder import PlaceholderOp, placeholder
from schedule.operation.scan import ScanOp, scan
from schedule.operation.tag import TagScope, tag_scope
from schedule.operation.tensor import Operation, Tensor
from schedule.operation.tensor_intrin import TensorIntrin, decl_tensor_intrin

__all__ = ["ComputeOp", "ExternOp", "HybridOp", "Operation", "PlaceholderOp", "ScanOp", "TagScope", "Tensor",
           "TensorIntrin", "compute", "decl_tensor_intrin", "extern", "feed_graph", "gradient", "hybrid", "placeholder",
           "post_dfs_order", "read_graph", "scan", "tag_scope", "tensor_ops"]
