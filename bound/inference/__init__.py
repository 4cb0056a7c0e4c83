"""Bound inference: TVM's InferBound with its message passing, the exact (isl) regions, thread
scopes, tensorize regions, box reads and the check that no read leaves its tensor."""

from bound.inference.infer import infer_bound

__all__ = ["infer_bound"]
