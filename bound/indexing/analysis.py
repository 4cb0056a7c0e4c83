"""Indexing maps derived from compute bodies: which elements of its inputs a tensor reads.

For one compute and one tensor it reads, every read ``P[indices]`` under its condition gives a
map from the compute's index (dims) and reduction axes (range variables) to ``indices``; a
sub-expression that is not affine (a value loaded from another tensor, a ``min``) becomes a
runtime variable bounded by what the expression can take. The read's condition gives the
constraints it can express (conjunctions of comparisons). Maps through a chain of computes
are composed along every path, simplified and deduplicated, as XLA does for fusions.
"""

from __future__ import annotations

from bound.arith.const_bound import ConstBounds
from bound.arith.simplify import simplify
from bound.errors import NonAffineError
from bound.indexing.affine_expr import (
    AffineExpr,
    Binary,
    Const,
    Dim,
    Kind,
    Symbol,
    const_value,
    floordiv,
    mod,
    replace,
)
from bound.indexing.indexing_map import AffineMap, IndexingMap, Variable, compose
from bound.indexing.intervals import INT64_MAX, INT64_MIN, Interval
from bound.indexing.simplify import simplified
from bound.operation.access import Access
from bound.operation.registry import reads
from schedule import arith
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    Add,
    And,
    Cast,
    Expr,
    FloorDiv,
    FloorMod,
    IntImm,
    Max,
    Min,
    Mul,
    Not,
    ProducerLoad,
    Sub,
    Var,
)
from schedule.ir.functor import ExprMutator, substitute
from schedule.operation.compute import ComputeOp
from schedule.operation.tensor import Operation, Tensor


class _Converter:
    """Expressions over a compute's axes -> affine expressions, collecting runtime variables."""

    def __init__(self, op: ComputeOp) -> None:
        self.positions: dict[Var, AffineExpr] = {}
        self.bounds: dict[Var, tuple[int | None, int | None]] = {}
        for k, iv in enumerate(op.axis):
            self.positions[iv.var] = Dim(k)
            self.bounds[iv.var] = _dom(iv)
        for k, iv in enumerate(op.reduce_axis):
            self.positions[iv.var] = Symbol(k)
            self.bounds[iv.var] = _dom(iv)
        self.num_ranges = len(op.reduce_axis)
        self.rt_exprs: list[Expr] = []
        self.rt_bounds: list[Interval] = []
        self.cb = ConstBounds(self.bounds)
        self.strict_mode = False

    def __call__(self, e: Expr) -> AffineExpr:
        try:
            return self.affine(e)
        except NonAffineError:
            if self.strict_mode:
                raise
            return self.runtime(e)

    def affine(self, e: Expr) -> AffineExpr:
        if isinstance(e, IntImm):
            return Const(e.value)
        if isinstance(e, Var):
            if e not in self.positions:
                raise NonAffineError(f"free variable {e.name}")
            return self.positions[e]
        if isinstance(e, Cast) and e.dtype.startswith("int") and e.value.dtype.startswith("int"):
            return self(e.value)
        if isinstance(e, Add):
            return self(e.a) + self(e.b)
        if isinstance(e, Sub):
            return self(e.a) - self(e.b)
        if isinstance(e, Mul):
            return self(e.a) * self(e.b)
        if isinstance(e, (FloorDiv, FloorMod)) and isinstance(e.b, IntImm) and e.b.value > 0:
            a = self(e.a)
            return floordiv(a, Const(e.b.value)) if isinstance(e, FloorDiv) else mod(a, Const(e.b.value))
        raise NonAffineError(f"not affine: {e}")

    def runtime(self, e: Expr) -> AffineExpr:
        folded = _fold_constant_loads(e, self.bounds)
        if folded is not None:
            try:
                return self.affine(folded)
            except NonAffineError:
                pass
        for k, x in enumerate(self.rt_exprs):
            if bool(x == e):
                return Symbol(self.num_ranges + k)
        lo, hi = self.cb(e)
        self.rt_exprs.append(e)
        self.rt_bounds.append(Interval(INT64_MIN if lo is None else lo, INT64_MAX if hi is None else hi))
        return Symbol(self.num_ranges + len(self.rt_exprs) - 1)

    def constraints(self, cond: Expr) -> list[tuple[AffineExpr, Interval]]:
        """The conjuncts of *cond* an interval on an affine expression can say; others are dropped
        (the map then covers more than is read, never less)."""
        out: list[tuple[AffineExpr, Interval]] = []
        stack = [cond]
        while stack:
            c = stack.pop()
            if isinstance(c, And):
                stack.extend((c.b, c.a))
                continue
            negate = isinstance(c, Not)
            if negate:
                c = c.a  # type: ignore[attr-defined]
            kind = type(c)
            if kind not in (LT, LE, GT, GE, EQ) or (negate and kind is EQ):
                continue
            if negate:
                kind = {LT: GE, LE: GT, GT: LE, GE: LT}[kind]
            try:
                diff = self.strict(arith.sub(c.a, c.b))  # type: ignore[attr-defined]
            except NonAffineError:
                continue
            lo, hi = {LT: (INT64_MIN, -1), LE: (INT64_MIN, 0), GT: (1, INT64_MAX),
                      GE: (0, INT64_MAX), EQ: (0, 0)}[kind]
            if isinstance(diff, Binary) and diff.op == Kind.ADD and isinstance(diff.rhs, Const):
                # e + c in [lo, hi] is e in [lo - c, hi - c]: comparisons of one expression meet.
                c_ = diff.rhs.value
                diff, lo, hi = diff.lhs, _shift(lo, -c_), _shift(hi, -c_)
            out.append((diff, Interval(lo, hi)))
        return out

    def strict(self, e: Expr) -> AffineExpr:
        """*e* as an affine expression of the axes only (no runtime variables)."""
        self.strict_mode = True
        try:
            return self.affine(e)
        finally:
            self.strict_mode = False


