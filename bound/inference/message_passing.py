"""PassUpDomain: the sets a stage's leaves take, carried up to its roots (intervals).

PassDownDomain, PassUpIndex and the bound-check flags live with the relations in
:mod:`schedule.schedule.relation_passing`; this module adds the direction that needs integer sets.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping

from bound.arith.analyzer import Analyzer
from bound.arith.interval import IntervalSet, Rules, eval_set
from bound.arith.simplify import simplify
from schedule import arith
from schedule.ir.itervar import IterVar, Range
from schedule.schedule.relations import Fuse, Rebase, Singleton, Split
from schedule.schedule.stage import Stage


def pass_up_domain(stage: Stage, dom_map: Mapping[IterVar, Range], state: MutableMapping[IterVar, IntervalSet],
                   analyzer: Analyzer, rules: Rules) -> None:
    """Extend *state* (leaf -> set) to every IterVar of *stage*, innermost relations first."""
    for rel in reversed(stage.relations):
        match rel:
            case Split(parent=p, outer=o, inner=i):
                state[p] = _up_split(p, o, i, dom_map, state[o], state[i], analyzer, rules)
            case Fuse(outer=o, inner=i, fused=f):
                state[o], state[i] = _up_fuse(o, i, dom_map, f, state[f], rules)
            case Rebase(parent=p, rebased=r):
                if state[r].match_range(dom_map[r]):
                    state[p] = IntervalSet.from_range(dom_map[p])
                else:
                    min_p = dom_map[p].min
                    state[p] = eval_set(arith.add(r.var, min_p), {r.var: state[r]}, analyzer, rules)
            case Singleton():
                pass


def _up_split(p: IterVar, o: IterVar, i: IterVar, dom_map: Mapping[IterVar, Range], outer: IntervalSet,
              inner: IntervalSet, analyzer: Analyzer, rules: Rules) -> IntervalSet:
    if outer.match_range(dom_map[o]) and inner.match_range(dom_map[i]):
        return IntervalSet.from_range(dom_map[p])
    # The factor is the inferred extent of the inner loop, not the split's factor field.
    value = arith.add(arith.add(arith.mul(o.var, dom_map[i].extent), i.var), dom_map[p].min)
    return eval_set(value, {o.var: outer, i.var: inner}, analyzer, rules)


def _up_fuse(o: IterVar, i: IterVar, dom_map: Mapping[IterVar, Range], f: IterVar, fused: IntervalSet,
             rules: Rules) -> tuple[IntervalSet, IntervalSet]:
    full = IntervalSet.from_range(dom_map[o]), IntervalSet.from_range(dom_map[i])
    if fused.match_range(dom_map[f]):
        return full
    outer_min, inner_min, factor = dom_map[o].min, dom_map[i].min, dom_map[i].extent
    if fused.is_single_point():
        v = fused.min_value
        return (IntervalSet.point(arith.add(arith.floordiv(v, factor), outer_min)),
                IntervalSet.point(arith.add(arith.floormod(v, factor), inner_min)))
    if not rules.fuse_aligned_box or not (fused.has_lower_bound() and fused.has_upper_bound()):
        # The document's TVM: any other fused set relaxes both loops to their full ranges.
        return full
    lo, hi = fused.min_value, fused.max_value
    outer = IntervalSet(arith.add(outer_min, arith.floordiv(lo, factor)),
                        arith.add(outer_min, arith.floordiv(hi, factor)))
    extent = arith.add(arith.sub(hi, lo), 1)
    if arith.value_of(simplify(arith.floormod(factor, extent))) == 0 \
            and arith.value_of(simplify(arith.floormod(lo, extent))) == 0:
        # The fused block never wraps a row: a tight box.
        inner = IntervalSet(arith.add(inner_min, arith.floormod(lo, factor)),
                            arith.add(inner_min, arith.floormod(hi, factor)))
        return outer, inner
    return outer, full[1]
