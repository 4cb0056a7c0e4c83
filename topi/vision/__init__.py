"""TVM's vision operators (``topi.vision``): ``reorg``, YOLO's reorganization of space into
channels; the detection operators (``get_valid_counts``, non-maximum suppression per box or
per class, SSD's multibox in ``topi.vision.ssd``); and the region-of-interest pools and
proposals of ``topi.vision.rcnn``."""

from topi.vision import rcnn, ssd
from topi.vision.all_class_nms import all_class_non_max_suppression
from topi.vision.nms import get_valid_counts, non_max_suppression
from topi.vision.rcnn import proposal, roi_align_nchw, roi_align_nhwc, roi_pool_nchw
from topi.vision.reorg import reorg

__all__ = ["all_class_non_max_suppression", "get_valid_counts", "non_max_suppression", "proposal", "rcnn",
           "reorg", "roi_align_nchw", "roi_align_nhwc", "roi_pool_nchw", "ssd"]
