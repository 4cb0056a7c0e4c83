"""TVM's ``IterMapRewriter``: index expressions over loop iterators rewritten as sums of splits
of fused iterators (:mod:`.iter_map_expr`), with the checks that the splits of each iterator
cover it without overlap, constraints from predicates, and padding of iterators that a divisor
does not divide."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

from schedule.ir import arith
from schedule.ir.expr import Add, Expr, FloorDiv, IntImm, Mul, Sub, Var
from schedule.ir.functor import ExprFunctor, children, structural_equal
from tebound.tvm.arith.canonical_simplify import mul_and_normalize, product_factors
from tebound.tvm.arith.const_fold import is_index_type, try_fold
from tebound.tvm.arith.iter_map_expr import (
    IterMapExpr,
    IterMark,
    IterSplitExpr,
    IterSumExpr,
    is_one,
    is_zero,
    to_expr,
)

BIJECTIVE, SURJECTIVE, NO_CHECK = 0, 1, 3  # TVM's IterMapLevel values


def to_sum(e: Any) -> IterSumExpr:
    if isinstance(e, IterSumExpr):
        return e
    if isinstance(e, IterSplitExpr):
        return IterSumExpr((e,), arith.const(0, e.dtype))
    return IterSumExpr((), e)


def collect_splits(bindings: list[IterSumExpr]) -> tuple[list[IterMark], dict[int, list[IterSplitExpr]]]:
    """The marks the sums reach (through fused marks too) and, by mark identity, the splits
    that refer to each, in TVM's order (``IterMarkSplitCollector``)."""
    visited: list[IterMark] = []
    seen: set[int] = set()
    splits: dict[int, list[IterSplitExpr]] = {}

    def visit(mark: IterMark) -> None:
        if id(mark) in seen:
            return
        seen.add(id(mark))
        visited.append(mark)
        if isinstance(mark.source, IterSumExpr):
            for s in mark.source.args:
                visit(s.source)
                splits.setdefault(id(s.source), []).append(s)

    for b in bindings:
        for s in b.args:
            visit(s.source)
            splits.setdefault(id(s.source), []).append(s)
    return visited, splits


def split_equal(a: IterSplitExpr, b: IterSplitExpr, check_scale: bool = True) -> bool:
    """The same mark (by identity), lower factor, extent and (if asked) scale."""
    return (a.source is b.source and structural_equal(a.lower_factor, b.lower_factor)
            and (not check_scale or structural_equal(a.scale, b.scale)) and structural_equal(a.extent, b.extent))


def sum_equal(a: IterSumExpr, b: IterSumExpr) -> bool:
    return (len(a.args) == len(b.args) and structural_equal(a.base, b.base)
            and all(split_equal(x, y) for x, y in zip(a.args, b.args)))


class SumMap:
    """A map keyed by iterator sums compared with :func:`sum_equal` (few entries)."""

    def __init__(self) -> None:
        self.items: list[list[Any]] = []

    def get(self, key: IterSumExpr) -> Any:
        for k, v in self.items:
            if sum_equal(k, key):
                return v
        return None

    def set(self, key: IterSumExpr, value: Any) -> None:
        for item in self.items:
            if sum_equal(item[0], key):
                item[1] = value
                return
        self.items.append([key, value])

    def pop(self, key: IterSumExpr) -> None:
        self.items = [item for item in self.items if not sum_equal(item[0], key)]


