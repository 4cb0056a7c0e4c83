"""Faster and Mask R-CNN's operators (TVM's ``topi.vision.rcnn``): the region-of-interest
pools and the region proposals."""

from topi.vision.rcnn.proposal import proposal
from topi.vision.rcnn.roi import roi_align_nchw, roi_align_nhwc, roi_pool_nchw

__all__ = ["proposal", "roi_align_nchw", "roi_align_nhwc", "roi_pool_nchw"]
