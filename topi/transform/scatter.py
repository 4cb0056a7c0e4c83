"""Transforms that write values into a copy of a tensor, or into a default-filled one (TVM's
``topi.strided_set``, ``sparse_to_dense``, ``matrix_set_diag`` and ``trilu``), and the advanced
(NumPy) indexing ``adv_index``; each a compute that decides per output element where it
reads. ``invert_permutation`` writes where its input says (an extern pass). Indices taken from
data are checked while the kernel runs."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import schedule as te
from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from schedule.ir.dtype import is_int
from topi import tag
from topi.extern_items import each_item
from topi.transform.gather import _integer
from topi.transform.index import slice_bounds, slice_param
from topi.transform.shape import tensor
from topi.utils import const_value


def strided_set(a: Tensor, v: Tensor, begin: Tensor, end: Tensor, strides: Tensor | None = None) -> Tensor:
    """*a* with ``a[begin:end:strides] = v`` (NumPy's slicing; *begin*, *end* and *strides* are
    1-d integer tensors read while the kernel runs; an axis past their length is taken whole)."""
    a, v = tensor("strided_set", a), tensor("strided_set", v)
    begin, end = _integer("strided_set", begin, "begin"), _integer("strided_set", end, "end")
    strides = _integer("strided_set", strides, "strides") if strides is not None else None
    if len(v.shape) != len(a.shape):
        raise ValueError(f"topi.strided_set: v has {len(v.shape)} dimensions, a {len(a.shape)}")
    for what, t in (("begin", begin), ("end", end), ("strides", strides)):
        if t is not None and len(t.shape) != 1:
            raise ValueError(f"topi.strided_set: {what} must be 1-dimensional, got shape {list(map(str, t.shape))}")

    def element(*i: Any) -> Any:
        inside, at = [], []
        for k, n in enumerate(a.shape):
            n = arith.convert(n).astype("int32")
            s = slice_param(strides, k, 1)
            b, e = slice_bounds(slice_param(begin, k, 0), slice_param(end, k, 2 ** 31 - 1), s, n)
            up = s > 0
            step = te.if_then_else(up, s, 0 - s)
            offset = te.if_then_else(up, i[k] - b, b - i[k])
            inside += [te.if_then_else(up, te.all(b <= i[k], i[k] < e), te.all(e < i[k], i[k] <= b)),
                       te.floormod(offset, te.max(step, 1)) == 0]
            at.append(te.max(te.min(te.floordiv(offset, te.max(step, 1)), arith.sub(v.shape[k], 1)), 0))
        return te.if_then_else(te.all(*inside), v[tuple(at)].astype(a.dtype), a[i])
    return te.compute(a.shape, element, name="T_strided_set", tag=tag.INJECTIVE)


def sparse_to_dense(sparse_indices: Tensor, output_shape: Sequence[Any], sparse_values: Tensor,
                    default_value: Any = 0) -> Tensor:
    """A tensor of *output_shape* filled with *default_value* (a number or a 0-d tensor), but
    for ``out[sparse_indices[k]] = sparse_values[k]`` (the last k wins). *sparse_indices* is a
    0-d index, a 1-d vector of indices or an (n, rank) matrix; *sparse_values* a 0-d value
    for all of them or one per index."""
    indices = _integer("sparse_to_dense", sparse_indices, "sparse_indices")
    values = tensor("sparse_to_dense", sparse_values)
    shape = list(output_shape)
    rank = len(indices.shape)
    if rank > 2 or (rank == 2 and const_value(indices.shape[1]) not in (None, len(shape))) or len(values.shape) > 1:
        raise ValueError(f"topi.sparse_to_dense: sparse_indices of shape {list(map(str, indices.shape))} and "
                         f"sparse_values of shape {list(map(str, values.shape))} do not fit an output of "
                         f"{len(shape)} dimensions (indices 0-d, 1-d, or (n, {len(shape)}); values 0-d or 1-d)")
    count = indices.shape[0] if rank else 1
    k = te.reduce_axis((0, count), name="k")
    last = te.comm_reducer(lambda x, y: te.max(x, y), lambda t: arith.const(-1, t), name="last")

    def position(j: Any, d: int) -> Any:
        return (indices[j, d] if rank == 2 else indices[j] if rank == 1 else indices()).astype("int32")

    def hit(*i: Any) -> Any:
        match = te.all(*(position(k, d) == i[d] for d in range(len(shape))))
        return last(te.if_then_else(match, k.var.astype("int32"), arith.const(-1, "int32")), axis=k)
    found = te.compute(shape, hit, name="T_sparse_to_dense_index", tag=tag.COMM_REDUCE)
    fill = default_value() if isinstance(default_value, Tensor) else arith.const(default_value, values.dtype)

    def element(*i: Any) -> Any:
        j = found[i]
        value = values[te.max(j, 0)] if len(values.shape) else values()
        return te.if_then_else(j >= 0, value, fill.astype(values.dtype))
    return te.compute(shape, element, name="T_sparse_to_dense", tag=tag.INJECTIVE)


def _diagonals(k: Any) -> tuple[int, int]:
    low, high = (k, k) if isinstance(k, int) else tuple(k)
    if not all(isinstance(x, int) for x in (low, high)) or low > high:
        raise ValueError(f"topi.matrix_set_diag: k must be an int or (low, high) ints with low <= high, got {k!r}")
    return low, high


def matrix_set_diag(data: Tensor, diagonal: Tensor, k: Any = 0, align: str = "RIGHT_LEFT") -> Tensor:
    """*data* (``(..., rows, cols)``) with its diagonals *k* (one, or the band ``(low, high)``)
    replaced by *diagonal*: ``(..., len)`` for one, ``(..., high - low + 1, len)`` for a band,
    the highest diagonal first. In a band, *align* (``"RIGHT_LEFT"`` ...) says whether a diagonal
    shorter than ``len`` sits at the right or the left of its row, for superdiagonals then
    subdiagonals."""
    data, diagonal = tensor("matrix_set_diag", data), tensor("matrix_set_diag", diagonal)
    low, high = _diagonals(k)
    if align not in ("RIGHT_LEFT", "LEFT_RIGHT", "LEFT_LEFT", "RIGHT_RIGHT"):
        raise ValueError(f"topi.matrix_set_diag: align must be RIGHT_LEFT, LEFT_RIGHT, LEFT_LEFT or RIGHT_RIGHT, "
                         f"got {align!r}")
    if len(data.shape) < 2:
        raise ValueError("topi.matrix_set_diag: data must have at least 2 dimensions")
    rows, cols = data.shape[-2:]
    length = diagonal.shape[-1]
    super_right, sub_right = (side == "RIGHT" for side in align.split("_"))

    def element(*i: Any) -> Any:
        r, c = i[-2], i[-1]
        d = c - r  # the diagonal this element sits on
        slot = te.min(r, c)  # the element's place along its diagonal
        if low != high:  # in a band, a diagonal shorter than a row of *length* sits at its right or left
            right = te.if_then_else(d >= 0, arith.const(super_right, "bool"), arith.const(sub_right, "bool"))
            size = te.min(arith.convert(rows) + te.min(d, 0), arith.convert(cols) - te.max(d, 0))
            slot = slot + te.if_then_else(right, arith.convert(length) - size, 0)
        band = (*i[:-2], high - d, slot) if low != high else (*i[:-2], slot)
        clamp = [*band[:-1], te.max(te.min(band[-1], arith.sub(length, 1)), 0)]
        if low != high:
            clamp[-2] = te.max(te.min(clamp[-2], high - low), 0)
        return te.if_then_else(te.all(low <= d, d <= high), diagonal[tuple(clamp)], data[i])
    return te.compute(data.shape, element, name="T_matrix_set_diag", tag=tag.INJECTIVE)


def trilu(data: Tensor, k: Any, upper: bool) -> Tensor:
    """The upper (``numpy.triu``) or lower (``numpy.tril``) triangle of each matrix in the last
    two axes of *data*, from diagonal *k* (an int or an integer expression); zeros elsewhere."""
    data = tensor("trilu", data)
    if len(data.shape) < 2:
        raise ValueError("topi.trilu: data must have at least 2 dimensions")
    k = arith.convert(k)
    zero = arith.const(0, data.dtype)

    def element(*i: Any) -> Any:
        d = i[-1] - i[-2]
        keep = d >= k.astype(d.dtype) if upper else d <= k.astype(d.dtype)
        return te.if_then_else(keep, data[i], zero)
    return te.compute(data.shape, element, name="T_trilu", tag=tag.ELEMWISE)


def adv_index(data: Tensor, indices: Sequence[Tensor]) -> Tensor:
    """NumPy's advanced indexing ``data[indices[0], indices[1], ...]``: the index tensors
    broadcast together; their shape, then *data*'s remaining axes, is the output's."""
    data = tensor("adv_index", data)
    indices = [_integer("adv_index", t, "indices") for t in indices]
    if not indices or len(indices) > len(data.shape):
        raise ValueError(f"topi.adv_index: takes 1 to {len(data.shape)} index tensors, got {len(indices)}")
    rank = max(len(t.shape) for t in indices)
    broadcast = []
    for d in range(rank):
        sizes = {const_value(t.shape[d - rank + len(t.shape)]) for t in indices if d - rank + len(t.shape) >= 0}
        sizes.discard(1)
        if len(sizes) > 1 or None in sizes:
            raise ValueError(f"topi.adv_index: the index shapes {[list(map(str, t.shape)) for t in indices]} do not "
                             f"broadcast together (constant shapes only)")
        broadcast.append(sizes.pop() if sizes else 1)
    rest = list(data.shape[len(indices):])

    def element(*i: Any) -> Any:
        at = []
        for t in indices:
            lead = rank - len(t.shape)
            at.append(t[tuple(0 if const_value(t.shape[d]) == 1 else i[lead + d] for d in range(len(t.shape)))])
        return data[(*at, *i[rank:])]
    return te.compute([*broadcast, *rest], element, name="advanced_index", tag=tag.INJECTIVE)



def invert_permutation(data: Tensor, gpu: bool = False) -> Tensor:
    """The inverse of the permutation *data* (1-d): ``out[data[i]] = i``. An extern operation,
    one pass in order (with *gpu*, ``topi.cuda.invert_permutation``, a thread per element); a
    value outside ``[0, n)`` is caught by the kernel's checks."""
    data = tensor("invert_permutation", data)
    if len(data.shape) != 1 or not is_int(data.dtype):
        raise ValueError(f"topi.invert_permutation: takes a 1-d integer tensor, got {data.dtype}"
                         f"{list(map(str, data.shape))}")

    def body(src: Any, out: Any) -> Any:
        ib = ir_builder.create()
        src, out = ib.buffer_ptr(src), ib.buffer_ptr(out)
        if gpu:
            with each_item(ib, data.shape[0], True, "ind") as i:
                out[src[i]] = i.astype(data.dtype)
        else:
            with ib.for_range(0, data.shape[0], "ind") as i:
                out[src[i]] = i.astype(data.dtype)
        return ib.get()

    return extern([data.shape], [data], lambda ins, outs: body(ins[0], outs[0]), dtype=[data.dtype],
                  name="invert_permutation", tag="invert_permutation")
