"""The negative log-likelihood loss (TVM's ``topi.nn.nll_loss``): per target, ``-predictions[n,
target, ...] * weights[target]`` (0 where the target is *ignore_index*), then summed, or
averaged by the weights taken, or left as it is."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.broadcast import divide
from topi.reduction import sum as reduce_sum
from topi.transform.shape import tensor


def nll_loss(predictions: Tensor, targets: Tensor, weights: Tensor, reduction: str = "mean",
             ignore_index: int = -100) -> Tensor:
    """*predictions* ``(N, C, d1, ...)`` (or ``(C,)``), *targets* ``(N, d1, ...)`` of class
    indices (or a scalar), *weights* ``(C,)``; *reduction* is ``"mean"``, ``"sum"`` or
    ``"none"``. A target's prediction is read only where the target is not *ignore_index*.

    :raises ValueError: for another reduction, or shapes that do not match.
    """
    for what, t in (("predictions", predictions), ("targets", targets), ("weights", weights)):
        tensor(f"nn.nll_loss ({what})", t)
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"topi.nn.nll_loss: reduction is 'mean', 'sum' or 'none', not {reduction!r}")
    ndim = len(predictions.shape)
    if len(weights.shape) != 1 or len(targets.shape) != max(ndim - 1, 0):
        raise ValueError(f"topi.nn.nll_loss: predictions (N, C, ...) or (C,) take targets (N, ...) or () and "
                         f"weights (C,); got {list(map(str, predictions.shape))}, {list(map(str, targets.shape))} "
                         f"and {list(map(str, weights.shape))}")
    zero = arith.const(0, predictions.dtype)

    def taken(value: Any) -> Any:
        def element(*i: Any) -> Any:
            c = targets[i] if i else targets()
            return te.if_then_else(c != ignore_index, value(c, i), zero)
        return element

    def loss(c: Any, i: tuple) -> Any:
        at = (i[0], c, *i[1:]) if i else (c,)
        return -predictions[at] * weights[c]
    each = te.compute(targets.shape, taken(loss), name="nll_loss", tag=tag.BROADCAST)
    if reduction == "none" or (reduction == "sum" and ndim == 1):
        return each
    total = reduce_sum(each) if ndim > 1 else each
    if reduction == "sum":
        return total
    weight = te.compute(targets.shape, taken(lambda c, i: weights[c]), name="nll_loss", tag=tag.BROADCAST)
    return divide(total, reduce_sum(weight) if ndim > 1 else weight)
