"""TVM's canonical simplifier (``Analyzer.canonical_simplify``): index sums and products are
rebuilt as :class:`~.canonical_form.SumExpr` (terms merged, divisions by constants split), the
rest goes through the rewrite rules; each node's result is normalized back to an expression
in TVM's order. One pass, as TVM's."""

from __future__ import annotations

import math
from typing import Any

from schedule.ir.expr import (
    Add,
    Cast,
    CommReducer,
    Div,
    Expr,
    FloorDiv,
    FloorMod,
    IntImm,
    Mod,
    Mul,
    Reduce,
    Select,
    Sub,
)
from schedule.ir.functor import free_vars, structural_equal
from tebound.tvm.arith.canonical_form import (
    FLOOR,
    TRUNC,
    SplitExpr,
    SumExpr,
    mod_impl,
    normalize,
)
from tebound.tvm.arith.const_fold import is_index_type, make_const, trunc_div, trunc_mod, try_fold
from tebound.tvm.arith.const_int_bound import POS_INF
from tebound.tvm.arith.effects import has_effects
from tebound.tvm.arith.pattern import build
from tebound.tvm.arith.rewrite_simplify import RewriteSimplifier


def product_factors(e: Expr) -> list[Expr]:
    """The leaves of a product, left to right (TVM's ``UnpackReduction<Mul>``)."""
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, Mul):
            stack += [x.b, x.a]
        else:
            out.append(x)
    return out


def mul_and_normalize(lhs: Expr, rhs: Expr) -> Expr:
    """The product of *lhs* and *rhs* with its constant factors gathered last."""
    cscale, res = 1, make_const(lhs.dtype, 1)
    for v in (*product_factors(lhs), *product_factors(rhs)):
        if isinstance(v, IntImm):
            cscale *= v.value
        else:
            res = build(Mul, res, v)
    return build(Mul, res, make_const(res.dtype, cscale)) if cscale != 1 else res


def prod_div_simplify(lhs: Expr, rhs: Expr) -> tuple[Expr, Expr, Expr] | None:
    """Common factors of the products *lhs* and *rhs* cancelled: (new lhs, new rhs, the common
    scale), or None when nothing cancels (TVM's ``ProdDivSimplify``)."""
    if isinstance(rhs, IntImm):
        return None
    lhs_prods: list[Expr | None] = []
    lhs_c = rhs_c = 1
    for v in product_factors(lhs):
        if isinstance(v, IntImm):
            lhs_c *= v.value
        else:
            lhs_prods.append(v)
    new_rhs, common = make_const(rhs.dtype, 1), make_const(rhs.dtype, 1)
    eliminated = 0
    for v in product_factors(rhs):
        if isinstance(v, IntImm):
            rhs_c *= v.value
            continue
        for i, p in enumerate(lhs_prods):
            if p is not None and structural_equal(v, p):
                lhs_prods[i] = None
                eliminated += 1
                common = build(Mul, common, v)
                break
        else:
            new_rhs = build(Mul, new_rhs, v)
    g = math.gcd(lhs_c, rhs_c) if lhs_c and rhs_c else (abs(lhs_c) or abs(rhs_c))
    if eliminated == 0 and g == 1:
        return None
    lhs_c, rhs_c = trunc_div(lhs_c, g), trunc_div(rhs_c, g)
    new_lhs = make_const(lhs.dtype, 1)
    for p in lhs_prods:
        if p is not None:
            new_lhs = build(Mul, new_lhs, p)
    return (build(Mul, new_lhs, make_const(lhs.dtype, lhs_c)), build(Mul, new_rhs, make_const(rhs.dtype, rhs_c)),
            build(Mul, common, make_const(rhs.dtype, g)))


