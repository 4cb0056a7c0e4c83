"""TVM's vision operators (``topi.vision``): ``reorg``, YOLO's reorganization of space into
channels, and the region-of-interest pools of ``topi.vision.rcnn``."""

from topi.vision import rcnn
from topi.vision.rcnn import roi_align_nchw, roi_align_nhwc, roi_pool_nchw
from topi.vision.reorg import reorg

__all__ = ["rcnn", "reorg", "roi_align_nchw", "roi_align_nhwc", "roi_pool_nchw"]
