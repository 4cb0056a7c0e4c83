"""An XLA-like op library built with ``compute``: HLO op names in snake_case, shapes as tuples.

Every op is an ordinary compute (its ``tag`` is the HLO name), so schedules, bounds, lowering
and indexing maps work on them as on any user compute. Runtime offsets (dynamic slices,
gather indices) are clamped into range as XLA does.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Sequence
from typing import Any

from schedule.base.errors import ScheduleError
from schedule.ir import arith
from schedule.ir import intrinsics as _intr
from schedule.ir.expr import Expr, Reduce, Var
from schedule.ir.itervar import IterVar, IterVarType, Range
from schedule.ir.reduce import Reducer, comm_reducer
from schedule.ir.reduce import max as _max
from schedule.ir.reduce import min as _min
from schedule.ir.reduce import sum as _sum
from schedule.operation.compute import ComputeOp, compute
from schedule.operation.tensor import Tensor
from schedule.xla import elementwise as ew

# -- helpers -------------------------------------------------------------------------------------


def _shape(t: Tensor) -> list[int]:
    out = []
    for k, e in enumerate(t.shape):
        v = arith.value_of(e)
        if v is None:
            raise ScheduleError(f"ops: '{t.name}' has a symbolic extent in dimension {k}; the op "
                                "library needs concrete shapes")
        out.append(v)
    return out


def _check_dims(op: str, dims: Sequence[int], rank: int) -> list[int]:
    dims = list(dims)
    if any(not isinstance(d, int) or not 0 <= d < rank for d in dims) or len(set(dims)) != len(dims):
        raise ScheduleError(f"ops.{op}: dimensions {dims} must be distinct integers in [0, {rank})")
    return dims


def _load(t: Tensor, index: Sequence[Any]) -> Expr:
    return t[tuple(index)] if index else t[()]


def _reduce_axes(sizes: Sequence[int], prefix: str) -> list[IterVar]:
    return [IterVar(Range(0, n), Var(f"{prefix}{k}", "int32"), IterVarType.CommReduce) for k, n in enumerate(sizes)]


_REDUCERS: dict[str, Reducer] = {"add": _sum, "max": _max, "min": _min,
                                 "mul": comm_reducer(lambda x, y: x * y, lambda t: arith.const(1, t), name="mul")}


def _reducer(combiner: str | Reducer) -> Reducer:
    if isinstance(combiner, Reducer):
        return combiner
    try:
        return _REDUCERS[combiner]
    except KeyError:
        raise ScheduleError(f"ops: unknown combiner {combiner!r}; use add, max, min, mul or a "
                            "te.comm_reducer") from None


def _scalar(value: Any) -> Any:
    return value[()] if isinstance(value, Tensor) else value


# -- elementwise ---------------------------------------------------------------------------------

def _elementwise(kind: str, fn: Callable[..., Any], *xs: Tensor, name: str | None = None) -> Tensor:
    ranked = [x for x in xs if len(x.shape) > 0]
    shape = _shape(ranked[0]) if ranked else []
    for x in ranked:
        if _shape(x) != shape:
            raise ScheduleError(f"ops.{kind}: shapes {[_shape(y) for y in ranked]} differ")
    return compute(shape, lambda *i: fn(*(_load(x, i if len(x.shape) else ()) for x in xs)),
                   name=name or kind, tag=kind)


def _unary(kind: str, fn: Callable[[Any], Any]) -> Callable[..., Tensor]:
    def op(x: Tensor, name: str | None = None) -> Tensor:
        return _elementwise(kind, fn, x, name=name)
    op.__name__ = kind
    op.__doc__ = f"Elementwise ``{kind}``."
    return op


def _binary(kind: str, fn: Callable[[Any, Any], Any]) -> Callable[..., Tensor]:
    def op(a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
        return _elementwise(kind, fn, a, b, name=name)
    op.__name__ = kind
    op.__doc__ = f"Elementwise ``{kind}`` (a rank-0 operand is broadcast)."
    return op


exponential = exp = _unary("exponential", _intr.exp)
log = _unary("log", _intr.log)
sqrt = _unary("sqrt", _intr.sqrt)
tanh = _unary("tanh", _intr.tanh)
negate = _unary("negate", lambda x: -x)
abs = _unary("abs", _intr.abs)  # noqa: A001
copy = _unary("copy", lambda x: x)
add = _binary("add", lambda a, b: a + b)
subtract = _binary("subtract", lambda a, b: a - b)
multiply = _binary("multiply", lambda a, b: a * b)
divide = _binary("divide", lambda a, b: a / b)
maximum = _binary("maximum", arith.max_expr)
minimum = _binary("minimum", arith.min_expr)


def elementwise(opcode: str, *xs: Tensor, dtype: str | None = None, attrs: dict[str, str] | None = None,
                name: str | None = None) -> Tensor:
    """Any of XLA's element-wise ops by its HLO opcode (``"and"``, ``"sine"``, ``"shift-left"``
    ...; see :mod:`schedule.xla.elementwise`), with its HLO attributes (a compare's
    ``direction``). *dtype* defaults to the first operand's (``bool`` for compare)."""
    arity = ew.ARITY.get(opcode)
    if arity is None:
        raise ScheduleError(f"ops.elementwise: {opcode!r} is not one of XLA's element-wise ops")
    if len(xs) != arity:
        raise ScheduleError(f"ops.elementwise: {opcode} takes {arity} operands, not {len(xs)}")
    for x in xs:
        if not isinstance(x, Tensor):
            raise TypeError(f"ops.elementwise: operands must be tensors, not {type(x).__name__}")
    if opcode == "compare":
        ew.direction(attrs or {})
    out_dtype = dtype or ("bool" if opcode == "compare" else xs[1 if opcode in ("select", "clamp") else 0].dtype)
    return _elementwise(opcode, lambda *v: ew.element(opcode, out_dtype, v, attrs), *xs, name=name)


