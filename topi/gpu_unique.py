"""The distinct elements of a 1-d tensor on a GPU (TVM's ``topi.cuda.unique``): a stable GPU
sort, then kernels that flag where a run of equal values starts, number the runs by a
parallel scan of the flags, and scatter each run's value, first position, size and each
element's run number. For the order of first occurrence, the runs are sorted again by their
first position. NaNs form one run, as NumPy's ``unique`` makes them. Outputs past
``num_unique`` are left as they were, as the host version leaves them. A tensor of symbolic
length is handled on the host (:func:`topi.unique.unique`)."""

from __future__ import annotations

from typing import Any

import schedule as te
from schedule import Tensor, extern, ir_builder
from schedule.ir import arith
from schedule.ir.dtype import is_float
from topi import merge_sort
from topi.extern_items import each_item
from topi.scan import parallel_scan
from topi.transform.shape import tensor
from topi.unique import unique as host_unique


def unique(data: Tensor, is_sorted: bool = True, return_counts: bool = False) -> list[Tensor]:
    """``[unique, indices, inverse_indices, num_unique]`` (and ``counts``) of 1-d *data*, as
    :func:`topi.unique.unique` computes them, on a GPU."""
    data = tensor("cuda.unique", data)
    if len(data.shape) != 1:
        raise ValueError(f"topi.cuda.unique: takes a 1-d tensor, got shape {list(map(str, data.shape))}")
    n = arith.value_of(data.shape[0])
    if n is None or n == 0:
        return host_unique(data, is_sorted, return_counts)
    order = merge_sort.argsort(data, axis=0, is_ascend=True, dtype="int32")
    *runs, live = _runs(data, order, n)
    if is_sorted:
        return runs if return_counts else runs[:4]
    by_first = merge_sort.argsort(runs[1], valid_count=live, axis=0, is_ascend=True)
    return _reordered(runs, by_first, n, return_counts)


def _runs(data: Tensor, order: Tensor, n: int) -> list[Tensor]:
    """The runs of equal values of the sorted data: ``[values, first positions, run of each
    element, [count], sizes, count]`` (the count again as a scalar, the later sort's valid count)."""

    def body(d: Any, o: Any, values: Any, first: Any, inverse: Any, count: Any, sizes: Any, live: Any) -> Any:
        ib = ir_builder.create()
        d, o, values, first, inverse, count, sizes, live = (
            ib.buffer_ptr(b) for b in (d, o, values, first, inverse, count, sizes, live))
        starts = ib.allocate("int32", (n,), "starts", "global")
        run = ib.allocate("int32", (n,), "run", "global")
        start = ib.allocate("int32", (n,), "run_start", "global")
        with ib.new_scope(), each_item(ib, n, True, "i") as i:
            here, before = d[o[i]], d[o[te.max(i - 1, 0)]]
            differs = here != before
            if is_float(data.dtype):  # NaNs sort last and form one run, as NumPy's unique
                both_nan = te.all(te.isnan(here), te.isnan(before))
                differs = te.all(differs, arith.logical_not(both_nan))
            begins = te.any(i == 0, differs)
            starts[i] = te.if_then_else(begins, arith.const(1, "int32"), arith.const(0, "int32"))
        parallel_scan(ib, starts, run, 1, n, lambda line, p: p, lambda a, b: a + b, arith.const(0, "int32"),
                      "int32", False)
        with ib.new_scope(), each_item(ib, n, True, "i") as i:
            g = run[i] - 1
            with ib.if_scope(starts[i] == 1):
                values[g] = d[o[i]]
                first[g] = o[i]
                start[g] = i
            inverse[o[i]] = g
            with ib.if_scope(i == n - 1):
                count[0] = run[i]
                live[0] = run[i]
        with ib.new_scope(), each_item(ib, n, True, "g") as g:
            with ib.if_scope(g < count[0]):
                end = te.if_then_else(g + 1 < count[0], start[te.min(g + 1, n - 1)], arith.const(n, "int32"))
                sizes[g] = end - start[g]
        return ib.get()

    return extern([(n,), (n,), (n,), (1,), (n,), ()], [data, order], lambda ins, outs: body(*ins, *outs),
                  dtype=[data.dtype, "int32", "int32", "int32", "int32", "int32"], name="unique_gpu", tag="unique")


def _reordered(runs: list[Tensor], by_first: Tensor, n: int, return_counts: bool) -> list[Tensor]:
    """The runs in the order of their first positions, and each element's run renumbered."""
    values, first, inverse, count, sizes = runs

    def body(v: Any, f: Any, inv: Any, c: Any, s: Any, perm: Any, *outs: Any) -> Any:
        ib = ir_builder.create()
        v, f, inv, c, s, perm = (ib.buffer_ptr(b) for b in (v, f, inv, c, s, perm))
        out_values, out_first, out_inverse, out_count, *out_sizes = (ib.buffer_ptr(b) for b in outs)
        rank = ib.allocate("int32", (n,), "rank", "global")
        with ib.new_scope(), each_item(ib, n, True, "j") as j:
            with ib.if_scope(j < c[0]):
                rank[perm[j]] = j
                out_values[j] = v[perm[j]]
                out_first[j] = f[perm[j]]
                if out_sizes:
                    out_sizes[0][j] = s[perm[j]]
            with ib.if_scope(j == 0):
                out_count[0] = c[0]
        with ib.new_scope(), each_item(ib, n, True, "i") as i:
            out_inverse[i] = rank[inv[i]]
        return ib.get()

    shapes = [(n,), (n,), (n,), (1,)] + ([(n,)] if return_counts else [])
    dtypes = [values.dtype, "int32", "int32", "int32"] + (["int32"] if return_counts else [])
    outs = extern(shapes, [values, first, inverse, count, sizes, by_first], lambda ins, outs: body(*ins, *outs),
                  dtype=dtypes, name="unique_first_order", tag="unique")
    return list(outs)
