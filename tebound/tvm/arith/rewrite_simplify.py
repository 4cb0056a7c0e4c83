"""TVM's rewrite simplifier (``Analyzer.rewrite_simplify``): children first, then the first of
TVM's rules (:mod:`.rewrite_rules`, :mod:`.rewrite_logic`) that matches each node, with TVM's
constant folding, comparisons proved by constant bounds and modular sets, the literal
constraints of the enclosing scopes, and two passes over the whole expression.

It gives TVM's exact forms for programs that compare against them; our own simplifier
(:mod:`bound.arith.simplify`) stays the one lowering uses.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from schedule.base.errors import ScheduleError
from schedule.ir import arith
from schedule.ir.dtype import is_bool, is_float, lanes
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Broadcast,
    Call,
    Cast,
    Div,
    Expr,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Let,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    Ramp,
    Reduce,
    Select,
    Sub,
    Var,
)
from schedule.ir.functor import ExprMutator, structural_equal
from tebound.tvm.arith import rewrite_logic as L
from tebound.tvm.arith import rewrite_rules as A
from tebound.tvm.arith import transitive as T
from tebound.tvm.arith.and_of_ors import simplify_as_and_of_ors
from tebound.tvm.arith.const_fold import is_index_type, make_const, trunc_div, try_fold
from tebound.tvm.arith.effects import has_effects, reads_memory
from tebound.tvm.arith.pattern import PNode, broadcast, build, evaluate, match_any, ramp

_MAX_RECUR = 5

#: Rules per node: (vector rules, index rules, float rules, rules for any type).
_TABLES: dict[type, tuple[list, list, list, list]] = {
    Add: (A.ADD_VECTOR, A.ADD_INDEX, [], A.ADD_ANY),
    Sub: (A.SUB_VECTOR, A.SUB_INDEX, A.SUB_FLOAT, A.SUB_ANY),
    Mul: (A.MUL_VECTOR, A.MUL_INDEX, [], []),
    Div: ([], A.DIV_INDEX, [], []),
    Mod: ([], A.MOD_INDEX, [], []),
    FloorDiv: ([], A.FLOORDIV_INDEX, [], []),
    FloorMod: ([], A.FLOORMOD_INDEX, [], []),
    Min: (A.MIN_VECTOR, A.MIN_INDEX, [], A.MIN_ANY),
    Max: (A.MAX_VECTOR, A.MAX_INDEX, [], A.MAX_ANY),
}



class RewriteSimplifier(ExprMutator):
    """TVM's rewrite simplifier over *analyzer* (a ``tebound.tvm.arith.Analyzer``), which gives
    the constant bounds, modular sets, bound variables and literal constraints."""

    def __init__(self, analyzer: Any) -> None:
        self.an = analyzer
        self._depth = 0

    def simplify(self, e: Expr) -> Expr:
        """*e* rewritten, at most twice over (TVM's ``RewriteSimplifier::operator()``)."""
        res = e
        for _ in range(2):
            new = self(res)
            if new is res:
                return res
            res = new
        return res

    # -- what the rules ask of the analyzer --
    def bound(self, e: Expr) -> tuple[int, int]:
        b = self.an.const_int_bound(e)
        return b.min_value, b.max_value

    def modular_set(self, e: Expr) -> Any:
        return self.an.modular_set(e)

    def ge(self, e: Expr, val: int) -> bool:
        """TVM's ``CanProveGreaterEqual``."""
        if isinstance(e, IntImm):
            return e.value >= val
        return self.bound(self.an.rewrite_simplify(e))[0] >= val

    def lt(self, e: Expr, val: int) -> bool:
        """TVM's ``CanProveLess``."""
        if isinstance(e, IntImm):
            return e.value < val
        return self.bound(self.an.rewrite_simplify(e))[1] < val

    def prove_equal(self, e: Expr, val: int) -> bool:
        return self.compare(e, val) == "EQ"

    def pure(self, e: Expr) -> bool:
        """No call with effects beyond reading state in *e*."""
        return not has_effects(e)

    def compare(self, e: Expr, val: int) -> str:
        """How *e* compares with *val*: EQ, LT, GT, LE, GE, NE or UNK (TVM's ``TryCompare``)."""
        diff = self(e)
        if isinstance(diff, IntImm):
            return "EQ" if diff.value == val else ("GT" if diff.value > val else "LT")
        lo, hi = self.bound(diff)
        if lo == val == hi:
            return "EQ"
        if lo > val:
            return "GT"
        if hi < val:
            return "LT"
        if lo >= val:
            return "GE"
        if hi <= val:
            return "LE"
        if val == 0 and self.modular_set(diff).base != 0:
            return "NE"
        return "UNK"

    def compare2(self, a: Expr, b: Expr) -> str:
        """TVM's ``TryCompare(x, y)``: by the constant bounds of ``x - y``, then by the
        comparisons known (chained where the ``transitively_prove_inequalities`` extension is on)."""
        by_bounds = self.compare(build(Sub, a, b), 0)
        if by_bounds in ("EQ", "LT", "GT"):
            return by_bounds
        known = getattr(self.an, "transitive", None)
        if known is None:
            return by_bounds
        found = known.compare(a, b, "transitively_prove_inequalities" in self.an.extensions)
        return T.NAMES[T.CODES[by_bounds] & found]

    def recursive(self, e: Expr) -> Expr:
        if self._depth >= _MAX_RECUR:
            return e
        self._depth += 1
        try:
            return self(e)
        finally:
            self._depth -= 1

    def apply(self, rules: Sequence[Any], e: Expr) -> Expr | None:
        """The first rule of *rules* that rewrites *e*, applied; else None."""
        for rule in rules:
            if not isinstance(rule, A.Rule):
                out = rule(self, e)
                if out is not None:
                    return out
                continue
            for src in rule.src if isinstance(rule.src, list) else (rule.src,):
                m = match_any(src, e)
                if m is None or (rule.cond is not None and not rule.cond(m, self)):
                    continue
                out = evaluate(rule.res, m)
                return self.recursive(out) if rule.recursive else out
        return None

    def literal(self, e: Expr) -> Expr | None:
        """True or False when *e* (or its negation) is a constraint of the enclosing scopes."""
        found = self.an.literal_constraints
        if not found:
            return None
        neg = Not(e)
        he, hn = hash(e), hash(neg)  # structural and cached: a cheap first test
        for c in found:
            hc = hash(c)
            if hc == he and structural_equal(c, e):
                return make_const(e.dtype, True)
            if hc == hn and structural_equal(c, neg):
                return make_const(e.dtype, False)
        return None

    # -- visiting --
    def _children(self, e: Any) -> Any:
        a, b = self(e.a), self(e.b)
        return e if a is e.a and b is e.b else type(e)(a, b)

    def _arith(self, e: Any) -> Expr:
        ret = self._children(e)
        op = type(ret)
        folded = try_fold(op, ret.a, ret.b)
        if folded is not None:
            return folded
        vector, index, floats, anytype = _TABLES[op]
        dtype = ret.dtype
        if op is Div and isinstance(ret.b, FloatImm):
            return build(Mul, ret.a, make_const(ret.b.dtype, 1.0 / ret.b.value))
        if lanes(dtype) != 1:
            out = self.apply(vector, ret)
            if out is None and op in (Div, Mod, FloorDiv, FloorMod):
                out = _vector_div(self, ret)
            if out is not None:
                return out
        if is_index_type(dtype):
            out = self.apply(index, ret)
            if out is not None:
                return out
        elif is_float(dtype) and floats:
            out = self.apply(floats, ret)
            if out is not None:
                return out
        out = self.apply(anytype, ret)
        return ret if out is None else out

    visit_add = visit_sub = visit_mul = visit_div = visit_mod = _arith
    visit_floor_div = visit_floor_mod = visit_min = visit_max = _arith

    def visit_eq(self, e: EQ) -> Expr:
        ret = self._children(e)
        done = self._fold_or_literal(ret)
        return done if done is not None else self.apply_eq(ret)

    def apply_eq(self, ret: EQ) -> Expr:
        if lanes(ret.dtype) != 1:
            out = self.apply(L.EQ_VECTOR, ret)
            if out is not None:
                return out
        if is_index_type(ret.a.dtype):
            r = self.compare2(ret.a, ret.b)
            if r == "EQ":
                return make_const(ret.dtype, True)
            if r in ("NE", "GT", "LT"):
                return make_const(ret.dtype, False)
            out = self.apply(L.EQ_INDEX, ret)
            if out is not None:
                return out
        return ret

    def visit_ne(self, e: NE) -> Expr:
        ret = self._children(e)
        done = self._fold_or_literal(ret)
        if done is not None:
            return done
        if is_index_type(ret.a.dtype):
            r = self.compare2(ret.a, ret.b)
            if r in ("NE", "GT", "LT"):
                return make_const(ret.dtype, True)
            if r == "EQ":
                return make_const(ret.dtype, False)
            if r == "GE":
                return self.apply_lt(LT(ret.b, ret.a))
            if r == "LE":
                return self.apply_lt(LT(ret.a, ret.b))
        return self.apply_not(Not(self.apply_eq(EQ(ret.a, ret.b))))

    def visit_le(self, e: LE) -> Expr:
        ret = self._children(e)
        done = self._fold_or_literal(ret)
        if done is not None:
            return done
        ret = self.apply_not(Not(self.apply_lt(LT(ret.b, ret.a))))
        if isinstance(ret, LE) and is_index_type(ret.a.dtype):
            r = self.compare2(ret.a, ret.b)
            if r in ("LE", "LT", "EQ"):
                return make_const(ret.dtype, True)
            if r == "GT":
                return make_const(ret.dtype, False)
            if r == "NE":
                return self.apply_lt(LT(ret.a, ret.b))
            if r == "GE":
                return self.apply_eq(EQ(ret.a, ret.b))
        return ret

    def visit_gt(self, e: GT) -> Expr:
        return self(build(LT, e.b, e.a))

    def visit_ge(self, e: GE) -> Expr:
        return self(build(LE, e.b, e.a))

    def visit_lt(self, e: LT) -> Expr:
        ret = self._children(e)
        done = self._fold_or_literal(ret)
        return done if done is not None else self.apply_lt(ret)

    def apply_lt(self, ret: LT) -> Expr:
        if lanes(ret.dtype) != 1:
            out = self.apply(L.LT_VECTOR, ret)
            if out is not None:
                return out
        if is_index_type(ret.a.dtype):
            r = self.compare2(ret.a, ret.b)
            if r == "LT":
                return make_const(ret.dtype, True)
            if r in ("EQ", "GT", "GE"):
                return make_const(ret.dtype, False)
            out = self.apply(L.LT_INDEX, ret)
            if out is not None:
                return out
            merged = L.merge_constants(ret)
            if merged is not None:
                return self.recursive(merged)
        return ret

    def _fold_or_literal(self, ret: Any) -> Expr | None:
        folded = try_fold(type(ret), ret.a, ret.b)
        return folded if folded is not None else self.literal(ret)

    def visit_not(self, e: Not) -> Expr:
        a = self(e.a)
        ret = e if a is e.a else Not(a)
        folded = try_fold(Not, ret.a)
        if folded is not None:
            return folded
        done = self.literal(ret)
        return done if done is not None else self.apply_not(ret)

    def apply_not(self, ret: Not) -> Expr:
        if lanes(ret.dtype) != 1:
            out = self.apply(L.NOT_VECTOR, ret)
            if out is not None:
                return out
        out = self.apply(L.NOT_ANY, ret)
        return ret if out is None else out

    def _logic(self, e: Any, vector: list, rules: list) -> Expr:
        ret = self._children(e) if "apply_constraints_to_boolean_branches" not in self.an.extensions \
            else self._constrained_children(e)
        done = self._fold_or_literal(ret)
        if done is not None:
            return done
        if "convert_boolean_to_and_of_ors" in self.an.extensions and isinstance(ret, (And, Or)):
            return simplify_as_and_of_ors(ret, self.an)
        if lanes(ret.dtype) != 1:
            out = self.apply(vector, ret)
            if out is not None:
                return out
        out = self.apply(rules, ret)
        return ret if out is None else out

    def _constrained_children(self, e: Any) -> Expr:
        """Each side of ``a && b`` simplified knowing the other (of ``a || b``, knowing the
        other false), in turn until neither changes (TVM's ApplyConstraintsToBooleanBranches)."""
        sides = [e.a, e.b]
        unchanged = 0
        for k in range(4):
            mine, other = k % 2, 1 - k % 2
            constraint = sides[other] if isinstance(e, And) else normalize_boolean(Not(sides[other]))
            with self.an.constraint_scope(constraint):
                updated = self(sides[mine])
            if updated is not sides[mine]:
                sides[mine] = updated
                unchanged = 0
            else:
                unchanged += 1
                if unchanged >= 2:
                    break
        if sides[0] is e.a and sides[1] is e.b:
            return e
        return type(e)(sides[0], sides[1])

    def visit_and(self, e: And) -> Expr:
        return self._logic(e, L.AND_VECTOR, L.AND_ANY)

    def visit_or(self, e: Or) -> Expr:
        return self._logic(e, L.OR_VECTOR, L.OR_ANY)

    def _branches(self, cond: Expr, t: Expr, f: Expr) -> tuple[Expr, Expr, Expr]:
        c = self(cond)
        with self.an.constraint_scope(c):
            t2 = self(t)
        with self.an.constraint_scope(self.an.rewrite_simplify(Not(c))):
            f2 = self(f)
        return c, t2, f2

    def visit_select(self, e: Select) -> Expr:
        c, t, f = self._branches(e.condition, e.true_value, e.false_value)
        if isinstance(c, IntImm):
            return t if c.value else f
        ret = e if _same((c, t, f), (e.condition, e.true_value, e.false_value)) else Select(c, t, f)
        return t if structural_equal(t, f) else ret

    def visit_reduce(self, e: Reduce) -> Expr:
        """The axes' ranges bound, then the sources, inits and condition (not the combiner)."""
        for iv in e.axis:
            if iv.dom is not None:
                self.an.bind(iv.var, iv.dom)
        axis = tuple(self._mutate_axis(iv) for iv in e.axis)
        source = tuple(self(x) for x in e.source)
        init = tuple(self(x) for x in e.init)
        condition = self(e.condition)
        if _same((*axis, *source, *init, condition), (*e.axis, *e.source, *e.init, e.condition)):
            return e
        return Reduce(e.combiner, source, axis, condition, e.value_index, init)

    def visit_call(self, e: Call) -> Expr:
        if not isinstance(e.name, str):
            return self.visit_default(e)
        name = e.name.removeprefix("tir.")
        if name in ("tvm_if_then_else", "if_then_else") and len(e.args) == 3:
            c, t, f = self._branches(*e.args)
            if isinstance(c, IntImm):
                return t if c.value else f
            ret = e if _same((c, t, f), e.args) else Call(e.dtype, e.name, (c, t, f))
        else:
            ret = self.visit_default(e)
        if not isinstance(ret, Call):
            return ret
        args = ret.args
        if name == "likely" and isinstance(args[0], IntImm):
            return args[0]
        if name in ("shift_right", "shift_left") and all(isinstance(a, IntImm) for a in args):
            return arith.bit_op(name, args[0], args[1])
        if name == "ceil":
            if isinstance(args[0], (IntImm, FloatImm)):
                return arith.cast(ret.dtype, args[0] if isinstance(args[0], IntImm) else
                                  FloatImm(args[0].dtype, float(math.ceil(args[0].value))))
            inner = args[0]
            if (isinstance(inner, Call) and inner.name.removeprefix("tir.") == "log2"
                    and isinstance(inner.args[0], FloatImm) and inner.args[0].value > 0):
                # ceil(log2(n)), topi's ceil_log2, is exact whatever the target rounds
                return FloatImm(ret.dtype, float(math.ceil(math.log2(inner.args[0].value))))
        if name == "likely":
            found = self.literal(args[0])
            if found is not None:
                return found
        if name in ("tvm_if_then_else", "if_then_else"):
            inner = args[1]
            if (isinstance(inner, Call) and inner.name.removeprefix("tir.") in ("tvm_if_then_else", "if_then_else")
                    and isinstance(inner.args[2], (IntImm, FloatImm)) and isinstance(args[2], (IntImm, FloatImm))
                    and inner.args[2].value == args[2].value):
                return arith.if_then_else(build(And, args[0], inner.args[0]), inner.args[1], args[2])
        return ret

    def visit_var(self, e: Var) -> Expr:
        if is_bool(e.dtype) and lanes(e.dtype) == 1:
            found = self.literal(e)
            if found is not None:
                return found
        bound = self.an.range_of(e)
        return bound if isinstance(bound, Expr) else e

    def visit_cast(self, e: Cast) -> Expr:
        return arith.cast(e.dtype, self(e.value))

    def visit_let(self, e: Let) -> Expr:
        value = self(e.value)
        if isinstance(e.value, (IntImm, FloatImm, Var)):
            self.an.bind(e.var, value)
            return self(e.body)
        body = self(e.body)
        return e if value is e.value and body is e.body else Let(e.var, value, body)


def normalize_boolean(e: Expr) -> Expr:
    """Negations pushed into comparisons and through ``&&``/``||`` (TVM's
    ``NormalizeBooleanOperators``), written with ``<`` and ``<=`` only."""
    while True:
        if isinstance(e, Not) and isinstance(e.a, Not):
            e = e.a.a
            continue
        if isinstance(e, Not) and isinstance(e.a, (Or, And)):
            a, b = normalize_boolean(Not(e.a.a)), normalize_boolean(Not(e.a.b))
            return And(a, b) if isinstance(e.a, Or) else Or(a, b)
        inner = e.a if isinstance(e, Not) else None
        if isinstance(e, GE) or isinstance(inner, LT):
            x, y = (e.a, e.b) if isinstance(e, GE) else (inner.a, inner.b)
            return build(LE, y, x)
        if isinstance(inner, GT):
            return build(LE, inner.a, inner.b)
        if isinstance(e, GT) or isinstance(inner, LE):
            x, y = (e.a, e.b) if isinstance(e, GT) else (inner.a, inner.b)
            return build(LT, y, x)
        if isinstance(inner, GE):
            return build(LT, inner.a, inner.b)
        if isinstance(inner, EQ):
            return build(NE, inner.a, inner.b)
        if isinstance(inner, NE):
            return build(EQ, inner.a, inner.b)
        return e


def literal_constraints(simplified: Expr) -> list[Expr]:
    """What entering the constraint *simplified* lets the rewrite simplifier take as true: each
    conjunct, and the negation of its negation (TVM's ``EnterConstraint``)."""
    out: list[Expr] = []
    stack = [simplified]
    while stack:
        c = stack.pop()
        if isinstance(c, And):
            stack += [c.b, c.a]
            continue
        if has_effects(c) or reads_memory(c):  # TVM keeps only pure constraints: memory may change
            continue
        out.append(c)
        neg = normalize_boolean(Not(c)) if is_bool(c.dtype) else build(EQ, c, make_const(c.dtype, 0))
        out.append(Not(neg))
    return out


def _same(a: Sequence[Expr], b: Sequence[Expr]) -> bool:
    return all(x is y for x, y in zip(a, b))


def _vector_div(s: RewriteSimplifier, e: Any) -> Expr | None:
    """TVM's rules for a ramp divided by a broadcast constant (and broadcasts over broadcasts)."""
    op = type(e)
    x, y, b1, c1, c2, lanes_ = A.x, A.y, A.b1, A.c1, A.c2, A.lanes
    m = match_any(PNode(op, broadcast(x, lanes_), broadcast(y, lanes_)), e)
    if m is not None:
        return Broadcast(build(op, m.x, m.y), m.lanes)
    m = match_any(PNode(op, ramp(b1, c1, lanes_), broadcast(c2, lanes_)), e)
    if m is None:
        return None
    c1v, c2v, n, base = m.c1, m.c2, m.lanes, m.b1
    if c2v == 0:
        raise ScheduleError(f"division by zero in {e}")
    c2e = m.expr("c2")
    dtype = base.dtype
    if op is Div:
        if c1v % c2v == 0:
            return Ramp(build(Div, base, c2e), build(Div, m.expr("c1"), c2e), n)
        if s.ge(base, 0):
            bmod = s.modular_set(base)
            lo = trunc_div(bmod.base, c2v)
            hi = trunc_div(bmod.base + (n - 1) * c1v, c2v)
            if bmod.coeff % c2v == 0 and lo == hi:
                return Broadcast(build(Div, base, c2e), n)
        return None
    if op is Mod:
        if c1v % c2v == 0:
            return Broadcast(build(Mod, base, c2e), n)
        if s.ge(base, 0):
            bmod = s.modular_set(base)
            lo = trunc_div(bmod.base, c2v)
            hi = trunc_div(bmod.base + (n - 1) * c1v, c2v)
            if bmod.coeff % c2v == 0:
                r = Ramp(build(Mod, make_const(dtype, bmod.base), c2e), m.expr("c1"), n)
                return r if lo == hi else build(Mod, r, Broadcast(c2e, n))
        return None
    bmod = s.modular_set(base)
    lo = bmod.base // c2v
    last = bmod.base + (n - 1) * c1v
    hi = last // c2v
    if op is FloorDiv:
        if c1v % c2v == 0:
            return Ramp(build(FloorDiv, base, c2e), build(FloorDiv, m.expr("c1"), c2e), n)
        if lo == hi and (bmod.coeff % c2v == 0 or (bmod.coeff and c2v % bmod.coeff == 0 and last < bmod.coeff)):
            return Broadcast(build(FloorDiv, base, c2e), n)
        return None
    if c1v % c2v == 0:
        return Broadcast(build(FloorMod, base, c2e), n)
    if lo == hi:
        if bmod.coeff % c2v == 0:
            return Ramp(build(FloorMod, make_const(dtype, bmod.base), c2e), m.expr("c1"), n)
        if bmod.coeff and c2v % bmod.coeff == 0 and last < bmod.coeff:
            return Ramp(build(FloorMod, base, c2e), m.expr("c1"), n)
    if bmod.coeff % c2v == 0:
        return build(FloorMod, Ramp(build(FloorMod, make_const(dtype, bmod.base), c2e), m.expr("c1"), n),
                     Broadcast(c2e, n))
    return None

