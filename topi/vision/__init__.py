"""TVM's vision operators (``topi.vision``): ``reorg``, YOLO's reorganization of space into
channels."""

from topi.vision.reorg import reorg

__all__ = ["reorg"]