class Proofs:
    """What the rewriter asks of TVM's analyzer."""

    def __init__(self, analyzer: Any) -> None:
        self.an = analyzer

    def prove(self, cond: Expr) -> bool:
        if isinstance(cond, IntImm):
            return cond.value != 0
        out = self.an.simplify(cond)
        return isinstance(out, IntImm) and out.value != 0

    def equal(self, a: Any, b: Any) -> bool:
        a, b = arith.convert(a), arith.convert(b)
        if isinstance(a, IntImm) and isinstance(b, IntImm):
            return a.value == b.value
        return self.prove(arith.equal(arith.sub(a, b), 0))

    def ge(self, e: Expr, val: int) -> bool:
        if isinstance(e, IntImm):
            return e.value >= val
        return self.an.const_int_bound(self.an.rewrite_simplify(e)).min_value >= val

    def lt(self, e: Expr, val: int) -> bool:
        if isinstance(e, IntImm):
            return e.value < val
        return self.an.const_int_bound(self.an.rewrite_simplify(e)).max_value < val

    def simplify(self, e: Expr, steps: int = 2) -> Expr:
        return self.an.simplify(e, steps)

    def divisible(self, lhs: Expr, rhs: Expr) -> bool:
        """TVM's ``CanProveDivisible``."""
        if isinstance(rhs, IntImm) and rhs.value == 0:
            return False
        if isinstance(lhs, IntImm) and isinstance(rhs, IntImm):
            return lhs.value % rhs.value == 0
        a, b = to_expr(lhs, self.an), to_expr(rhs, self.an)
        return self.equal(a, b) or self.prove(arith.equal(arith.floormod(a, b), 0))


def approx_lcm(a: Expr, b: Expr, p: Proofs) -> Expr:
    """An approximate least common multiple of two (symbolic) products."""
    def split(e: Expr) -> tuple[Expr, int]:
        if isinstance(e, IntImm):
            return arith.const(1, e.dtype), e.value
        if isinstance(e, Mul) and isinstance(e.b, IntImm):
            return e.a, e.b.value
        if isinstance(e, Mul) and isinstance(e.a, IntImm):
            return e.b, e.a.value
        return e, 1
    (x, cx), (y, cy) = split(a), split(b)
    lcm = cx * cy // math.gcd(cx, cy) if cx and cy else 0
    if p.equal(x, y) or p.equal(arith.floormod(x, y), 0):
        return arith.mul(x, lcm)
    if p.equal(arith.floormod(y, x), 0):
        return arith.mul(y, lcm)
    return arith.mul(arith.mul(x, y), lcm)


