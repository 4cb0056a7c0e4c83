"""Binary search (TVM's ``topi.searchsorted``): for each value, the index at which it would be
inserted into its row of a sorted sequence to keep the row sorted: before equal elements, or
after them with ``right``. An extern operation; every value searches its row in parallel."""

from __future__ import annotations

from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from schedule.ir.buffer import decl_buffer
from schedule.ir.dtype import check_dtype, is_int
from topi.extern_items import each_item
from topi.transform.shape import product, tensor


def searchsorted(sorted_sequence: Tensor, values: Tensor, right: bool = False, out_dtype: str = "int64") -> Tensor:
    """The insertion indices of *values* ``(..., N)`` into the rows of *sorted_sequence* ``(...,
    M)`` (the same leading dimensions, or one row for all), in *out_dtype*.

    :raises ValueError: for leading dimensions that differ, or an output type that is no integer.
    """
    return _searchsorted(sorted_sequence, values, right, out_dtype, False)


def cuda_searchsorted(sorted_sequence: Tensor, values: Tensor, right: bool = False,
                      out_dtype: str = "int64") -> Tensor:
    """:func:`searchsorted` with one GPU thread per value (TVM's ``topi.cuda.searchsorted``)."""
    return _searchsorted(sorted_sequence, values, right, out_dtype, True)


def _searchsorted(sorted_sequence: Tensor, values: Tensor, right: bool, out_dtype: str, gpu: bool) -> Tensor:
    seq, vals = tensor("searchsorted", sorted_sequence), tensor("searchsorted", values)
    out_dtype = check_dtype(out_dtype)
    if not is_int(out_dtype):
        raise ValueError(f"topi.searchsorted: out_dtype must be an integer type, not {out_dtype!r}")
    shared = len(seq.shape) > 1
    if shared and (len(seq.shape) != len(vals.shape) or any(
            arith.value_of(arith.sub(a, b)) not in (0, None) for a, b in zip(seq.shape[:-1], vals.shape[:-1]))):
        raise ValueError(f"topi.searchsorted: sorted_sequence {list(map(str, seq.shape))} must be 1-d or have the "
                         f"leading dimensions of values {list(map(str, vals.shape))}")
    length, count = seq.shape[-1], vals.shape[-1] if vals.shape else arith.const(1)

    def body(s: object, v: object, out: object) -> object:
        ib = ir_builder.create()
        s, v, out = ib.buffer_ptr(s), ib.buffer_ptr(v), ib.buffer_ptr(out)
        with each_item(ib, product(vals.shape), gpu) as i:
            row = i // count * length if shared else 0
            lo = ib.allocate(out_dtype, (1,), name="lo", scope="local")
            hi = ib.allocate(out_dtype, (1,), name="hi", scope="local")
            lo[0] = arith.const(0, out_dtype)
            hi[0] = arith.cast(out_dtype, length)
            with ib.while_loop(lo[0] < hi[0]):
                mid = lo[0] + (hi[0] - lo[0]) // 2
                before = s[row + mid] <= v[i] if right else s[row + mid] < v[i]
                with ib.if_scope(before):
                    lo[0] = mid + 1
                with ib.else_scope():
                    hi[0] = mid
            out[i] = lo[0]
        return ib.get()

    out = decl_buffer(vals.shape, out_dtype, "out_buf")
    return extern([vals.shape], [seq, vals], lambda ins, outs: body(ins[0], ins[1], outs[0]), dtype=[out_dtype],
                  out_buffers=[out], name="searchsorted", tag="searchsorted")
