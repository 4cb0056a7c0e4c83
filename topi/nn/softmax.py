"""Softmax along one axis (TVM's ``topi.nn.softmax``, ``log_softmax``, ``fast_softmax``): the
maximum subtracted before exponentiating, so no element overflows; stages named as TVM's
(``T_softmax_maxelem``, ``T_softmax_exp``, ``T_softmax_expsum``, ``T_softmax_norm``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import schedule as te
from schedule import Tensor
from topi.reduction import normalize_axes


class _Axis:
    """The axis a softmax runs along, the reduce axis over it, and the reduced shape."""

    def __init__(self, op: str, x: Any, axis: Any) -> None:
        if not isinstance(x, Tensor):
            raise TypeError(f"topi.nn.{op}: takes a tensor, got {x!r}")
        if not isinstance(axis, int) or isinstance(axis, bool):
            raise ValueError(f"topi.nn.{op}: axis must be one int, got {axis!r}")
        (self.axis,) = normalize_axes(f"nn.{op}", len(x.shape), axis)
        self.x, self.k = x, te.reduce_axis((0, x.shape[self.axis]), name="k")
        self.reduced = [d for n, d in enumerate(x.shape) if n != self.axis]

    def along(self, index: Sequence[Any], at: Any) -> tuple[Any, ...]:
        """The full index of element *at* of the axis, from a reduced *index*."""
        return (*index[:self.axis], at, *index[self.axis:])

    def outer(self, index: Sequence[Any]) -> tuple[Any, ...]:
        """The reduced index of a full *index*."""
        return (*index[:self.axis], *index[self.axis + 1:])

    def maximum(self) -> Tensor:
        """The largest element along the axis."""
        x = self.x
        return te.compute(self.reduced, lambda *i: te.max(x[self.along(i, self.k)], axis=self.k),
                          name="T_softmax_maxelem")

    def max_and_sum(self, exp: Callable[[Any], Any]) -> tuple[Tensor, Tensor]:
        """The largest element, and the sum of ``exp(x - largest)`` along the axis."""
        x = self.x
        biggest = self.maximum()
        k2 = te.reduce_axis((0, x.shape[self.axis]), name="k")
        total = te.compute(self.reduced, lambda *i: te.sum(exp(x[self.along(i, k2)] - biggest[i]), axis=k2),
                           name="T_softmax_expsum")
        return biggest, total


def _softmax(x: Tensor, axis: int, exp: Callable[[Any], Any], op: str) -> Tensor:
    """The four stages; the last tagged ``<op>_output``, as TVM's schedules look for."""
    a = _Axis(op, x, axis)
    biggest = a.maximum()
    exps = te.compute(x.shape, lambda *i: exp(x[i] - biggest[a.outer(i)]), name="T_softmax_exp")
    k = te.reduce_axis((0, x.shape[a.axis]), name="k")
    total = te.compute(a.reduced, lambda *i: te.sum(exps[a.along(i, k)], axis=k), name="T_softmax_expsum")
    return te.compute(x.shape, lambda *i: exps[i] / total[a.outer(i)], name="T_softmax_norm",
                      tag=f"{op}_output", attrs={"axis": a.axis})


def softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``exp(x - max) / sum(exp(x - max))`` along *axis*."""
    return _softmax(x, axis, te.exp, "softmax")


def fast_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """:func:`softmax` with ``fast_exp`` (vectorizes; within 1 ulp)."""
    return _softmax(x, axis, te.fast_exp, "fast_softmax")


def log_softmax(x: Tensor, axis: int = -1) -> Tensor:
    """``x - max - log(sum(exp(x - max)))`` along *axis*."""
    a = _Axis("log_softmax", x, axis)
    biggest, total = a.max_and_sum(te.exp)
    return te.compute(x.shape, lambda *i: x[i] - biggest[a.outer(i)] - te.log(total[a.outer(i)]),
                      name="T_log_softmax", tag="log_softmax_output", attrs={"axis": a.axis})


def softmax_stages(out: Tensor) -> list[Tensor]:
    """The stages a softmax output reads (``T_softmax_*``), not those of its input."""
    seen: list[Tensor] = []
    stack = list(out.op.input_tensors)
    while stack:
        t = stack.pop()
        if t.op.name.startswith("T_softmax_") and t not in seen:
            seen.append(t)
            stack.extend(t.op.input_tensors)
    return seen
