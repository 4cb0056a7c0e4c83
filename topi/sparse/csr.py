"""Products of a CSR matrix (``tvm.contrib.sparse``'s placeholder) and a
dense one: ``csrmv``, ``csrmm`` and ``dense`` (either operand sparse). Each row of the sparse
operand is one reduction whose extent is read from its ``indptr`` while the kernel runs."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi import tag
from topi.transform.shape import tensor


def _parts(op: str, a: Any) -> tuple[Tensor, Tensor, Tensor]:
    parts = tuple(getattr(a, name, None) for name in ("data", "indices", "indptr"))
    if not all(isinstance(p, Tensor) for p in parts):
        raise TypeError(f"topi.sparse.{op}: the sparse operand is a tvm.contrib.sparse.placeholder (data, indices, "
                        f"indptr), not {a!r}")
    return parts  # type: ignore[return-value]


def _row_sum(data: Tensor, indices: Tensor, indptr: Tensor, row: Any, read: Any, name: str) -> Any:
    start = indptr[row]
    k = te.reduce_axis((0, indptr[row + 1] - start), name=name)
    return te.sum(data[start + k] * read(indices[start + k]), axis=k)


def csrmv(a: Any, x: Tensor, y: Tensor | None = None) -> Tensor:
    """``a @ x (+ y)``: *a* CSR ``(m, k)``, *x* ``(k, 1)``, *y* ``(m,)``; the output ``(m, 1)``."""
    data, indices, indptr = _parts("csrmv", a)
    x = tensor("sparse.csrmv", x)
    rows = arith.sub(indptr.shape[0], 1)
    out = te.compute((rows, 1), lambda i, _: _row_sum(data, indices, indptr, i, lambda c: x[c, 0], "elemidx"),
                     name="csrmv", tag="csrmv")
    return te.compute((rows, 1), lambda i, j: out[i, j] + y[i], tag=tag.BROADCAST) if y is not None else out


def csrmm(a: Any, b: Tensor, c: Tensor | None = None) -> Tensor:
    """``a @ b (+ c[:, None])``: *a* CSR ``(m, k)``, *b* ``(k, n)``, *c* ``(m,)``."""
    data, indices, indptr = _parts("csrmm", a)
    b = tensor("sparse.csrmm", b)
    rows = arith.sub(indptr.shape[0], 1)
    out = te.compute((rows, b.shape[1]), lambda i, j: _row_sum(data, indices, indptr, i, lambda k: b[k, j], "idx"),
                     name="out", tag="csrmm")
    return te.compute(out.shape, lambda i, j: out[i, j] + c[i], tag=tag.BROADCAST) if c is not None else out


def dense(data: Any, weight: Any, bias: Tensor | None = None) -> Tensor:
    """``data @ weight.T (+ bias)`` with either operand a CSR placeholder (the other a tensor):
    *data* ``(batch, in)``, *weight* ``(out, in)``, *bias* ``(out,)``.

    :raises TypeError: when neither or both operands are sparse.
    """
    if isinstance(data, Tensor) == isinstance(weight, Tensor):
        raise TypeError("topi.sparse.dense: one operand is a tvm.contrib.sparse placeholder, the other a tensor")
    if isinstance(weight, Tensor):
        d, i, p = _parts("dense", data)
        rows = arith.sub(p.shape[0], 1)
        out = te.compute((rows, weight.shape[0]), lambda m, n: _row_sum(d, i, p, m, lambda k: weight[n, k], "k"),
                         name="out", tag="dense")
    else:
        d, i, p = _parts("dense", weight)
        cols = arith.sub(p.shape[0], 1)
        out = te.compute((data.shape[0], cols), lambda m, n: _row_sum(d, i, p, n, lambda k: data[m, k], "k"),
                         name="out", tag="dense")
    return te.compute(out.shape, lambda m, n: out[m, n] + bias[n], tag=tag.BROADCAST) if bias is not None else out
