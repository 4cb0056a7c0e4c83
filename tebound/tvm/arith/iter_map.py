"""TVM's iterator map detection (``tvm.arith.detect_iter_map`` and its kin): whether index
expressions over loop iterators are independent splits and fusions of them, under a predicate
of bounds on fused iterators."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from schedule.ir import arith
from schedule.ir.arith import convert
from schedule.ir.dtype import is_int
from schedule.ir.expr import GE, GT, LE, LT, Add, And, Expr, IntImm, Sub, Var
from schedule.ir.functor import free_vars, node_count
from schedule.ir.itervar import IterVar, Range
from tebound.tvm.arith.analyzer import Analyzer
from tebound.tvm.arith.iter_map_expr import IterSumExpr, normalize_iter_map_to_expr, to_expr
from tebound.tvm.arith.iter_map_rewriter import BIJECTIVE, NO_CHECK, SURJECTIVE, IterMapRewriter

_LEVELS = {"bijective": BIJECTIVE, "surjective": SURJECTIVE, "nocheck": NO_CHECK}


class IterMapLevel:
    """TVM's check levels of an iterator map."""

    Bijective = BIJECTIVE
    Surjective = SURJECTIVE
    NoCheck = NO_CHECK

    @staticmethod
    def from_str(name: str | None) -> int:
        if name is None:
            return NO_CHECK
        level = _LEVELS.get(name.lower())
        if level is None:
            raise ValueError(f"Unknown check level {name}; expected bijective, surjective or nocheck")
        return level


@dataclass
class IterMapResult:
    """The iterator sums of the indices (empty when they are not an iterator map), why not,
    and the condition that holds on padded iterations."""

    indices: list[IterSumExpr] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    padding_predicate: Expr = field(default_factory=lambda: arith.const(False, "bool"))


def _level(check_level: Any) -> int:
    if check_level is None:
        return NO_CHECK
    if isinstance(check_level, str):
        return IterMapLevel.from_str(check_level)
    if check_level in (BIJECTIVE, SURJECTIVE, NO_CHECK):
        return int(check_level)
    raise ValueError(f"check_level: {check_level!r} is not bijective, surjective or nocheck")


def _iters(input_iters: Any) -> dict[Var, Range]:
    if not isinstance(input_iters, Mapping):
        raise TypeError(f"input_iters: a map from variables to Ranges, not {type(input_iters).__name__}")
    out: dict[Var, Range] = {}
    for k, r in input_iters.items():
        v = k.var if isinstance(k, IterVar) else k
        if not isinstance(v, Var) or not isinstance(r, Range):
            raise TypeError(f"input_iters: {k!r} -> {r!r} is not a variable and its Range")
        out[v] = r
    return out


def _uses(e: Expr, iters: Mapping[Var, Any]) -> bool:
    return any(v in iters for v in free_vars([e]))


@dataclass
class _Constraint:
    iter: Expr
    lower: Expr | None
    upper: Expr | None


#: A comparison as (is_greater, is_equal).
_KINDS = ((LT, False, False), (LE, False, True), (GT, True, False), (GE, True, True))


def _split_comparison(pred: Expr) -> tuple[Any, Expr | None] | None:
    """The next comparison of the predicate ``rest && cmp`` / ``cmp && rest`` / ``cmp`` (in TVM's
    order of kinds), with the rest (None when it is the last)."""
    for kind, _, _ in _KINDS:
        if isinstance(pred, And) and isinstance(pred.b, kind):
            return pred.b, pred.a
        if isinstance(pred, And) and isinstance(pred.a, kind):
            return pred.a, pred.b
        if isinstance(pred, kind):
            return pred, None
    return None


def match_bound_constraints(pred: Expr, iters: dict[Var, Range], out: list[_Constraint]) -> bool:
    """The predicate's comparisons as bounds: of a single iterator, narrowing its range in
    *iters*; of an expression of iterators, appended to *out* (TVM's ``MatchBoundConstraints``)."""
    ana = Analyzer()
    while True:
        found = _split_comparison(pred)
        if found is None:
            return False
        cmp, rest = found
        is_greater, is_equal = next((g, q) for k, g, q in _KINDS if isinstance(cmp, k))
        lhs, rhs = cmp.a, cmp.b
        if not (is_int(lhs.dtype) and is_int(rhs.dtype)):
            return False
        if _uses(lhs, iters) or _uses(rhs, iters):
            if isinstance(lhs, IntImm) or not _uses(lhs, iters):
                bound_at_left = True
            elif isinstance(rhs, IntImm) or not _uses(rhs, iters):
                bound_at_left = False
            else:
                bound_at_left = False
                lhs, rhs = _separate(arith.sub(lhs, rhs), iters)
                lhs, rhs = ana.simplify(lhs), ana.simplify(rhs)
            lower = upper = None
            if is_greater:
                if bound_at_left:
                    upper, it = (arith.add(lhs, 1) if is_equal else lhs), rhs
                else:
                    lower, it = (rhs if is_equal else arith.add(rhs, 1)), lhs
            elif bound_at_left:
                lower, it = (lhs if is_equal else arith.add(lhs, 1)), rhs
            else:
                upper, it = (arith.add(rhs, 1) if is_equal else rhs), lhs
            if isinstance(it, Var):
                if it in iters:
                    r = iters[it]
                    lo, hi = r.min, arith.add(r.min, r.extent)
                    if lower is not None:
                        lo = arith.max_expr(lo, lower)
                    if upper is not None:
                        hi = arith.min_expr(hi, upper)
                    iters[it] = Range.from_min_extent(lo, hi if arith.value_of(lo) == 0 else arith.sub(hi, lo))
            else:
                out.append(_Constraint(it, lower, upper))
        if rest is None:
            return True
        pred = rest


