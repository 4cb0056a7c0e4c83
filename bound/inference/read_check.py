"""Reads that leave the tensor they read, found before anything runs.

A tensor is computed, stored and passed over its shape only, so an element read outside that
shape is memory outside the tensor: the checked Python target stops there while running, C
would read whatever lies there. The check has two steps:

1. Each compute's reads over its whole domain, exactly per dimension: an unconditional read
   whose indices are affine in the axes ranges over the hull of the axes' box (interval sums
   are exact there); a read under a condition (an ``if_then_else`` guard, a reduction's
   ``where``) goes through isl with its condition. A compute whose reads stay in bounds over its
   whole domain does wherever a schedule computes it.
2. Where step 1 finds a read outside, the elements each compute must provide, from the outputs
   down, exactly (isl sets, not their hulls): only a read of an element some output needs is an
   error, so that a compute only partly needed never raises a false one.

Reads whose indices are not affine in the axes (computed from data, products of axes) are
checked while the kernel runs. Where shapes or indices are symbolic, the check waits for the
call that gives them values (:meth:`ReadCheck.find` with the call's variables).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bound.arith.linear import Linear
from bound.errors import NonAffineError
from bound.isl import Builder, IslNames, IslSet, set_to_condition
from bound.operation.access import Access, body_reads
from schedule import arith
from schedule.ir.expr import Expr, IntImm, Var
from schedule.ir.functor import free_vars, substitute
from schedule.ir.itervar import IterVar
from schedule.operation.compute import ComputeOp
from schedule.operation.tensor import Tensor

Hull = list[tuple[int, int]]  # per dimension, the least and the largest index


@dataclass(frozen=True)
class OutsideRead:
    """*consumer* reads the elements *hull* of *tensor*, some of them outside its *shape*."""

    consumer: str
    tensor: Tensor
    hull: Hull
    shape: tuple[int, ...]

    def __str__(self) -> str:
        region = ", ".join(f"{lo}:{hi + 1}" for lo, hi in self.hull)
        shape = "(" + ", ".join(map(str, self.shape)) + ("," if len(self.shape) == 1 else "") + ")"
        return f"{self.consumer} reads {self.tensor.name}[{region}], but {self.tensor.name} has shape {shape}"


@dataclass(frozen=True)
class _Compute:
    """A compute's axes (data, then reduction) and its reads, with the variables substituted."""

    op: ComputeOp
    axes: tuple[tuple[Var, int, int], ...]  # variable, first value, extent
    reads: tuple[Access, ...]


class ReadCheck:
    """The reads of the computes *ops* (producers first), for a function whose results are
    *outputs* (see the module)."""

    def __init__(self, ops: Sequence[object], outputs: Sequence[Tensor]) -> None:
        self.ops = [op for op in ops if isinstance(op, ComputeOp)]
        self.outputs = list(outputs)
        own = {iv.var for op in self.ops for iv in op.root_iter_vars}
        exprs: list[Expr] = []
        for op in self.ops:
            exprs += [e for iv in op.root_iter_vars if iv.dom is not None for e in (iv.dom.min, iv.dom.extent)]
            exprs += [e for t in op.input_tensors for e in t.shape]
            exprs += [e for acc in body_reads(op.body, op.input_tensors) for e in (*acc.indices, acc.condition)]
        #: The variables the check needs values of (shape variables, scalar arguments).
        self.variables = [v for v in free_vars(exprs) if v not in own]

    def find(self, env: Mapping[Var, int] | None = None) -> OutsideRead | None:
        """The first read outside its tensor, given the values *env* of :attr:`variables`; None
        if there is none."""
        env = dict(env or {})
        computes = [c for op in self.ops if (c := _compute(op, env)) is not None]
        if not any(_outside(c, acc, env) for c in computes for acc in c.reads):
            return None
        return _needed_reads(computes, self.outputs, env)


def _value(e: Expr, env: Mapping[Var, int]) -> int | None:
    v = arith.value_of(substitute(e, env) if env else e)
    return int(v) if isinstance(v, int) else None


def _shape(t: Tensor, env: Mapping[Var, int]) -> tuple[int, ...] | None:
    dims = [_value(e, env) for e in t.shape]
    return None if any(d is None for d in dims) else tuple(dims)  # type: ignore[return-value]


def _compute(op: ComputeOp, env: Mapping[Var, int]) -> _Compute | None:
    axes = []
    for iv in op.root_iter_vars:
        lo, extent = (None, None) if iv.dom is None else (_value(iv.dom.min, env), _value(iv.dom.extent, env))
        if lo is None or extent is None:
            return None  # an axis whose range is not known here: checked while running
        axes.append((iv.var, lo, extent))
    reads = tuple(Access(acc.tensor, tuple(substitute(i, env) for i in acc.indices), substitute(acc.condition, env))
                  if env else acc for acc in body_reads(op.body, op.input_tensors))
    return _Compute(op, tuple(axes), reads)