def clamp(lo: Tensor, x: Tensor, hi: Tensor, name: str | None = None) -> Tensor:
    """``min(max(x, lo), hi)`` elementwise (rank-0 bounds are broadcast)."""
    return elementwise("clamp", lo, x, hi, name=name)


def select(pred: Tensor, a: Tensor, b: Tensor, name: str | None = None) -> Tensor:
    """``pred ? a : b`` elementwise (a rank-0 predicate is broadcast)."""
    return _elementwise("select", lambda p, x, y: arith.select(p, x, y), pred, a, b, name=name)


# -- data movement -------------------------------------------------------------------------------

def constant(value: Any, shape: Sequence[int] = (), dtype: str = "float32", name: str | None = None) -> Tensor:
    """A tensor of *shape* filled with *value*."""
    return compute(list(shape), lambda *i: arith.const(value, dtype), name=name or "constant", tag="constant")


def iota(shape: Sequence[int], dimension: int, dtype: str = "int32", name: str | None = None) -> Tensor:
    """``T[i...] = i[dimension]``."""
    _check_dims("iota", [dimension], len(shape))
    return compute(list(shape), lambda *i: arith.cast(dtype, i[dimension]), name=name or "iota", tag="iota")


def broadcast(x: Tensor, shape: Sequence[int], dimensions: Sequence[int], name: str | None = None) -> Tensor:
    """``out[i] = x[i[dimensions[0]], i[dimensions[1]], ...]``; an operand dimension of size 1
    may be broadcast too (XLA's degenerate broadcast: it is read at 0)."""
    dims = _check_dims("broadcast", dimensions, len(shape))
    xs = _shape(x)
    if len(dims) != len(x.shape) or any(shape[d] != n and n != 1 for d, n in zip(dims, xs)):
        raise ScheduleError(f"ops.broadcast: {x.name}{xs} does not fit dimensions {dims} of {list(shape)}")
    out = compute(list(shape), lambda *i: _load(x, [i[d] if shape[d] == n else 0 for d, n in zip(dims, xs)]),
                  name=name or "broadcast", tag="broadcast")
    return _with_attrs(out, dimensions=tuple(dims))


