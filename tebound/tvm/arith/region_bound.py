"""TVM's region estimates through iterator maps (``tvm.arith.estimate_region_lower_bound``,
``..._strict_bound``, ``..._upper_bound``): a region whose starts form an independent
iterator map covers exactly the set each fused iterator sweeps."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bound.arith.interval import TVM_V013, IntervalSet, eval_set
from schedule.ir import arith
from schedule.ir.arith import convert
from schedule.ir.expr import Expr, FloatImm, IntImm
from schedule.ir.itervar import Range
from tebound.tvm.arith.analyzer import Analyzer
from tebound.tvm.arith.iter_map import _iters, detect_iter_map
from tebound.tvm.arith.iter_map_expr import IterSumExpr
from tebound.tvm.arith.iter_map_rewriter import SURJECTIVE, Proofs


def _from_min_extent(lo: Expr, extent: Expr) -> IntervalSet:
    if arith.value_of(extent) == 1:
        return IntervalSet.point(lo)
    return IntervalSet(lo, arith.sub(arith.add(extent, lo), 1))


def _eval_iter_sum(s: IterSumExpr, extent: Expr, p: Proofs) -> IntervalSet | None:
    """The values ``[start, start + extent)`` sweeps as the sum's fused iterator runs, or None
    when consecutive starts leave gaps (TVM's ``EvalIterSum``)."""
    if p.prove(arith.equal(extent, 0)):
        return IntervalSet.empty()
    if not s.args:
        return _from_min_extent(s.base, extent)
    split = s.args[0]
    if p.prove(arith.equal(split.extent, 0)):
        return IntervalSet.empty()
    if not p.prove(arith.ge(extent, split.scale)):
        return None
    if p.prove(arith.lt(split.scale, 0)):
        span = arith.mul(arith.sub(split.extent, 1), split.scale)
        return _from_min_extent(arith.add(s.base, span), arith.sub(extent, span))
    return _from_min_extent(s.base, arith.add(extent, arith.mul(arith.sub(split.extent, 1), split.scale)))


def _region(region: Sequence[Any]) -> list[Range]:
    out = []
    for r in region:
        if not isinstance(r, Range):
            raise TypeError(f"region: a list of Ranges, not one holding {type(r).__name__}")
        out.append(r)
    return out


def estimate_region_strict_bound(region: Sequence[Any], var_dom: Any, predicate: Any) -> list[IntervalSet] | None:
    """The exact set of each dimension of *region* (ranges over the variables of *var_dom*
    where *predicate* holds), or None when the starts are not an independent iterator map."""
    ranges, dom = _region(region), _iters(var_dom)
    if any(not isinstance(r.extent, (IntImm, FloatImm)) for r in ranges):
        return None
    res = detect_iter_map([r.min for r in ranges], dom, convert(predicate), SURJECTIVE)
    if not res.indices:
        return None
    p = Proofs(Analyzer())
    out = []
    for s, r in zip(res.indices, ranges):
        got = _eval_iter_sum(s, r.extent, p)
        if got is None:
            return None
        out.append(got)
    return out


def estimate_region_lower_bound(region: Sequence[Any], var_dom: Any, predicate: Any) -> list[IntervalSet] | None:
    """A subset of each dimension's set (here the strict one), or None."""
    return estimate_region_strict_bound(region, var_dom, predicate)


def estimate_region_upper_bound(region: Sequence[Any], var_dom: Any, predicate: Any) -> list[IntervalSet]:
    """A superset of each dimension's set: the strict one where there is one, else per
    dimension through its own iterator map, else its interval over the domain."""
    strict = estimate_region_strict_bound(region, var_dom, predicate)
    if strict is not None:
        return strict
    ranges, dom = _region(region), _iters(var_dom)
    dom_sets = {v: IntervalSet.from_range(r) for v, r in dom.items()}
    ana = Analyzer()
    p = Proofs(ana)
    out = []
    for r in ranges:
        res = detect_iter_map([r.min], dom, convert(predicate), SURJECTIVE)
        if res.indices:
            got = _eval_iter_sum(res.indices[0], r.extent, p)
            if got is not None:
                out.append(got)
                continue
        lo = eval_set(r.min, dom_sets, ana, TVM_V013)
        hi = eval_set(ana.simplify(arith.sub(arith.add(r.min, r.extent), 1)), dom_sets, ana, TVM_V013)
        out.append(IntervalSet(lo.min_value, hi.max_value))
    return out


__all__ = ["estimate_region_lower_bound", "estimate_region_strict_bound", "estimate_region_upper_bound"]
