"""Sparse matrix products (TVM's ``topi.nn.sparse_dense``, ``sparse_transpose``, ``sparse_add``):
a sparse operand in CSR (``data``, ``indices``, ``indptr``) or BSR (``data`` of blocks ``(n,
bs_r, bs_c)``) form. Each row's product is one reduction over that row's entries, whose extent
is read from ``indptr`` while the kernel runs; transposition and addition are ``ir_builder``
bodies."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from schedule.ir.buffer import decl_buffer
from topi import tag
from topi.transform.shape import tensor
from topi.utils import get_const_tuple


def _check_sparse(op: str, data: Tensor, indices: Tensor, indptr: Tensor) -> bool:
    """Whether the operand is BSR (3-d data); refuses other shapes."""
    for t in (data, indices, indptr):
        tensor(f"nn.{op}", t)
    if len(data.shape) not in (1, 3) or len(indices.shape) != 1 or len(indptr.shape) != 1:
        raise ValueError(f"topi.nn.{op}: a sparse operand is CSR (1-d data) or BSR (data of blocks, 3-d), with 1-d "
                         f"indices and indptr; got shapes {list(map(str, data.shape))}, "
                         f"{list(map(str, indices.shape))}, {list(map(str, indptr.shape))}")
    return len(data.shape) == 3


def sparse_dense(dense_data: Tensor, sparse_data: Tensor, sparse_indices: Tensor, sparse_indptr: Tensor,
                 sparse_lhs: bool = False) -> Tensor:
    """``dense_data @ sparse.T`` (``sparse @ dense_data.T`` with *sparse_lhs*) for a sparse
    matrix in CSR or BSR form: rows of the sparse operand are the output's columns (rows)."""
    dense = tensor("nn.sparse_dense", dense_data)
    bsr = _check_sparse("sparse_dense", sparse_data, sparse_indices, sparse_indptr)
    rows = arith.sub(sparse_indptr.shape[0], 1)
    if not bsr:
        def entry(i: Any, row: Any) -> Any:
            start = sparse_indptr[row]
            k = te.reduce_axis((0, sparse_indptr[row + 1] - start), name="elem_idx")
            return te.sum(sparse_data[start + k] * dense[i, sparse_indices[start + k]], axis=k)
        if sparse_lhs:
            return te.compute((rows, dense.shape[0]), lambda row, i: entry(i, row), tag="sparse_dense_sp_lhs_csrmm")
        return te.compute((dense.shape[0], rows), entry, tag="sparse_dense_sp_rhs_csrmm")
    _, bs_r, bs_c = sparse_data.shape

    def block(i: Any, nb: Any, j: Any) -> Any:
        start = sparse_indptr[nb]
        k = te.reduce_axis((0, sparse_indptr[nb + 1] - start), name="elem_idx")
        c = te.reduce_axis((0, bs_c), name="c")
        return te.sum(sparse_data[start + k, j, c] * dense[i, bs_c * sparse_indices[start + k] + c], axis=[k, c])
    m = dense.shape[0]
    if sparse_lhs:
        blocks = te.compute((rows, bs_r, m), lambda nb, j, i: block(i, nb, j), tag="sparse_dense_sp_lhs_bsrmm_block")
        return te.compute((rows * bs_r, m), lambda r, n: blocks[r // bs_r, r % bs_r, n],
                          tag="sparse_dense_sp_lhs_bsrmm")
    blocks = te.compute((m, rows, bs_r), block, tag="sparse_dense_sp_rhs_bsrmm_block")
    return te.compute((m, rows * bs_r), lambda r, n: blocks[r, n // bs_r, n % bs_r], tag="sparse_dense_sp_rhs_bsrmm")


def sparse_dense_sp_rhs(data: Tensor, weight_data: Tensor, weight_indices: Tensor, weight_indptr: Tensor) -> Tensor:
    """``data @ weight.T`` with a sparse weight."""
    return sparse_dense(data, weight_data, weight_indices, weight_indptr)


def sparse_dense_sp_lhs(data_data: Tensor, data_indices: Tensor, data_indptr: Tensor, weight: Tensor) -> Tensor:
    """``data @ weight.T`` with sparse data."""
    return sparse_dense(weight, data_data, data_indices, data_indptr, sparse_lhs=True)


def sparse_transpose(sparse_data: Tensor, sparse_indices: Tensor, sparse_indptr: Tensor) -> list[Tensor]:
    """The CSR form of a square CSR matrix's transpose: ``[data, indices, indptr]`` (the columns
    counted, their starts summed, then each entry placed in its column's row, in row order).

    :raises ValueError: for a BSR operand.
    """
    if _check_sparse("sparse_transpose", sparse_data, sparse_indices, sparse_indptr):
        raise ValueError("topi.nn.sparse_transpose: takes a CSR matrix (1-d data)")
    nnz = sparse_data.shape[0]
    n = arith.sub(sparse_indptr.shape[0], 1)

    def body(data: Any, indices: Any, indptr: Any, out_data: Any, out_indices: Any, out_indptr: Any) -> Any:
        ib = ir_builder.create()
        data, indices, indptr = (ib.buffer_ptr(b) for b in (data, indices, indptr))
        out_data, out_indices, out_indptr = (ib.buffer_ptr(b) for b in (out_data, out_indices, out_indptr))
        with ib.for_range(0, n + 1, "col") as col:
            out_indptr[col] = arith.const(0, "int32")
        with ib.for_range(0, nnz, "k") as k:  # entries per column, then the columns' starts
            out_indptr[indices[k] + 1] = out_indptr[indices[k] + 1] + 1
        with ib.for_range(0, n, "col") as col:
            out_indptr[col + 1] = out_indptr[col + 1] + out_indptr[col]
        fill = ib.allocate("int32", (n,), name="fill", scope="global")
        with ib.for_range(0, n, "col") as col:
            fill[col] = out_indptr[col]
        with ib.for_range(0, n, "row") as row:
            with ib.for_range(0, indptr[row + 1] - indptr[row], "j") as j:
                k = indptr[row] + j
                col = indices[k]
                out_data[fill[col]] = data[k]
                out_indices[fill[col]] = row.astype("int32")
                fill[col] = fill[col] + 1
        return ib.get()

    outs = [decl_buffer((nnz,), sparse_data.dtype, "out_data"), decl_buffer((nnz,), "int32", "out_indices"),
            decl_buffer((n + 1,), "int32", "out_indptr")]
    return list(extern([(nnz,), (nnz,), (n + 1,)], [sparse_data, sparse_indices, sparse_indptr],
                       lambda ins, o: body(*ins, *o), dtype=[sparse_data.dtype, "int32", "int32"], out_buffers=outs,
                       name="out", tag="sparse_transpose_csr"))


def sparse_add(dense_data: Tensor, sparse_data: Tensor, sparse_indices: Tensor, sparse_indptr: Tensor) -> Tensor:
    """``dense_data + sparse`` for a CSR matrix of the dense one's shape.

    :raises ValueError: for a BSR operand or a dense operand that is not 2-d.
    """
    dense = tensor("nn.sparse_add", dense_data)
    if _check_sparse("sparse_add", sparse_data, sparse_indices, sparse_indptr) or len(dense.shape) != 2:
        raise ValueError("topi.nn.sparse_add: adds a CSR matrix (1-d data) to a 2-d dense one")
    rows, cols = dense.shape

    def body(d: Any, data: Any, indices: Any, indptr: Any, out: Any) -> Any:
        ib = ir_builder.create()
        d, data, indices, indptr, out = (ib.buffer_ptr(b) for b in (d, data, indices, indptr, out))
        with ib.for_range(0, rows * cols, "i", kind="parallel") as i:
            out[i] = d[i]
        with ib.for_range(0, rows, "row", kind="parallel") as row:
            with ib.for_range(0, indptr[row + 1] - indptr[row], "j") as j:
                k = indptr[row] + j
                at = row * cols + indices[k]
                out[at] = out[at] + data[k]
        return ib.get()

    out = decl_buffer(dense.shape, dense.dtype, "out_buf")
    return extern([dense.shape], [dense, sparse_data, sparse_indices, sparse_indptr], lambda ins, o: body(*ins, o[0]),
                  dtype=[dense.dtype], out_buffers=[out], name="out", tag="sparse_add_csr")


def sparse_conv2d(dense_data: Tensor, sparse_data: Tensor, sparse_indices: Tensor, sparse_indptr: Tensor,
                  layout: str = "NHWC", kernel_size: int = 1) -> Tensor:
    """A 1 x 1 convolution by a BSR (or CSR) weight ``(out, in)``: each pixel's channels times the
    sparse weight's transpose, in ``NHWC`` or ``NCHW``; BSR data of 2 dimensions are blocks of
    one column.

    :raises ValueError: for another kernel size or layout.
    """
    data = tensor("nn.sparse_conv2d", dense_data)
    for t in (sparse_data, sparse_indices, sparse_indptr):
        tensor("nn.sparse_conv2d", t)
    if kernel_size != 1 or layout not in ("NHWC", "NCHW") or len(data.shape) != 4:
        raise ValueError(f"topi.nn.sparse_conv2d: takes a 4-d NHWC or NCHW input and a 1 x 1 kernel, got layout "
                         f"{layout!r}, kernel_size {kernel_size!r}")
    if len(sparse_data.shape) == 2:  # blocks of one column, their column dimension left out
        rows_data = sparse_data
        sparse_data = te.compute((*sparse_data.shape, 1), lambda k, r, _: rows_data[k, r], name="blocks",
                                 tag=tag.INJECTIVE)
    nhwc = layout == "NHWC"
    n, a, b, c = get_const_tuple(data.shape)
    pixels = n * a * b if nhwc else None
    if nhwc:
        flat = te.compute((pixels, c), lambda p, ch: data[p // (a * b), p // b % a, p % b, ch], name="flat",
                          tag=tag.INJECTIVE)
        out = sparse_dense(flat, sparse_data, sparse_indices, sparse_indptr)
        return te.compute((n, a, b, out.shape[1]), lambda i, h, w, f: out[(i * a + h) * b + w, f], name="sparse_conv2d",
                          tag="sparse_conv2d_bsr")
    ch, h, w = a, b, c
    flat = te.compute((n * h * w, ch), lambda p, k: data[p // (h * w), k, p // w % h, p % w], name="flat",
                      tag=tag.INJECTIVE)
    out = sparse_dense(flat, sparse_data, sparse_indices, sparse_indptr)
    return te.compute((n, out.shape[1], h, w), lambda i, f, y, x: out[(i * h + y) * w + x, f], name="sparse_conv2d",
                      tag="sparse_conv2d_bsr")