class IterMapRewriter(ExprFunctor[Any]):
    """Rewrites index expressions over *input_iters* (var -> Range) to iterator sums."""

    def __init__(self, analyzer: Any, input_iters: dict[Var, Any], check_level: int,
                 simplify_trivial: bool, errors: list[str]) -> None:
        self.p = Proofs(analyzer)
        self.check_level = check_level
        self.errors = errors
        self.var_map: dict[Var, Expr] = {}
        self.input_marks: list[IterMark] = []
        self.padded_iter_map: list[tuple[IterMark, dict[str, Any]]] = []
        self.padded_origin: list[tuple[IterMark, IterMark]] = []
        self.update_padding = False
        self.padding_predicate: Expr = arith.const(False, "bool")
        self.requires_padding = False
        self.sum_fuse_map = SumMap()
        self.flattened_map = SumMap()
        self.constrained: list[IterSumExpr] = []
        for var, r in input_iters.items():
            if simplify_trivial and is_one(r.extent):
                self.var_map[var] = IterSumExpr((), r.min)
            elif is_zero(r.min):
                mark = IterMark(var, r.extent)
                self.var_map[var] = IterSplitExpr(mark)
                self.input_marks.append(mark)
            else:
                mark = IterMark(arith.sub(var, r.min), r.extent)
                self.var_map[var] = IterSumExpr((IterSplitExpr(mark),), r.min)
                self.input_marks.append(mark)

    def error(self, message: str) -> None:
        self.errors.append(message)

    # -- entry points --
    def rewrite(self, e: Expr) -> IterSumExpr:
        return self.normalize_with_offset(to_sum(self(e)))

    def rewrite_and_update_padding(self, e: Expr) -> IterSumExpr:
        self.update_padding = True
        try:
            return self.rewrite(e)
        finally:
            self.update_padding = False

    def rewrite_constraint(self, e: Expr, lo: Expr | None, hi: Expr | None) -> IterSumExpr:
        return self.normalize_on_bound(to_sum(self(e)), lo, hi)

    def rewrite_to_normalized_sum(self, e: Expr) -> IterSumExpr:
        return self.normalize_to_sum(to_sum(self(e)))

    # -- the checks --
    def check_mapping(self, bindings: list[IterSumExpr], level: int) -> bool:
        visited, splits = collect_splits(bindings)
        for mark in visited:
            if not self.try_normalize_splits(mark, splits.get(id(mark), []), level):
                return False
        if level == BIJECTIVE:
            for mark in self.input_marks:
                if not any(mark is v for v in visited) and not is_one(mark.extent):
                    return False
        return True

    def check_constraints(self) -> bool:
        cs = self.constrained
        for i in range(len(cs)):
            for j in range(i + 1, len(cs)):
                state = 0
                for a in cs[i].args:
                    found = any(split_equal(a, b) for b in cs[j].args)
                    if state == 0:
                        state = 1 if found else -1
                    elif (state == -1 and found) or (state == 1 and not found):
                        return False
        return True

    def _search_skip_lower_factor(self, splits: list[IterSplitExpr], used: list[bool], expected: Expr) -> int:
        res = len(splits)
        for i, s in enumerate(splits):
            if used[i]:
                continue
            if not self.p.divisible(s.lower_factor, expected):
                return len(splits)
            if res == len(splits) or self.p.divisible(splits[res].lower_factor, s.lower_factor):
                res = i
        return res

    def _padded_origin_of(self, mark: IterMark) -> IterMark | None:
        for padded, origin in self.padded_origin:
            if structural_equal(padded, mark):
                return origin
        return None

    def try_normalize_splits(self, mark: IterMark, splits: list[IterSplitExpr], level: int) -> list[IterSplitExpr]:
        used = [False] * len(splits)
        iters: list[IterSplitExpr] = []
        expected: Expr = arith.const(1, mark.source.dtype)
        for _ in range(len(splits)):
            j = next((k for k in range(len(splits)) if not used[k] and self.p.equal(splits[k].lower_factor, expected)),
                     len(splits))
            if j == len(splits):
                if level == BIJECTIVE:
                    return []
                j = self._search_skip_lower_factor(splits, used, expected)
                if j == len(splits):
                    return []
            used[j] = True
            iters.append(splits[j])
            expected = arith.mul(splits[j].lower_factor, splits[j].extent)
        origin = self._padded_origin_of(mark)
        full = self.p.equal(expected, mark.extent)
        divisor = full or self.p.divisible(mark.extent, expected)
        if level == BIJECTIVE:
            if origin is not None:
                self.error("Bijective mapping should not take iter paddings")
                return []
            if not full:
                self.error("The iterations do not traverse full iter space")
                return []
        elif origin is None:
            if not divisor:
                self.error("The lower factor is not divisible by the full iter space extent")
                return []
        elif level == SURJECTIVE:
            before = origin.extent
            if full:
                if len(splits) != 1:
                    self.error("Dependent iterations on padding iter space")
                    return []
                if self.p.equal(splits[0].extent, expected) and not self.p.prove(arith.ge(before, expected)):
                    self.error("Split on padding iteration is not surjective if the split extent equals to "
                               "the full iter space extent")
                    return []
            elif divisor:
                if not self.p.prove(arith.ge(before, expected)):
                    self.error("The extent before padding is less than lower factor")
                    return []
            else:
                self.error("The lower factor is not divisible by the full iter space extent")
                return []
        return iters[::-1]

    # -- normal forms --
    def normalize_on_bound(self, expr: IterSumExpr, lo: Expr | None, hi: Expr | None) -> IterSumExpr:
        base = expr.base
        if not is_zero(base):
            expr = replace(expr, base=arith.const(0, base.dtype))
            lo = arith.sub(lo, base) if lo is not None else None
            hi = arith.sub(hi, base) if hi is not None else None
        fused = self.try_fuse(expr, self.check_level, False)
        if fused is not None and is_one(fused.args[0].scale):
            split = fused.args[0]
            structured = split.source.source
            flattened = self.flattened_map.get(structured)
            mark, offset = self.sum_fuse_map.get(flattened)
            iter_min = offset
            iter_max = arith.add(iter_min, mark.extent)
            if lo is not None:
                iter_min = arith.max_expr(lo, iter_min)
            if hi is not None:
                iter_max = hi if self.p.prove(arith.le(hi, iter_max)) else arith.min_expr(hi, iter_max)
            if not is_zero(iter_min):
                self.flattened_map.pop(structured)
                structured = replace(structured, base=arith.sub(0, iter_min))
                mark = replace(mark, source=structured)
                self.flattened_map.set(structured, flattened)
            mark = replace(mark, extent=arith.sub(iter_max, iter_min))
            self.sum_fuse_map.set(flattened, (mark, iter_min))
            self.constrained.append(flattened)
            return IterSumExpr((split,), arith.add(base, iter_min))
        self.error("Could not normalize iterators using the constraints given.")
        return expr

    def normalize_with_offset(self, expr: IterSumExpr) -> IterSumExpr:
        if not expr.args:
            return expr
        fused = self.try_fuse(expr, self.check_level, True)
        if fused is None:
            self.error("Could not normalize iterators")
            return expr
        return fused

    def normalize_to_sum(self, expr: IterSumExpr) -> IterSumExpr:
        if not expr.args:
            return expr
        combined = self.try_combine_same_source(expr)
        if combined is not None:
            expr = combined
            if not expr.args:
                return expr
        items = []
        for split in expr.args:
            count, cscale, res = 0, 1, arith.const(1, split.dtype)
            for v in product_factors(split.scale):
                if isinstance(v, IntImm):
                    cscale *= v.value
                else:
                    res = arith.mul(res, v)
                    count += 1
            if cscale != 1:
                res = arith.mul(res, arith.const(cscale, res.dtype))
            items.append((cscale, count, replace(split, scale=res)))
        items.sort(key=lambda t: (t[0], t[1]), reverse=True)
        return IterSumExpr(tuple(t[2] for t in items), to_expr(expr.base, self.p.an))

    def _find_base_iter(self, expr: IterSumExpr, skip: list[bool], source: IterMark | None, rbegin: int = -1) -> int:
        if rbegin == -1:
            rbegin = len(expr.args) - 1
        base, min_scale = -1, 0
        for i in range(rbegin, -1, -1):
            a = expr.args[i]
            if skip[i] or (source is not None and a.source is not source):
                continue
            if isinstance(a.scale, IntImm):
                if base == -1 or a.scale.value < min_scale:
                    min_scale, base = a.scale.value, i
                elif a.scale.value == min_scale and is_one(a.extent) and not is_one(expr.args[base].extent):
                    base = i
        min_size = 0
        for i in range(rbegin, -1, -1):
            a = expr.args[i]
            if skip[i] or (source is not None and a.source is not source):
                continue
            size = len(product_factors(a.scale))
            if base == -1 or size < min_size:
                min_size, base = size, i
        return base

    @staticmethod
    def _first_unit_extent(expr: IterSumExpr) -> int:
        return next((i for i, a in enumerate(expr.args) if is_one(a.extent)), len(expr.args))

    def _find_exact_scale(self, expr: IterSumExpr, skip: list[bool], scale: Expr, source: IterMark | None,
                          rbegin: int = -1, first_unit: int = 0) -> int:
        if rbegin == -1:
            rbegin = len(expr.args) - 1
        matched = -1
        for j in range(rbegin, -1, -1):
            a = expr.args[j]
            if skip[j] or (source is not None and a.source is not source):
                continue
            if self.p.equal(a.scale, scale):
                if is_one(a.extent):
                    return j
                if matched == -1:
                    matched = j
                if j <= first_unit:
                    return matched
        return matched

    def _find_smaller_closest(self, expr: IterSumExpr, skip: list[bool], scale: Expr) -> tuple[int, Expr | None]:
        matched, matched_scale = -1, None
        for j in range(len(expr.args) - 1, -1, -1):
            if skip[j]:
                continue
            cur = expr.args[j].scale
            if self.p.ge(arith.sub(scale, cur), 0) and self.p.ge(cur, 0):
                if matched == -1 or self.p.lt(arith.sub(matched_scale, cur), 0):
                    matched, matched_scale = j, cur
        return matched, matched_scale

    def try_combine_same_source(self, expr: IterSumExpr) -> IterSumExpr | None:
        if len(expr.args) <= 1:
            return None
        hits: dict[int, int] = {}
        for a in expr.args:
            hits[id(a.source)] = hits.get(id(a.source), 0) + 1
        if all(v == 1 for v in hits.values()):
            return None
        visited = [False] * len(expr.args)
        reverse: list[IterSplitExpr] = []
        first_unit = self._first_unit_extent(expr)
        rend = len(expr.args) - 1
        while rend >= 0:
            if visited[rend]:
                rend -= 1
                continue
            if hits[id(expr.args[rend].source)] == 1:
                reverse.append(expr.args[rend])
                visited[rend] = True
                rend -= 1
                continue
            idx = self._find_base_iter(expr, visited, expr.args[rend].source, rend)
            visited[idx] = True
            rhs = expr.args[idx]
            while True:
                lhs_scale = mul_and_normalize(rhs.extent, rhs.scale)
                idx = self._find_exact_scale(expr, visited, lhs_scale, rhs.source, rend, first_unit)
                if idx == -1:
                    break
                lhs = expr.args[idx]
                if not self.p.equal(lhs.lower_factor, mul_and_normalize(rhs.lower_factor, rhs.extent)):
                    break
                visited[idx] = True
                rhs = replace(rhs, extent=mul_and_normalize(lhs.extent, rhs.extent))
            reverse.append(rhs)
        return replace(expr, args=tuple(reverse[::-1]))

    def try_fuse(self, expr: IterSumExpr, level: int, allow_early_skip: bool) -> IterSumExpr | None:
        combined = self.try_combine_same_source(expr)
        if combined is not None:
            expr = combined
            if len(expr.args) <= 1 and allow_early_skip:
                return expr
        visited = [False] * len(expr.args)
        base_index = self._find_base_iter(expr, visited, None)
        if base_index == -1:
            return None
        base_scale = expr.args[base_index].scale
        flattened: list[IterSplitExpr] = []
        grouped: list[IterSplitExpr] = []
        extra_base: Expr = arith.const(0, expr.dtype)
        tail: Expr = arith.const(0, expr.dtype)
        expected = base_scale
        first_unit = self._first_unit_extent(expr)
        i = 0
        while i < len(expr.args):
            matched_scale = None
            exact = False
            pos = base_index if i == 0 else self._find_exact_scale(expr, visited, expected, None, -1, first_unit)
            if pos != -1:
                matched_scale, exact = expected, True
            elif level != BIJECTIVE and is_one(base_scale):
                pos, matched_scale = self._find_smaller_closest(expr, visited, expected)
            if pos == -1:
                return None
            constraint = None
            for it in self.constrained:
                if split_equal(expr.args[pos], it.args[-1], False):
                    if constraint is None or len(constraint.args) < len(it.args):
                        constraint = it
            if constraint is not None:
                for c in reversed(constraint.args):
                    k = next((k for k in range(len(expr.args)) if not visited[k] and split_equal(expr.args[k], c, False)
                              and self.p.equal(arith.mul(c.scale, matched_scale), expr.args[k].scale)),
                             len(expr.args))
                    if k == len(expr.args):
                        return None
                    visited[k] = True
                    flattened.append(expr.args[k])
                mark, offset = self.sum_fuse_map.get(constraint)
                grouped.append(IterSplitExpr(mark, arith.floordiv(matched_scale, base_scale)))
                extra_base = arith.add(extra_base, arith.mul(offset, matched_scale))
                if not exact:
                    tail = arith.add(tail, arith.sub(expected, matched_scale))
                expected = mul_and_normalize(mark.extent, matched_scale)
                i += len(constraint.args)
            else:
                visited[pos] = True
                arg = expr.args[pos]
                arg = replace(arg, scale=self.p.simplify(arith.floordiv(arg.scale, base_scale)))
                flattened.append(arg)
                grouped.append(arg)
                if not exact:
                    tail = arith.add(tail, arith.sub(expected, matched_scale))
                expected = mul_and_normalize(expr.args[pos].extent, matched_scale)
                i += 1
        zero = arith.const(0, expr.dtype)
        flattened_form = IterSumExpr(tuple(flattened[::-1]), zero)
        structured = IterSumExpr(tuple(grouped[::-1]), zero)
        found = self.sum_fuse_map.get(flattened_form)
        if found is not None:
            mark, offset = found
            if not self.p.equal(extra_base, arith.mul(offset, base_scale)):
                return None
            return IterSumExpr((IterSplitExpr(mark, base_scale),), arith.add(expr.base, extra_base))
        mark = IterMark(structured, arith.add(arith.div(expected, base_scale), tail))
        self.sum_fuse_map.set(flattened_form, (mark, zero))
        self.flattened_map.set(structured, flattened_form)
        return IterSumExpr((IterSplitExpr(mark, base_scale),), arith.add(expr.base, extra_base))

    # -- visiting --
    def visit_var(self, e: Var) -> Any:
        return self.var_map.get(e, e)

    def visit_default(self, e: Expr) -> Any:
        """Another node: its children rewritten; an iterator below it cannot be represented."""
        kids = children(e)
        if not kids:
            return e
        new = [self(c) for c in kids]
        if any(isinstance(n, IterMapExpr) for n in new):
            self.error(f"IterMapExpr or subclasses should only result from calls in IterMapRewriter using "
                       f"DirectMutate.  Indirect return occurred in {e}")
        return e

    def _plain(self, e: Any, a: Any, b: Any) -> Any | None:
        folded = try_fold(type(e), a, b)
        if folded is not None:
            return folded
        if not isinstance(a, IterMapExpr) and not isinstance(b, IterMapExpr):
            return e if a is e.a and b is e.b else type(e)(a, b)
        return None

    def _add_sub(self, e: Any, sign: int) -> Any:
        if not is_index_type(e.dtype):
            return self.visit_default(e)
        a, b = self(e.a), self(e.b)
        done = self._plain(e, a, b)
        if done is not None:
            return done
        ret = to_sum(a)
        args, base = list(ret.args), ret.base
        if not isinstance(b, IterMapExpr):
            base = arith.add(base, b) if sign > 0 else arith.sub(base, b)
        else:
            rhs = to_sum(b)
            for s in rhs.args:
                _add_split(args, s, sign)
            base = arith.add(base, rhs.base) if sign > 0 else arith.sub(base, rhs.base)
        return IterSumExpr(tuple(args), base)

    def visit_add(self, e: Add) -> Any:
        return self._add_sub(e, 1)

    def visit_sub(self, e: Sub) -> Any:
        return self._add_sub(e, -1)

    def visit_mul(self, e: Mul) -> Any:
        if not is_index_type(e.dtype):
            return self.visit_default(e)
        a, b = self(e.a), self(e.b)
        done = self._plain(e, a, b)
        if done is not None:
            return done
        if isinstance(a, IterMapExpr) and isinstance(b, IterMapExpr):
            self.error(f"Product of two iterators cannot be represented as an IterMap, occurs in {e}")
            return e
        if not isinstance(a, IterMapExpr):
            a, b = b, a
        if isinstance(a, IterSumExpr):
            return IterSumExpr(tuple(replace(s, scale=arith.mul(s.scale, b)) for s in a.args), arith.mul(a.base, b))
        return replace(a, scale=arith.mul(a.scale, b))

    def _preprocess_dividend(self, dividend: Any, original: Expr) -> IterSumExpr | None:
        if isinstance(dividend, IterSplitExpr):
            return IterSumExpr((dividend,), arith.const(0, dividend.dtype))
        if not dividend.args:
            return None
        if len(dividend.args) == 1:
            return dividend
        fused = self.try_fuse(dividend, self.check_level, True)
        if fused is None:
            self.error(f"Dividend  {original}, can't be written as a single fused IterSum")
            return None
        return fused

    def _division(self, e: Any) -> Any:
        if not is_index_type(e.dtype):
            return self.visit_default(e)
        a, b = self(e.a), self(e.b)
        done = self._plain(e, a, b)
        if done is not None:
            return done
        if isinstance(b, IterMapExpr):
            self.error(f"Cannot represent as an IterMap: the divisor in {e} may not be an iterator")
            return e
        pre = self._preprocess_dividend(a, e.a)
        if pre is None:
            return e
        split = self.split_floordiv(pre.args[0], pre.base, b) if isinstance(e, FloorDiv) else \
            self.split_floormod(pre.args[0], pre.base, b)
        return e if split is None else split

    visit_floor_div = visit_floor_mod = _division

    def _padding_info(self, mark: IterMark) -> dict[str, Any] | None:
        for m, info in self.padded_iter_map:
            if structural_equal(m, mark):
                return info
        return None

    def pad_dividend(self, split: IterSplitExpr, base: Expr, divisor: Expr) -> tuple[IterSplitExpr | None, Expr]:
        """TVM's ``PadDividendToDivisor``: (split padded so *divisor* divides it, its left pad)."""
        p = self.p
        left_pad = p.simplify(arith.floormod(base, divisor))
        right_edge = arith.add(left_pad, split.extent)
        right_pad = arith.const(0, base.dtype) if p.divisible(right_edge, divisor) else \
            p.simplify(arith.floormod(arith.sub(0, right_edge), divisor))
        mark = split.source
        if self.update_padding:
            info = self._padding_info(mark)
            if info is None:
                info = {"padding_factor": arith.const(1, mark.dtype), "left_pad": arith.const(0, mark.dtype),
                        "right_pad": arith.const(0, mark.dtype), "padded": None}
                self.padded_iter_map.append((mark, info))
            info["padding_factor"] = approx_lcm(info["padding_factor"], arith.mul(divisor, split.lower_factor), p)
            if is_zero(left_pad) and is_zero(right_pad):
                return split, arith.const(0, base.dtype)
            self.requires_padding = True
            info["left_pad"] = arith.max_expr(info["left_pad"], arith.mul(left_pad, split.lower_factor))
            padded_extent = p.simplify(arith.add(arith.add(left_pad, split.extent), right_pad))
            return replace(split, extent=padded_extent), left_pad
        info = self._padding_info(mark)
        if info is None:
            return split, left_pad
        if is_zero(info["left_pad"]) and p.divisible(mark.extent, info["padding_factor"]):
            return split, left_pad
        if info["padded"] is None:
            mark_left_pad = info["left_pad"]
            if not p.divisible(mark_left_pad, split.lower_factor):
                self.error(f"Detect incompatible left padding on {to_expr(split, p.an)}, the iter mark is left "
                           f"padded with {mark_left_pad}")
                return None, left_pad
            left_pad = arith.floordiv(mark_left_pad, split.lower_factor)
            right_edge = arith.add(mark.extent, mark_left_pad)
            factor = info["padding_factor"]
            mark_right_pad = arith.const(0, mark.dtype) if p.divisible(right_edge, factor) else \
                arith.floormod(arith.sub(0, right_edge), factor)
            padded_extent = p.simplify(arith.add(right_edge, mark_right_pad))
            info["right_pad"] = mark_right_pad
            padded = IterMark(IterSumExpr((IterSplitExpr(mark),), mark_left_pad), padded_extent)
            info["padded"] = padded
            self.padded_origin.append((padded, mark))
            src = padded.source
            pred: Expr = arith.const(False, "bool")
            if not is_zero(mark_left_pad):
                pred = arith.logical_and(arith.equal(arith.floordiv(src, factor), 0),
                                         arith.lt(arith.floormod(src, factor), mark_left_pad))
            if not is_zero(mark_right_pad):
                right = arith.logical_and(
                    arith.equal(arith.floordiv(src, factor), arith.floordiv(right_edge, factor)),
                    arith.ge(arith.floormod(src, factor), arith.floormod(right_edge, factor)))
                pred = arith.logical_or(pred, right)
            self.padding_predicate = arith.logical_or(self.padding_predicate, pred)
        padded = info["padded"]
        return replace(split, source=padded, extent=arith.floordiv(padded.extent, split.lower_factor)), left_pad

    def split_floordiv(self, lhs: IterSplitExpr, base: Expr, rhs: Expr) -> Any:
        p = self.p
        if is_one(rhs):
            return lhs if is_zero(base) else IterSumExpr((lhs,), base)
        if not is_one(lhs.scale):
            if p.divisible(lhs.scale, rhs) and is_zero(base):
                return replace(lhs, scale=arith.floordiv(lhs.scale, rhs))
            if p.divisible(lhs.scale, rhs) and p.divisible(base, rhs):
                return IterSumExpr((replace(lhs, scale=arith.floordiv(lhs.scale, rhs)),), arith.floordiv(base, rhs))
            if p.divisible(rhs, lhs.scale) and is_zero(base):
                rhs = arith.floordiv(rhs, lhs.scale)
                lhs = replace(lhs, scale=arith.const(1, rhs.dtype))
            elif p.divisible(rhs, lhs.scale) and p.divisible(base, lhs.scale):
                base = arith.floordiv(base, lhs.scale)
                rhs = arith.floordiv(rhs, lhs.scale)
                lhs = replace(lhs, scale=arith.const(1, rhs.dtype))
            else:
                self.error(f"Cannot represent as IterMap: the numerator's scaling factor, {lhs.scale} and the "
                           f"divisor {rhs} cannot be simplified to remove the scaling factor.")
                return None
        padded, left_pad = self.pad_dividend(lhs, base, rhs)
        if padded is None:
            return None
        new_split = IterSplitExpr(padded.source, arith.mul(padded.lower_factor, rhs),
                                  p.simplify(arith.floordiv(padded.extent, rhs)), padded.scale)
        new_base = p.simplify(arith.floordiv(arith.sub(base, left_pad), rhs), 6)
        return new_split if is_zero(new_base) else IterSumExpr((new_split,), new_base)

    def split_floormod(self, lhs: IterSplitExpr, base: Expr, rhs: Expr) -> Any:
        p = self.p
        if is_one(rhs):
            return arith.const(0, lhs.dtype)
        if not is_one(lhs.scale):
            if p.divisible(lhs.scale, rhs) and p.divisible(base, rhs):
                return arith.const(0, lhs.dtype)
            if p.divisible(rhs, lhs.scale) and is_zero(base):
                rhs = arith.floordiv(rhs, lhs.scale)
            elif p.divisible(rhs, lhs.scale) and p.divisible(base, lhs.scale):
                rhs = arith.floordiv(rhs, lhs.scale)
                base = arith.floordiv(base, lhs.scale)
            else:
                self.error(f"Cannot represent as IterMap: the left-hand side of FloorMod has a scaling factor, "
                           f"{lhs.scale} and the right-hand {rhs} cannot be used to simplify out the scaling factor.")
                return None
        padded, _ = self.pad_dividend(lhs, base, rhs)
        if padded is None:
            return None
        return IterSplitExpr(padded.source, padded.lower_factor, rhs, padded.scale)


def _add_split(args: list[IterSplitExpr], rhs: IterSplitExpr, sign: int) -> None:
    """``args += rhs * sign``, merged into a split of the same mark and factors."""
    for i, lv in enumerate(args):
        if (lv.source is rhs.source and structural_equal(lv.lower_factor, rhs.lower_factor)
                and structural_equal(lv.extent, rhs.extent)):
            scale = arith.add(lv.scale, rhs.scale) if sign > 0 else arith.sub(lv.scale, rhs.scale)
            args[i] = replace(rhs, scale=scale)
            return
    args.append(rhs if sign > 0 else replace(rhs, scale=arith.sub(arith.const(0, rhs.scale.dtype), rhs.scale)))