def _separate(e: Expr, iters: Mapping[Var, Any]) -> tuple[Expr, Expr]:
    """*e* (``lhs - rhs``) as the part using the iterators and minus the rest."""
    lhs: Expr = arith.const(0, e.dtype)
    rhs: Expr = arith.const(0, e.dtype)
    stack = [(e, True)]
    while stack:
        part, sign = stack.pop()
        if isinstance(part, Add):
            stack += [(part.b, sign), (part.a, sign)]
        elif isinstance(part, Sub):
            stack += [(part.b, not sign), (part.a, sign)]
        elif _uses(part, iters):
            lhs = arith.add(lhs, part) if sign else arith.sub(lhs, part)
        else:
            rhs = arith.sub(rhs, part) if sign else arith.add(rhs, part)
    return lhs, rhs


def _sane(iters: Mapping[Var, Range]) -> bool:
    return not any(_uses(r.min, iters) or _uses(r.extent, iters) for r in iters.values())


def detect_iter_map(indices: Sequence[Any], input_iters: Any, predicate: Any = True, check_level: Any = SURJECTIVE,
                    simplify_trivial_iterators: bool = True) -> IterMapResult:
    """Whether *indices* can be written as independent splits and fusions of *input_iters*
    (var -> Range) where *predicate* holds; the result's ``indices`` is empty when not."""
    level = _level(check_level)
    iters = _iters(input_iters)
    idx = [convert(i) for i in indices]
    pred = convert(predicate)
    result = IterMapResult()
    if not _sane(iters):
        result.errors.append("Invalid iterators.  Iterators may not be expressions of each other.")
        return result
    constrained = dict(iters)
    constraints: list[_Constraint] = []
    if not (isinstance(pred, IntImm) and pred.value == 1) and not match_bound_constraints(pred, constrained,
                                                                                           constraints):
        result.errors.append("Could not parse predicate as constraints on the input iterators.")
        return result
    constraints.sort(key=lambda c: node_count(c.iter))
    ana = Analyzer()
    rewriter = IterMapRewriter(ana, constrained, level, simplify_trivial_iterators, result.errors)
    for c in constraints:
        rewriter.rewrite_constraint(c.iter, c.lower, c.upper)
        if result.errors:
            return result
    if not rewriter.check_constraints():
        result.errors.append("Invalid constraints.")
        return result
    rewritten: list[IterSumExpr] = []
    allow_padding = level != BIJECTIVE
    if allow_padding:
        for v in idx:
            rewritten.append(rewriter.rewrite_and_update_padding(v))
            if result.errors:
                return result
    if not allow_padding or rewriter.requires_padding:
        rewritten = []
        for v in idx:
            rewritten.append(rewriter.rewrite(v))
            if result.errors:
                return result
    result.padding_predicate = rewriter.padding_predicate
    if not rewriter.check_mapping(rewritten, level):
        result.errors.append("Index mapping does not form a bijective transform." if level == BIJECTIVE
                             else "Mapped indices are not independent.")
        return result
    result.indices = rewritten
    return result


def normalize_to_iter_sum(index: Any, input_iters: Any) -> IterSumExpr:
    """*index* as a sum of splits of *input_iters*, scales in the form ``symbols * constant``,
    sorted by constant then by number of symbols (no independence check)."""
    iters = _iters(input_iters)
    if not _sane(iters):
        raise ValueError("normalize_to_iter_sum: iterators may not be expressions of each other")
    rewriter = IterMapRewriter(Analyzer(), iters, NO_CHECK, True, [])
    return rewriter.rewrite_to_normalized_sum(convert(index))


def iter_map_simplify(indices: Sequence[Any], input_iters: Any, predicate: Any = True, check_level: Any = SURJECTIVE,
                      simplify_trivial_iterators: bool = True) -> list[Expr]:
    """*indices* rewritten through their iterator map (as they are when there is none)."""
    idx = [convert(i) for i in indices]
    iters = _iters(input_iters)
    if not _sane(iters):
        return idx
    res = detect_iter_map(idx, iters, predicate, check_level, simplify_trivial_iterators)
    if not res.indices:
        return idx
    ana = Analyzer()
    return [to_expr(e, ana) for e in res.indices]


__all__ = ["IterMapLevel", "IterMapResult", "detect_iter_map", "iter_map_simplify", "normalize_iter_map_to_expr",
           "normalize_to_iter_sum"]