def _fold_constant_loads(e: Expr, bounds: dict) -> Expr | None:
    """*e* with reads of computes that read nothing (iota, constants) replaced by their values,
    as XLA folds such runtime values: a clamp ``min(max(v, lo), hi)`` around a folded value
    disappears (XLA assumes offsets in range), except that a constant outside ``[lo, hi]`` is
    not folded. None if nothing was folded."""
    folded_any = []

    class _Inline(ExprMutator):
        def visit_producer_load(self, x: ProducerLoad) -> Expr:
            op = x.producer.op
            if isinstance(op, ComputeOp) and not op.input_tensors and not op.reduce_axis:
                folded_any.append(x)
                indices = [self(i) for i in x.indices]
                return substitute(op.body[x.producer.value_index], dict(zip(op.axis, indices)))
            return x

        def visit_min(self, x: Min) -> Expr:
            inner = x.a
            if isinstance(inner, Max) and isinstance(inner.b, IntImm) and isinstance(x.b, IntImm):
                before = len(folded_any)
                value = self(inner.a)
                if len(folded_any) > before:
                    v = simplify(value, {k: b for k, b in bounds.items() if b[0] is not None})
                    if isinstance(v, IntImm) and not inner.b.value <= v.value <= x.b.value:
                        del folded_any[before:]
                        return x
                    return v
            return super().visit_default(x)
    out = _Inline()(e)
    if not folded_any:
        return None
    return simplify(out, {k: b for k, b in bounds.items() if b[0] is not None})


def _shift(x: int, c: int) -> int:
    if x in (INT64_MIN, INT64_MAX):
        return x
    return max(INT64_MIN, min(INT64_MAX, x + c))


def _dom(iv) -> tuple[int | None, int | None]:
    lo, ext = arith.value_of(iv.dom.min), arith.value_of(iv.dom.extent)
    if lo is None or ext is None:
        return (None, None)
    return (lo, lo + ext - 1)


def _size(op: ComputeOp, k: int) -> int:
    n = arith.value_of(op.axis[k].dom.extent)
    if n is None:
        raise ValueError(f"indexing maps need concrete shapes: '{op.name}' has extent "
                         f"{op.axis[k].dom.extent} in dimension {k}")
    return n


def access_map(op: ComputeOp, acc: Access) -> IndexingMap:
    """The map of one read: the compute's index and reduction axes -> the read's indices."""
    conv = _Converter(op)
    results = tuple(conv(i) for i in acc.indices)
    constraints = conv.constraints(acc.condition)
    dims = [Variable(Interval(0, _size(op, k) - 1)) for k in range(len(op.axis))]
    ranges = [Variable(Interval(*(b if b[0] is not None else (INT64_MIN, INT64_MAX))))
              for b in (_dom(iv) for iv in op.reduce_axis)]
    rts = [Variable(b) for b in conv.rt_bounds]
    amap = AffineMap(len(dims), len(ranges) + len(rts), results)
    return IndexingMap.create(amap, dims, ranges, rts, constraints)


def operand_maps(op: Operation, operand: Tensor) -> list[IndexingMap]:
    """The distinct maps of the reads of *operand* in *op*, simplified without folding point
    ranges (XLA's kPreserve), unused symbols removed (undefined for an op that is not a
    compute: its reads are unknown)."""
    return all_operand_maps(op).get(_key(operand), [])


def all_operand_maps(op: Operation) -> dict[tuple[int, int], list[IndexingMap]]:
    """:func:`operand_maps` of every operand of *op*, from one walk of its body (an op of
    thousands of operands, a concatenate, is read once, not once per operand)."""
    if not isinstance(op, ComputeOp):
        return {_key(t): [IndexingMap.undefined()] for t in op.input_tensors}
    out: dict[tuple[int, int], dict[IndexingMap, None]] = {}
    # XLA folds point ranges in the maps of windowed ops and keeps them elsewhere.
    replace_points = op.tag in ("reduce-window", "convolution")
    for acc in reads(op, op.input_tensors):
        m = simplified(access_map(op, acc), replace_points=replace_points)
        out.setdefault(_key(acc.tensor), {}).setdefault(m.remove_unused_symbols()[0], None)
    maps = {k: list(v) for k, v in out.items()}
    if op.tag == "gather":  # XLA reads a row of start indices as one map: the component a range
        maps = {k: _components_as_range(v) for k, v in maps.items()}
    return maps


