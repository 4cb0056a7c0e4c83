"""``topi.nn.flatten``: a tensor as (batch, everything else), in row-major order."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from topi import tag
from topi.transform.shape import product, tensor, unravel


def flatten(data: Tensor) -> Tensor:
    """*data* ``(n, d1, d2, ...)`` as ``(n, d1 * d2 * ...)``."""
    data = tensor("nn.flatten", data)
    rest = list(data.shape[1:])

    def element(n: Any, j: Any) -> Any:
        return data[(n, *unravel(j, rest))] if rest else data[n]
    return te.compute((data.shape[0], product(rest)), element, name="compute", tag=tag.INJECTIVE)
