"""TVM's CUDA detection operators (``topi.cuda.get_valid_counts``, ``non_max_suppression``,
``multibox_*``, ``proposal`` ...): the same kernels as :mod:`topi.vision`, their items (batch
items, boxes, cells) bound to blocks of threads, their sorts :mod:`topi.merge_sort`'s."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from topi.vision import all_class_nms, nms, ssd
from topi.vision.rcnn import proposal as rcnn_proposal


def _on_gpu(kernel: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(kernel)
    def run(*args: Any, **kwargs: Any) -> Any:
        return kernel(*args, **kwargs, gpu=True)
    return run


get_valid_counts = _on_gpu(nms.get_valid_counts)
non_max_suppression = _on_gpu(nms.non_max_suppression)
all_class_non_max_suppression = _on_gpu(all_class_nms.all_class_non_max_suppression)
multibox_transform_loc = _on_gpu(ssd.multibox_transform_loc)
multibox_detection = _on_gpu(ssd.multibox_detection)
proposal = _on_gpu(rcnn_proposal)
multibox_prior = ssd.multibox_prior
