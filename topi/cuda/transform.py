"""TVM's CUDA forms of the transforms that write where their input says
(``topi.cuda.scatter_elements``, ``invert_permutation``): GPU threads over the elements."""

from __future__ import annotations

from typing import Any

from schedule import Tensor
from topi.transform import scatter_elements as _scatter_elements
from topi.transform.scatter import invert_permutation as _invert_permutation


def scatter_elements(data: Tensor, indices: Tensor, updates: Tensor, axis: int = 0, reduction: str = "update") -> Any:
    """:func:`topi.scatter_elements` with the copy and each line of updates a GPU thread."""
    return _scatter_elements(data, indices, updates, axis, reduction, gpu=True)


def invert_permutation(data: Tensor) -> Tensor:
    """:func:`topi.invert_permutation` with a GPU thread per element."""
    return _invert_permutation(data, gpu=True)