class CanonicalSimplifier(RewriteSimplifier):
    """TVM's canonical simplifier over *analyzer*."""

    def __call__(self, e: Expr) -> Expr:  # TVM's VisitExpr: each result normalized
        return normalize(super().__call__(e))

    def mutate(self, e: Expr) -> Any:
        """A child's canonical form, not normalized (TVM's ``CanonicalMutate``)."""
        return super().__call__(e)

    def simplify(self, e: Expr) -> Expr:
        return self(e)

    @staticmethod
    def to_split(e: Any) -> SplitExpr:
        if isinstance(e, SplitExpr):
            return e
        if isinstance(e, SumExpr):
            if e.base == 0 and len(e.args) == 1:
                return e.args[0]
            e = e.normalize()
        return SplitExpr(e, e.dtype)

    def to_sum(self, e: Any) -> SumExpr:
        if isinstance(e, SumExpr):
            return e.copy()
        if isinstance(e, IntImm):
            return SumExpr(e.dtype, base=e.value)
        return SumExpr(e.dtype, [self.to_split(e)])

    def convert_div_mode(self, e: SplitExpr, mode: int) -> SplitExpr:
        if e.div_mode == mode:
            return e
        if not e.div_mode_compatible(mode):
            e = self.to_split(e.normalize())
        e = e.copy()
        e.div_mode = mode
        return e

    # -- sums and products --
    def _sum(self, e: Any, sign: int) -> Any:
        if not is_index_type(e.dtype):
            return self._arith(e)
        a, b = self.mutate(e.a), self.mutate(e.b)
        folded = try_fold(type(e), a, b)
        if folded is not None:
            return folded
        ret = self.to_sum(a)
        if isinstance(b, IntImm):
            ret.base += sign * b.value
        elif isinstance(b, SumExpr):
            ret.add_sum(b, sign)
        else:
            ret.add_split(self.to_split(b), sign)
        return ret

    def visit_add(self, e: Add) -> Any:
        return self._sum(e, 1)

    def visit_sub(self, e: Sub) -> Any:
        return self._sum(e, -1)

    def visit_mul(self, e: Mul) -> Any:
        if not is_index_type(e.dtype):
            return self._arith(e)
        a, b = self.mutate(e.a), self.mutate(e.b)
        folded = try_fold(Mul, a, b)
        if folded is not None:
            return folded
        if isinstance(a, IntImm):
            a, b = b, a
        if isinstance(b, IntImm):
            if isinstance(a, SumExpr):
                ret = a.copy()
                ret.mul_to_self(b.value)
                return ret
            split = self.to_split(a).copy()
            split.scale *= b.value
            return split
        ret = mul_and_normalize(normalize(a), normalize(b))
        return e if isinstance(ret, Mul) and ret.a is e.a and ret.b is e.b else ret

    # -- division --
    def split_div_const(self, lhs: SplitExpr, cval: int, mode: int) -> SplitExpr:
        lhs = self.convert_div_mode(lhs, mode).copy()
        if lhs.scale % cval == 0:
            lhs.scale = trunc_div(lhs.scale, cval)
            return lhs
        if cval % lhs.scale == 0:
            scaled = trunc_div(cval, lhs.scale)
            if lhs.upper_factor == POS_INF or lhs.upper_factor % (lhs.lower_factor * scaled) == 0:
                lhs.scale = 1
                lhs.lower_factor *= scaled
                return lhs
            if lhs.upper_factor <= lhs.lower_factor * scaled:
                return self.to_split(make_const(lhs.dtype, 0))
            lhs.index = mod_impl(lhs.index, make_const(lhs.dtype, lhs.upper_factor), mode)
            lhs.upper_factor, lhs.scale = POS_INF, 1
            lhs.lower_factor *= scaled
            return lhs
        lhs = self.to_split(lhs.normalize()).copy()
        lhs.lower_factor *= cval
        lhs.div_mode = mode
        return lhs

    def split_mod_const(self, lhs: SplitExpr, cval: int, mode: int) -> SplitExpr:
        lhs = self.convert_div_mode(lhs, mode).copy()
        if lhs.scale % cval == 0:
            lhs.scale = 0
            return lhs
        if cval % lhs.scale == 0:
            new_upper = lhs.lower_factor * trunc_div(cval, lhs.scale)
            if lhs.upper_factor == POS_INF or lhs.upper_factor % new_upper == 0:
                if new_upper < lhs.upper_factor and lhs.upper_factor != POS_INF:
                    updated = self.to_split(self(mod_impl(lhs.index, make_const(lhs.dtype, new_upper), mode)))
                    if lhs.lower_factor != 1:
                        ret = self.split_div_const(updated, lhs.lower_factor, mode).copy()
                    else:
                        ret = updated.copy()
                    ret.scale *= lhs.scale
                    return ret
                lhs.upper_factor = new_upper
                return lhs
            if new_upper % lhs.upper_factor == 0:
                return lhs
        lhs = self.to_split(lhs.normalize()).copy()
        lhs.div_mode, lhs.upper_factor = mode, cval
        return lhs

    @staticmethod
    def separate(psum: SumExpr, coeff: int) -> tuple[SumExpr, SumExpr]:
        """The terms of *psum* divisible by *coeff*, and the rest."""
        div, rest = SumExpr(psum.dtype), SumExpr(psum.dtype)
        if psum.base % coeff == 0:
            div.base = psum.base
        else:
            rest.base = psum.base
        for t in psum.args:
            (div if t.scale % coeff == 0 else rest).args.append(t)
        return div, rest

    def _division(self, e: Any) -> Any:
        op = type(e)
        if not is_index_type(e.dtype):
            return self._arith(e)
        a, b = self.mutate(e.a), self.mutate(e.b)
        folded = try_fold(op, a, b)
        if folded is not None:
            return folded
        if isinstance(b, IntImm) and b.value > 0:
            handler = {Div: self._div_const, FloorDiv: self._floordiv_const, Mod: self._mod_const,
                       FloorMod: self._floormod_const}[op]
            return handler(a, b)
        a, b = normalize(a), normalize(b)
        found = prod_div_simplify(a, b)
        if found is not None:
            na, nb, scale = found
            if op in (Div, FloorDiv):
                return build(op, na, nb)
            return build(Mul, build(op, na, nb), scale)
        return e if a is e.a and b is e.b else op(a, b)

    visit_div = visit_floor_div = visit_mod = visit_floor_mod = _division

    def _div_const(self, a: Any, b: IntImm) -> Any:
        cval = b.value
        if cval == 1:
            return a
        if isinstance(a, SumExpr):
            lhs, extra = self.separate(a, cval)
            if extra.is_zero():
                lhs.divide_by(cval)
                return lhs
            if self.an_ge(lhs.normalize(), 0) and self.an_ge(extra.normalize(), 0):
                lhs.divide_by(cval)
                temp = extra.normalize()
                if isinstance(temp, IntImm):
                    lhs.base += trunc_div(temp.value, cval)
                elif self.compare(temp, cval) != "LT":
                    lhs.add_split(self.split_div_const(self.to_split(temp), cval, TRUNC), 1)
                return lhs
        elif self._within(a, cval):
            return make_const(a.dtype, 0)
        return self.split_div_const(self.to_split(a), cval, TRUNC)

    def _floordiv_const(self, a: Any, b: IntImm) -> Any:
        cval = b.value
        if cval == 1:
            return a
        if isinstance(a, SumExpr):
            lhs, extra = self.separate(a, cval)
            if extra.is_zero():
                lhs.divide_by(cval)
                return lhs
            lhs.divide_by(cval)
            temp = extra.normalize()
            if isinstance(temp, IntImm):
                lhs.base += temp.value // cval
            elif not (self.compare(temp, cval) == "LT" and self.an_ge(temp, 0)):
                lhs.add_split(self.split_div_const(self.to_split(temp), cval, FLOOR), 1)
            return lhs
        if self._within(a, cval):
            return make_const(a.dtype, 0)
        return self.split_div_const(self.to_split(a), cval, FLOOR)

    def _mod_const(self, a: Any, b: IntImm) -> Any:
        cval = b.value
        if isinstance(a, SumExpr):
            lhs, extra = self.separate(a, cval)
            if extra.is_zero():
                return make_const(a.dtype, 0)
            if self.an_ge(lhs.normalize(), 0) and self.an_ge(extra.normalize(), 0):
                temp = extra.normalize()
                if isinstance(temp, IntImm):
                    return build(Mod, temp, b)
                if self.compare(temp, cval) == "LT":
                    return temp
                a = extra
            bound = self.an.const_int_bound(a.normalize())
            new_base = trunc_mod(a.base, cval)
            if bound.min_value >= 0 and bound.min_value - a.base + new_base >= 0:
                s = a.copy()
                s.base = new_base
                return self.split_mod_const(self.to_split(s), cval, TRUNC)
        elif self._within(a, cval):
            return a
        return self.split_mod_const(self.to_split(a), cval, TRUNC)

    def _floormod_const(self, a: Any, b: IntImm) -> Any:
        cval = b.value
        if isinstance(a, SumExpr):
            _, extra = self.separate(a, cval)
            temp = extra.normalize()
            if isinstance(temp, IntImm):
                return build(FloorMod, temp, b)
            if self.compare(temp, cval) == "LT" and self.an_ge(temp, 0):
                return temp
            s = extra.copy()
            s.base = s.base % cval
            return self.split_mod_const(self.to_split(s), cval, FLOOR)
        if self._within(a, cval):
            return a
        return self.split_mod_const(self.to_split(a), cval, FLOOR)

    def _within(self, a: Any, cval: int) -> bool:
        b = self.an.const_int_bound(normalize(a))
        return b.min_value >= 0 and b.max_value < cval

    def an_ge(self, e: Expr, val: int) -> bool:
        """The analyzer's ``CanProveGreaterEqual``."""
        return self.ge(e, val)

    def visit_reduce(self, e: Reduce) -> Expr:
        ret = super().visit_reduce(e)
        if not isinstance(ret, Reduce):
            return ret
        vi = ret.value_index
        if not ret.axis:
            if ret.init:
                first = ret.combiner.combine(ret.init, ret.source)[vi]
                return self(Select(ret.condition, first, ret.init[vi]))
            return self(Select(ret.condition, ret.source[vi], ret.combiner.identity_element[vi]))
        return self.simplify_combiner(ret)

    def simplify_combiner(self, e: Reduce) -> Reduce:
        """Only the values the result needs (and those with effects) kept in the combiner."""
        c = e.combiner
        results = [self(r) for r in c.result]
        n = len(results)
        used = [False] * n
        uses = [set(free_vars([r])) for r in results]

        def mark(start: int) -> None:
            stack = [start]
            while stack:
                idx = stack.pop()
                if used[idx]:
                    continue
                used[idx] = True
                stack += [i for i in range(n) if not used[i] and (c.lhs[i] in uses[idx] or c.rhs[i] in uses[idx])]

        mark(e.value_index)
        for i in range(n):
            parts = [e.source[i], c.identity_element[i], c.result[i], *([e.init[i]] if e.init else [])]
            if any(has_effects(p) for p in parts):
                mark(i)
        keep = [i for i in range(n) if used[i]]
        vi = e.value_index - sum(1 for i in range(e.value_index) if not used[i])
        combiner = CommReducer(tuple(c.lhs[i] for i in keep), tuple(c.rhs[i] for i in keep),
                               tuple(results[i] for i in keep), tuple(self(c.identity_element[i]) for i in keep))
        return Reduce(combiner, tuple(e.source[i] for i in keep), e.axis, e.condition, vi,
                      tuple(e.init[i] for i in keep) if e.init else ())

    def visit_cast(self, e: Cast) -> Any:
        if not is_index_type(e.dtype):
            return super().visit_cast(e)
        value = self.mutate(e.value)
        if isinstance(value, (SumExpr, SplitExpr)) and value.can_push_cast(e.dtype, self.an):
            value = value.copy()
            value.push_cast(e.dtype)
            return value
        return super().visit_cast(e)