def _components_as_range(maps: list[IndexingMap]) -> list[IndexingMap]:
    """Maps equal but for their last result, the constants 0 .. n-1, as one map whose last
    result is a new range variable in [0, n - 1] (*maps* unchanged where they are not such)."""
    first = maps[0]
    lasts = [const_value(m.results[-1]) if m.results else None for m in maps]
    if len(maps) < 2 or None in lasts or sorted(lasts) != list(range(len(maps))):  # type: ignore[type-var]
        return maps
    if any((m.dims, m.ranges, m.rts, m.constraints, m.results[:-1])
           != (first.dims, first.ranges, first.rts, first.constraints, first.results[:-1]) for m in maps):
        return maps
    k = len(first.ranges)  # the new range variable goes after the others, before runtime ones
    shift = [Symbol(j) for j in range(k)] + [Symbol(j + 1) for j in range(len(first.rts))]
    results = tuple(replace(r, None, shift) for r in first.results[:-1]) + (Symbol(k),)
    constraints = [(replace(e, None, shift), iv) for e, iv in first.constraints.items()]
    amap = AffineMap(len(first.dims), first.num_symbols + 1, results)
    return [IndexingMap.create(amap, first.dims, [*first.ranges, Variable(Interval(0, len(maps) - 1))],
                               first.rts, constraints)]


def output_to_input(tensor: Tensor, operand: Tensor) -> list[IndexingMap]:
    """Every distinct map from *tensor*'s index to the elements of *operand* it reads, composed
    through every path of computes in between; sorted by their text."""
    _require_tensor(tensor, "tensor")
    _require_tensor(operand, "operand")
    maps = output_to_inputs(tensor, [operand])
    if operand not in maps:
        raise ValueError(f"output_to_input: '{tensor.name}' does not read '{operand.name}'")
    return maps[operand]


def output_to_inputs(tensor: Tensor, operands: list[Tensor]) -> dict[Tensor, list[IndexingMap]]:
    """The maps from *tensor* to each of *operands* it reads, in one walk: composed through the
    computes in between but not through the operands themselves (as XLA composes a fusion's
    maps up to its parameters). Operands it does not read are left out; each list is sorted
    by its text."""
    _require_tensor(tensor, "tensor")
    for x in operands:
        _require_tensor(x, "operand")
    stop = {_key(x) for x in operands}
    # A tensor's own reads keep XLA's op maps; every further step is composed and simplified
    # (folding point ranges), as XLA does inside a fusion, and so is the first step when the
    # tensor is the root of a fusion (the HLO parser marks those).
    fused = isinstance(tensor.op, ComputeOp) and bool(tensor.op.attrs.get("fusion"))
    grouped: dict[tuple[int, int], dict[IndexingMap, None]] = {}
    found: dict[tuple[int, int], Tensor] = {}
    start_key = _key(tensor)
    for op in reversed(upstream_order(tensor.op, {k[0] for k in stop} - {id(tensor.op)})):
        for k in range(op.num_outputs):
            t = op.output(k)
            key = _key(t)
            consumers = grouped.get(key)
            start = key == start_key
            if (not start and not consumers) or (key in stop and not start):
                continue
            maps = all_operand_maps(op)
            for p in dict.fromkeys(op.input_tensors):
                target = grouped.setdefault(_key(p), {})
                found[_key(p)] = p
                for pm in maps.get(_key(p), []):
                    if start and not fused:
                        target[pm] = None
                    elif start:
                        target[simplified(pm).remove_unused_symbols()[0]] = None
                    else:
                        for cm in consumers or ():
                            target[simplified(compose(cm, pm)).remove_unused_symbols()[0]] = None
    return {x: _by_text(grouped[_key(x)]) for x in operands if _key(x) in found}


def _by_text(maps: dict[IndexingMap, None]) -> list[IndexingMap]:
    """*maps* sorted by their text (printed only where there is an order to find)."""
    return sorted(maps, key=str) if len(maps) > 1 else list(maps)


def upstream_order(root: Operation, stop: set[int]) -> list[Operation]:
    """The operations *root* reads, directly or not, producers first (a post-order, walked with
    an explicit stack); the inputs of operations whose id is in *stop* are not followed."""
    order: list[Operation] = []
    seen = {id(root)}
    stack = [(root, iter(dict.fromkeys(root.input_tensors)))]
    while stack:
        op, inputs = stack[-1]
        for t in inputs:
            p = t.op
            if id(p) not in seen:
                seen.add(id(p))
                stack.append((p, iter(() if id(p) in stop else dict.fromkeys(p.input_tensors))))
                break
        else:
            stack.pop()
            order.append(op)
    return order


def _key(t: Tensor) -> tuple[int, int]:
    return (id(t.op), t.value_index)


def _require_tensor(t: object, what: str) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"output_to_input: {what} must be a Tensor, not {type(t).__name__}")