def _outside(c: _Compute, acc: Access, env: Mapping[Var, int]) -> bool:
    """Whether *acc* reads outside its tensor anywhere in the compute's domain."""
    shape = _shape(acc.tensor, env)
    if shape is None:
        return False
    hull = _hull(c, acc)
    return hull is not None and _leaves(hull, shape)


def _leaves(hull: Hull, shape: tuple[int, ...]) -> bool:
    return any(lo < 0 or hi >= n for (lo, hi), n in zip(hull, shape))


def _hull(c: _Compute, acc: Access, domain: Expr | None = None) -> Hull | None:
    """The exact per-dimension hull of what *acc* reads over the compute's axes (where
    *domain* holds); None if it reads nothing or its indices are not affine."""
    if any(extent <= 0 for _, _, extent in c.axes):
        return None
    ranges = {v: (lo, lo + extent - 1) for v, lo, extent in c.axes}
    if domain is None and isinstance(acc.condition, IntImm) and acc.condition.value:
        hull = []
        for index in acc.indices:
            lin = Linear.of(index)
            if not all(isinstance(x, Var) and x in ranges for x in lin.terms):
                break
            lo = hi = lin.const
            for x, k in lin.terms.items():
                a, b = ranges[x]  # type: ignore[index]
                lo, hi = lo + min(k * a, k * b), hi + max(k * a, k * b)
            hull.append((lo, hi))
        else:
            return hull
    region = _region(c, acc, IslNames(), domain)
    return None if region is None else region.constant_hull()


def _region(c: _Compute, acc: Access, names: IslNames, domain: Expr | None,
            dims: Sequence[str] | None = None) -> IslSet | None:
    """What *acc* reads over the compute's axes where *domain* holds, as a set over *dims*
    (fresh names if not given); None where the indices are not affine."""
    dims = list(dims) if dims is not None else [names.fresh(f"a{d}") for d in range(len(acc.indices))]
    conditions = [acc.condition] + ([domain] if domain is not None else [])
    for v, lo, extent in c.axes:
        conditions += [arith.ge(v, lo), arith.lt(v, lo + extent)]
    try:
        b = Builder(names, [*(names[v] for v, _, _ in c.axes), *dims], [])
        return b.where(conditions, list(zip(dims, acc.indices))).project_onto(dims)
    except NonAffineError:
        return None


def _needed_reads(computes: Sequence[_Compute], outputs: Sequence[Tensor],
                  env: Mapping[Var, int]) -> OutsideRead | None:
    """The first read outside its tensor of an element some output needs (step 2)."""
    names = IslNames()
    dims: dict[Tensor, list[str]] = {}
    needed: dict[Tensor, IslSet | None] = {}  # None: all of it (a read that is not affine)

    def dims_of(t: Tensor) -> list[str]:
        if t not in dims:
            dims[t] = [names.fresh(f"{t.name}_{d}") for d in range(len(t.shape))]
        return dims[t]

    for t in outputs:
        needed[t] = None
    for c in reversed(computes):
        outs = [c.op.output(k) for k in range(c.op.num_outputs)]
        wanted = [needed[t] for t in outs if t in needed]
        if not wanted:
            continue
        domain = _domain(c, outs, wanted, names, dims_of)
        for acc in c.reads:
            shape = _shape(acc.tensor, env)
            region = _region(c, acc, names, domain, dims_of(acc.tensor))
            if region is None or shape is None:
                needed[acc.tensor] = None
                continue
            hull = region.constant_hull()
            if hull is not None and _leaves(hull, shape):
                return OutsideRead(c.op.name, acc.tensor, hull, shape)
            if acc.tensor not in needed:
                needed[acc.tensor] = region
            elif (before := needed[acc.tensor]) is not None:
                needed[acc.tensor] = before.union(region)
    return None


def _domain(c: _Compute, outs: Sequence[Tensor], wanted: Sequence[IslSet | None], names: IslNames,
            dims_of: object) -> Expr | None:
    """The condition on the compute's axes under which some output element is needed; None
    where all are."""
    if any(w is None for w in wanted):
        return None
    condition: Expr = arith.const(False)
    axes: list[IterVar] = list(c.op.axis)
    for t, w in zip(outs, wanted):
        assert w is not None
        names_t = dims_of(t)  # type: ignore[operator]
        inner = set_to_condition(w.isl, names)
        at_axes = {names.var(n): iv.var for n, iv in zip(names_t, axes)}
        condition = arith.logical_or(condition, substitute(inner, at_axes))
    return condition