def transpose(x: Tensor, dimensions: Sequence[int], name: str | None = None) -> Tensor:
    """``out`` dimension ``k`` is ``x`` dimension ``dimensions[k]``."""
    shape = _shape(x)
    perm = _check_dims("transpose", dimensions, len(shape))
    if len(perm) != len(shape):
        raise ScheduleError(f"ops.transpose: {perm} is not a permutation of {len(shape)} dimensions")

    def body(*i: Any) -> Expr:
        index: list[Any] = [None] * len(shape)
        for k, p in enumerate(perm):
            index[p] = i[k]
        return _load(x, index)
    return compute([shape[p] for p in perm], body, name=name or "transpose", tag="transpose")


def reverse(x: Tensor, dimensions: Sequence[int], name: str | None = None) -> Tensor:
    shape = _shape(x)
    dims = set(_check_dims("reverse", dimensions, len(shape)))
    return compute(shape, lambda *i: _load(x, [shape[k] - 1 - v if k in dims else v for k, v in enumerate(i)]),
                   name=name or "reverse", tag="reverse")


def slice(x: Tensor, starts: Sequence[int], limits: Sequence[int],  # noqa: A001
          strides: Sequence[int] | None = None, name: str | None = None) -> Tensor:
    shape = _shape(x)
    strides = list(strides or [1] * len(shape))
    if not len(starts) == len(limits) == len(strides) == len(shape):
        raise ScheduleError(f"ops.slice: starts, limits and strides need {len(shape)} entries each")
    out = []
    for k, (a, b, s) in enumerate(zip(starts, limits, strides)):
        if not (0 <= a <= b <= shape[k]) or s < 1:
            raise ScheduleError(f"ops.slice: dimension {k}: [{a}, {b}) by {s} is not inside [0, {shape[k]})")
        out.append(-((a - b) // s))
    return compute(out, lambda *i: _load(x, [v * s + a for v, s, a in zip(i, strides, starts)]),
                   name=name or "slice", tag="slice")


def concatenate(xs: Sequence[Tensor], dimension: int, name: str | None = None) -> Tensor:
    shapes = [_shape(x) for x in xs]
    _check_dims("concatenate", [dimension], len(shapes[0]))
    for s in shapes[1:]:
        if len(s) != len(shapes[0]) or any(a != b for k, (a, b) in enumerate(zip(s, shapes[0])) if k != dimension):
            raise ScheduleError(f"ops.concatenate: shapes {shapes} differ outside dimension {dimension}")
    offsets = [0]
    for s in shapes:
        offsets.append(offsets[-1] + s[dimension])
    out = list(shapes[0])
    out[dimension] = offsets[-1]

    def operand(i: Sequence[Any], k: int) -> Expr:
        idx = list(i)
        idx[dimension] = i[dimension] - offsets[k] if offsets[k] else i[dimension]
        return _load(xs[k], idx)

    def body(*i: Any) -> Expr:
        # A balanced tree of choices (operands lo..hi-1), built bottom-up without recursion: an
        # element is found in log2(n) tests, and each read's condition has as many terms, so
        # that thousands of operands cost time in proportion to their number.
        level = [(k, k + 1, operand(i, k)) for k in range(len(xs))]
        while len(level) > 1:
            merged = [(lo, hi2, _intr_if(i[dimension] < offsets[hi], left, right))
                      for (lo, hi, left), (_, hi2, right) in zip(level[0::2], level[1::2])]
            level = merged + ([level[-1]] if len(level) % 2 else [])
        return level[0][2]
    return compute(out, body, name=name or "concatenate", tag="concatenate")


def _intr_if(cond: Any, a: Any, b: Any) -> Expr:
    return arith.if_then_else(cond, a, b)


def pad(x: Tensor, value: Any, config: Sequence[tuple[int, int, int]], name: str | None = None) -> Tensor:
    """Padding ``(low, high, interior)`` per dimension; *value* is a scalar or a rank-0 tensor."""
    shape = _shape(x)
    if len(config) != len(shape):
        raise ScheduleError(f"ops.pad: {len(config)} padding entries for rank {len(shape)}")
    out = [lo + hi + n + max(n - 1, 0) * p for n, (lo, hi, p) in zip(shape, config)]

    def body(*i: Any) -> Expr:
        conds, idx = [], []
        for v, n, (lo, _, p) in zip(i, shape, config):
            shifted = v - lo
            conds += [shifted >= 0, shifted <= (n - 1) * (p + 1)]
            if p:
                conds.append(arith.floormod(shifted, p + 1) == 0)
                idx.append(arith.floordiv(shifted, p + 1))
            else:
                idx.append(shifted)
        inside = conds[0]
        for c in conds[1:]:
            inside = arith.logical_and(inside, c)
        return _intr_if(inside, _load(x, idx), _scalar(value))
    return compute(out, body, name=name or "pad", tag="pad")


def reshape(x: Tensor, shape: Sequence[int], name: str | None = None) -> Tensor:
    """Row-major reshape; indices follow XLA's groups of dimensions with equal sizes."""
    src = _shape(x)
    if math.prod(src) != math.prod(shape):
        raise ScheduleError(f"ops.reshape: {src} and {list(shape)} hold different numbers of elements")
    return compute(list(shape), lambda *i: _load(x, reshape_indices(src, list(shape), list(i))),
                   name=name or "reshape", tag="reshape")


def reshape_groups(src: Sequence[int], dst: Sequence[int]) -> list[tuple[list[int], list[int]]]:
    """XLA's minimal reshapes: ``(source dims, destination dims)`` groups of equal element
    counts, scanned left to right (a trailing source group of 1s has no destination dims)."""
    groups = []
    i = j = 0
    while i < len(src) or j < len(dst):
        in_group: list[int] = []
        out_group: list[int] = []
        in_elems = out_elems = 1
        while True:
            if i < len(src) and (not in_group or in_elems < out_elems):
                in_group.append(i)
                in_elems *= src[i]
                i += 1
            elif j < len(dst) and (not out_group or out_elems < in_elems):
                out_group.append(j)
                out_elems *= dst[j]
                j += 1
            else:
                break
        if not in_group:
            break
        groups.append((in_group, out_group))
    return groups


def reshape_indices(src: list[int], dst: list[int], out_index: list[Any]) -> list[Any]:
    """The index into *src* of element *out_index* of *dst* (XLA's minimal-reshape groups)."""
    if math.prod(src) == 0:
        return [arith.const(0)] * len(src)
    result: list[Any] = []
    for in_group, out_group in reshape_groups(src, dst):
        linear: Any = arith.const(0)
        for k in out_group:
            linear = linear * dst[k] + out_index[k]
        for k in in_group:
            stride = math.prod(src[m] for m in in_group if m > k)
            part = arith.floordiv(linear, stride) if stride > 1 else linear
            if k != in_group[0]:
                part = arith.floormod(part, src[k])
            result.append(part if out_group else arith.const(0))
    return result


bitcast = reshape


# -- reductions and contractions -----------------------------------------------------------------

def reduce(inputs: Tensor | Sequence[Tensor], inits: Any, dimensions: Sequence[int],  # noqa: A001
           combiner: str | Reducer = "add", name: str | None = None) -> Any:
    """Reduce *inputs* over *dimensions* (variadic with a tuple combiner); returns a tensor or a list."""
    xs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
    init_list = list(inits) if isinstance(inits, (list, tuple)) else [inits]
    shape = _shape(xs[0])
    dims = sorted(_check_dims("reduce", dimensions, len(shape)))
    axes = _reduce_axes([shape[d] for d in dims], "r")
    red = _reducer(combiner)
    out = [n for k, n in enumerate(shape) if k not in dims]

    def body(*i: Any) -> Any:
        it, rt = iter(i), iter(axes)
        index = [next(rt).var if k in dims else next(it) for k in range(len(shape))]
        sources = [_load(x, index) for x in xs]
        init = [_scalar(v) for v in init_list] if inits is not None else None
        if len(xs) == 1:
            return red(sources[0], axis=axes, init=init[0] if init else None)
        return red(sources, axis=axes, init=init)
    return _with_attrs(compute(out, body, name=name or "reduce", tag="reduce"), dimensions=tuple(dims),
                       combiner=combiner if isinstance(combiner, str) else None, has_init=inits is not None)


def _with_attrs(out: Any, **attrs: Any) -> Any:
    """*out* (a tensor or a variadic op's tensors) with the op's metadata for the rewrites, kept
    as Python values (a compute's ``attrs=`` would make constant expressions of them, as TVM
    does)."""
    (out[0] if isinstance(out, list) else out).op.attrs.update(attrs)
    return out


def reduce_sum(x: Tensor, dimensions: Sequence[int], name: str | None = None) -> Tensor:
    return reduce(x, None, dimensions, "add", name=name)


def reduce_max(x: Tensor, dimensions: Sequence[int], name: str | None = None) -> Tensor:
    return reduce(x, None, dimensions, "max", name=name)


def dot(a: Tensor, b: Tensor, lhs_batch: Sequence[int] = (), rhs_batch: Sequence[int] = (),
        lhs_contracting: Sequence[int] = (), rhs_contracting: Sequence[int] = (),
        name: str | None = None) -> Tensor:
    """XLA's dot: batch dims, then lhs free dims, then rhs free dims; sums over contracting pairs."""
    sa, sb = _shape(a), _shape(b)
    lb, rb = list(lhs_batch), list(rhs_batch)
    lc, rc = list(lhs_contracting), list(rhs_contracting)
    if len(lb) != len(rb) or len(lc) != len(rc) or any(sa[x] != sb[y] for x, y in (*zip(lb, rb), *zip(lc, rc))):
        raise ScheduleError(f"ops.dot: batch {lb}/{rb} and contracting {lc}/{rc} dims of {sa} and {sb} do not pair")
    lfree = [k for k in range(len(sa)) if k not in lb and k not in lc]
    rfree = [k for k in range(len(sb)) if k not in rb and k not in rc]
    axes = _reduce_axes([sa[k] for k in lc], "k")
    out = [sa[k] for k in lb] + [sa[k] for k in lfree] + [sb[k] for k in rfree]

    def body(*i: Any) -> Expr:
        ia: list[Any] = [None] * len(sa)
        ib: list[Any] = [None] * len(sb)
        pos = 0
        for x, y in zip(lb, rb):
            ia[x] = ib[y] = i[pos]
            pos += 1
        for k in lfree:
            ia[k] = i[pos]
            pos += 1
        for k in rfree:
            ib[k] = i[pos]
            pos += 1
        for ax, x, y in zip(axes, lc, rc):
            ia[x] = ib[y] = ax.var
        product = _load(a, ia) * _load(b, ib)
        return _sum(product, axis=axes) if axes else product
    return compute(out, body, name=name or "dot", tag="dot")


def scaled_dot(a: Tensor, b: Tensor, a_scale: Tensor, b_scale: Tensor, lhs_batch: Sequence[int] = (),
               rhs_batch: Sequence[int] = (), lhs_contracting: Sequence[int] = (),
               rhs_contracting: Sequence[int] = (), name: str | None = None) -> Tensor:
    """A dot whose operands are scaled blockwise: ``a_scale`` holds one factor per block of ``a``
    (a dimension of size n with scale size m has blocks of n // m), likewise for ``b``."""
    product = dot(a, b, lhs_batch, rhs_batch, lhs_contracting, rhs_contracting, name=name or "scaled-dot")
    op = product.op
    assert isinstance(op.body[0], Reduce)
    red = op.body[0]
    source = red.source[0]

    def scaled(load: Expr, scale: Tensor) -> Expr:
        sizes, ssizes = _shape(load.producer), _shape(scale)
        index = [i if n == m else arith.floordiv(i, n // m) for i, n, m in zip(load.indices, sizes, ssizes)]
        return _load(scale, index)
    lhs_load, rhs_load = source.a, source.b
    new_source = (lhs_load * scaled(lhs_load, a_scale)) * (rhs_load * scaled(rhs_load, b_scale))
    body = Reduce(red.combiner, (new_source,), red.axis, red.condition, 0, red.init)
    return ComputeOp(op.name, "scaled-dot", op.attrs, op.axis, (body,)).output(0)


def reduce_window(x: Tensor | Sequence[Tensor], init: Any, size: Sequence[int],
                  stride: Sequence[int] | None = None, padding: Sequence[tuple[int, int]] | None = None,
                  dilation: Sequence[int] | None = None, combiner: str | Reducer = "add",
                  base_dilation: Sequence[int] | None = None, name: str | None = None) -> Any:
    """A window reduction (variadic with lists of inputs and inits); padded and base-dilated
    holes contribute nothing (the init value). *dilation* spreads the window, *base_dilation*
    the input."""
    xs = [x] if isinstance(x, Tensor) else list(x)
    inits = list(init) if isinstance(init, (list, tuple)) else [init]
    shape = _shape(xs[0])
    rank = len(shape)
    stride = list(stride or [1] * rank)
    padding = list(padding or [(0, 0)] * rank)
    dilation = list(dilation or [1] * rank)
    base = list(base_dilation or [1] * rank)
    out = []
    for n, w, s, (lo, hi), d, b in zip(shape, size, stride, padding, dilation, base):
        span = (w - 1) * d + 1
        dilated = (n - 1) * b + 1 if n else 0
        out.append((dilated + lo + hi - span) // s + 1)
    axes = _reduce_axes(list(size), "w")
    red = _reducer(combiner)

    def body(*i: Any) -> Any:
        index, conds = [], []
        for v, ax, s, (lo, _), d, b, n in zip(i, axes, stride, padding, dilation, base, shape):
            pos = v * s + ax.var * d - lo
            conds += [pos >= 0, pos <= (n - 1) * b]
            if b > 1:
                conds.append(arith.floormod(pos, b) == 0)
                pos = arith.floordiv(pos, b)
            index.append(pos)
        where = conds[0]
        for c in conds[1:]:
            where = arith.logical_and(where, c)
        sources = [_load(t, index) for t in xs]
        values = [_scalar(v) for v in inits]
        if len(xs) == 1:
            return red(sources[0], axis=axes, where=where, init=values[0])
        return red(sources, axis=axes, where=where, init=values)
    result = compute(out, body, name=name or "reduce-window", tag="reduce-window")
    return result


def convolution(lhs: Tensor, rhs: Tensor, dim_labels: str, size: Sequence[int] | None = None,
                stride: Sequence[int] | None = None, padding: Sequence[tuple[int, int]] | None = None,
                lhs_dilation: Sequence[int] | None = None, rhs_dilation: Sequence[int] | None = None,
                feature_group_count: int = 1, batch_group_count: int = 1, name: str | None = None,
                rhs_reversal: Sequence[int] | None = None) -> Tensor:
    """XLA's convolution; *dim_labels* as HLO writes them (``b01f_01io->b01f``). A spatial
    dimension with *rhs_reversal* set reads the kernel window back to front."""
    m = re.fullmatch(r"(\w+)_(\w+)->(\w+)", dim_labels)
    if m is None:
        raise ScheduleError(f"ops.convolution: dim_labels {dim_labels!r} is not like 'b01f_01io->b01f'")
    in_l, k_l, out_l = m.groups()
    ls, ks = _shape(lhs), _shape(rhs)
    nsp = len(in_l) - 2
    spatial = [str(k) for k in range(nsp)]
    size = list(size or [ks[k_l.index(d)] for d in spatial])
    stride = list(stride or [1] * nsp)
    padding = list(padding or [(0, 0)] * nsp)
    ld = list(lhs_dilation or [1] * nsp)
    rd = list(rhs_dilation or [1] * nsp)
    reversed_ = list(rhs_reversal or [0] * nsp)
    n_in_f, n_out_f = ks[k_l.index("i")], ks[k_l.index("o")]
    out_shape: list[int] = [0] * len(out_l)
    out_shape[out_l.index("b")] = ls[in_l.index("b")] // batch_group_count
    out_shape[out_l.index("f")] = n_out_f
    for k, d in enumerate(spatial):
        n = ls[in_l.index(d)]
        dilated = (n - 1) * ld[k] + 1
        span = (size[k] - 1) * rd[k] + 1
        out_shape[out_l.index(d)] = (dilated + padding[k][0] + padding[k][1] - span) // stride[k] + 1
    axes = _reduce_axes([*size, n_in_f], "c")
    group_out = n_out_f // feature_group_count
    batch_out = n_out_f // batch_group_count

    def body(*i: Any) -> Expr:
        f_out, b = i[out_l.index("f")], i[out_l.index("b")]
        c = axes[-1].var
        lhs_index: list[Any] = [None] * len(in_l)
        rhs_index: list[Any] = [None] * len(k_l)
        conds = []
        for k, d in enumerate(spatial):
            w = axes[k].var
            pos = i[out_l.index(d)] * stride[k] + w * rd[k] - padding[k][0]
            n = ls[in_l.index(d)]
            conds += [pos >= 0, pos <= (n - 1) * ld[k]]
            if ld[k] > 1:
                conds.append(arith.floormod(pos, ld[k]) == 0)
                pos = arith.floordiv(pos, ld[k])
            lhs_index[in_l.index(d)] = pos
            rhs_index[k_l.index(d)] = size[k] - 1 - w if reversed_[k] else w
        group = arith.floordiv(f_out, group_out) * n_in_f + c if feature_group_count > 1 else c
        lhs_index[in_l.index("f")] = group
        out_batch = out_shape[out_l.index("b")]
        lhs_index[in_l.index("b")] = (arith.floordiv(f_out, batch_out) * out_batch + b
                                      if batch_group_count > 1 else b)
        rhs_index[k_l.index("i")] = c
        rhs_index[k_l.index("o")] = f_out
        inside = conds[0] if conds else arith.const(True)
        for cond in conds[1:]:
            inside = arith.logical_and(inside, cond)
        value = arith.if_then_else(inside, _load(lhs, lhs_index), arith.const(0, lhs.dtype)) if conds else \
            _load(lhs, lhs_index)
        return _sum(value * _load(rhs, rhs_index), axis=axes)
    return compute(out_shape, body, name=name or "convolution", tag="convolution")


# -- dynamic indexing ----------------------------------------------------------------------------

def _clamped(offset: Tensor, hi: int) -> Expr:
    return arith.min_expr(arith.max_expr(offset[()], 0), hi)


def dynamic_slice(x: Tensor, offsets: Sequence[Tensor], sizes: Sequence[int], name: str | None = None) -> Tensor:
    """``out[i] = x[i + clamp(offsets, 0, shape - sizes)]``."""
    shape = _shape(x)
    if len(offsets) != len(shape) or len(sizes) != len(shape):
        raise ScheduleError(f"ops.dynamic_slice: give {len(shape)} offsets and sizes")
    def body(*i: Any) -> Expr:
        return _load(x, [v + _clamped(o, n - s) for v, o, n, s in zip(i, offsets, shape, sizes)])
    return compute(list(sizes), body, name=name or "dynamic-slice", tag="dynamic-slice")


def dynamic_update_slice(x: Tensor, update: Tensor, offsets: Sequence[Tensor], name: str | None = None) -> Tensor:
    """*x* with *update* written at the clamped offsets."""
    shape, ushape = _shape(x), _shape(update)

    def body(*i: Any) -> Expr:
        starts = [_clamped(o, n - u) for o, n, u in zip(offsets, shape, ushape)]
        inside = arith.const(True)
        for v, s, u in zip(i, starts, ushape):
            inside = arith.logical_and(inside, arith.logical_and(v >= s, v < s + u))
        return _intr_if(inside, _load(update, [v - s for v, s in zip(i, starts)]), _load(x, i))
    return compute(shape, body, name=name or "dynamic-update-slice", tag="dynamic-update-slice")


def gather(operand: Tensor, indices: Tensor, slice_sizes: Sequence[int],
           start_index_map: Sequence[int], name: str | None = None) -> Tensor:
    """XLA's simplified gather: ``indices`` is ``[batch, len(start_index_map)]``; the output is
    ``[batch, *slice_sizes]``, operand dim ``start_index_map[j]`` offset by ``indices[b, j]``."""
    shape, ishape = _shape(operand), _shape(indices)
    if len(ishape) != 2 or ishape[1] != len(start_index_map) or len(slice_sizes) != len(shape):
        raise ScheduleError("ops.gather: indices must be [batch, len(start_index_map)] and slice_sizes "
                            f"have {len(shape)} entries")

    def body(*i: Any) -> Expr:
        b, o = i[0], i[1:]
        index = list(o)
        for j, d in enumerate(start_index_map):
            start = arith.min_expr(arith.max_expr(indices[b, j], 0), shape[d] - slice_sizes[d])
            index[d] = o[d] + start
        return _load(operand, index)
    return compute([ishape[0], *slice_sizes], body, name=name or "gather", tag="gather")
