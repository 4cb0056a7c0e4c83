"""A range-aware simplifier for index expressions, and an analyzer that proves with it.

Integer arithmetic is rewritten through linear sums (:mod:`bound.arith.linear`). Knowing the
constant ranges of the variables, ``floordiv`` and ``floormod`` by constants lose the parts
that are multiples of the divisor, disappear when the rest cannot wrap around, split over a
common factor, and recombine (``(x % c)*k + (x // c)*(c*k) -> x*k``), which gives the
indexing-analysis document's rewrites:

* ``d0 + d1 // 16 -> d0`` and ``d1 % 16 -> d1`` for ``d1 in [0, 14]``;
* ``(16*d0 + 4*d1 + d2) // 8 -> 2*d0 + (4*d1 + d2) // 8``;
* ``-((-11*d0 - d1 + 109) // 11) + 9 -> d0``.

Every rewrite is an identity on the given ranges; nothing is assumed about variables
without a range (beyond their dtype).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from bound.arith.const_bound import Bound, ConstBounds
from bound.arith.linear import Linear
from schedule import arith
from schedule.ir.dtype import is_int
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Call,
    Cast,
    CmpOp,
    Div,
    Expr,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    Select,
    StringImm,
    Sub,
    Var,
)
from schedule.ir.functor import ExprMutator, children, free_vars, node_count
from schedule.ir.itervar import IterVar, Range

_MAX_PASSES = 4


def _single_atom(lin: Linear) -> Expr | None:
    """The atom of a sum that is exactly one atom with coefficient 1 and no constant."""
    if lin.const == 0 and len(lin.terms) == 1:
        (atom, k), = lin.terms.items()
        if k == 1:
            return atom
    return None


def _const_divisor(e: Expr) -> int | None:
    return e.b.value if isinstance(e.b, IntImm) else None  # type: ignore[attr-defined]


#: Marks a sum written in canonical form by the rewriter (immutable nodes may carry facts).
_CANONICAL = "_canonical_sum"


def _unchanged(e: Any, a: Expr, b: Expr) -> bool:
    """Whether rebuilding *e* from the rewritten children *a*, *b* would give *e* back."""
    return a is e.a and b is e.b and not (isinstance(a, (IntImm, FloatImm)) and isinstance(b, (IntImm, FloatImm)))


def _is_sum(e: Expr) -> bool:
    return isinstance(e, (Add, Sub)) and is_int(e.dtype)


def _is_summand(e: Expr) -> bool:
    """Whether :meth:`Linear.of` looks through *e* (a sum, or a product with a constant)."""
    return _is_sum(e) or (isinstance(e, Mul) and is_int(e.dtype)
                          and (isinstance(e.a, IntImm) or isinstance(e.b, IntImm)))


class _Rewriter(ExprMutator):
    """One bottom-up pass; see the module docstring for the rules."""

    def __init__(self, var_bounds: Mapping[Var, Bound], substitutions: Mapping[Var, Expr]) -> None:
        self._subst = substitutions
        self.cb = ConstBounds(var_bounds)
        self._memo: dict[int, tuple[Expr, Expr]] = {}

    def __call__(self, e: Expr) -> Expr:
        hit = self._memo.get(id(e))
        if hit is not None and hit[0] is e:
            return hit[1]
        out = super().__call__(e)
        if is_int(out.dtype) and not isinstance(out, IntImm):
            lo, hi = self.cb(out)
            if lo is not None and lo == hi:
                out = arith.const(lo, out.dtype)
        self._memo[id(e)] = (e, out)
        return out

    def bottom_up_order(self, e: Expr, memo: dict[int, tuple[Expr, Any]]) -> list[Expr]:
        # A sum's rewrite flattens it and visits only its atoms, so the partial sums inside a
        # long chain need no visit of their own: visiting each made a sum of d terms cost d^2.
        order = super().bottom_up_order(e, memo)
        linear_parents: dict[int, bool] = {}
        for x in order:
            summed = _is_sum(x)
            for c in children(x):
                linear_parents[id(c)] = linear_parents.get(id(c), True) and summed
        return [x for x in order if x is e or not (_is_summand(x) and linear_parents.get(id(x), False))]

    # -- leaves -----------------------------------------------------------------------------
    def visit_var(self, e: Var) -> Expr:
        return self._subst.get(e, e)

    def visit_int_imm(self, e: IntImm) -> Expr: return e
    def visit_float_imm(self, e: FloatImm) -> Expr: return e
    def visit_string_imm(self, e: StringImm) -> Expr: return e

    # -- linear arithmetic --------------------------------------------------------------------
    def visit_add(self, e: Add) -> Expr:
        return self._linear(e) if is_int(e.dtype) else self._rebuild(e, arith.add)

    def visit_sub(self, e: Sub) -> Expr:
        return self._linear(e) if is_int(e.dtype) else self._rebuild(e, arith.sub)

    def visit_mul(self, e: Mul) -> Expr:
        a, b = self(e.a), self(e.b)
        if isinstance(a, Select) and isinstance(b, Select) and bool(a.condition == b.condition):
            # select(c, x, y) * select(c, u, v) == select(c, x*u, y*v)
            return self(Select(a.condition, arith.mul(a.true_value, b.true_value),
                               arith.mul(a.false_value, b.false_value)))
        for sel, k in ((a, b), (b, a)):
            if isinstance(sel, Select) and isinstance(k, IntImm):
                return self(Select(sel.condition, arith.mul(sel.true_value, k), arith.mul(sel.false_value, k)))
        if is_int(e.dtype) and (isinstance(a, IntImm) or isinstance(b, IntImm)):
            return self._linear(e if a is e.a and b is e.b else arith.mul(a, b))
        return e if _unchanged(e, a, b) else arith.mul(a, b)

    def _rebuild(self, e: Any, build: Any) -> Expr:
        a, b = self(e.a), self(e.b)
        return e if _unchanged(e, a, b) else build(a, b)

    def _linear(self, e: Expr) -> Expr:
        raw = Linear.of(e)
        lin = Linear(e.dtype, const=raw.const)
        same = True
        for atom, k in raw.terms.items():
            new = self._atom(atom)
            same = same and new is atom
            lin.add_scaled(Linear.of(new), k)
        if same and e.__dict__.get(_CANONICAL):
            return e
        out = self._recombine(lin).to_expr()
        if not any(isinstance(atom, (FloorDiv, FloorMod)) for atom in lin.terms):
            # Nothing to recombine: the same sum, its atoms unchanged, gives this very form.
            out.__dict__[_CANONICAL] = True
        return out

    def _atom(self, atom: Expr) -> Expr:
        return self(atom) if not isinstance(atom, (Add, Sub)) else self._linear(atom)

    def _recombine(self, lin: Linear) -> Linear:
        changed = True
        while changed:
            changed = False
            for atom, k in list(lin.terms.items()):
                if isinstance(atom, FloorMod) and (c := _const_divisor(atom)) and c > 0:
                    partner = FloorDiv(atom.a, atom.b)
                    if lin.terms.get(partner) == k * c:
                        # (x % c)*k + (x // c)*(c*k) == x*k
                        lin.add_term(atom, -k)
                        lin.add_term(partner, -k * c)
                        lin = lin.plus(Linear.of(atom.a), k)
                        changed = True
                        break
                if isinstance(atom, FloorDiv) and (c := _const_divisor(atom)) and c > 0 and k % c == 0:
                    # (x // c)*(b*c) == x*b - (x % c)*b; worth it only if x's terms cancel.
                    b = k // c
                    trial = Linear(lin.dtype, dict(lin.terms), lin.const)
                    trial.add_term(atom, -k)
                    trial = trial.plus(Linear.of(atom.a), b)
                    trial.add_term(self.visit_floor_mod(FloorMod(atom.a, atom.b)), -b)
                    if len(trial.terms) < len(lin.terms) and trial.const == lin.const:
                        lin, changed = trial, True
                        break
        return lin

    # -- division -----------------------------------------------------------------------------
    def visit_floor_div(self, e: FloorDiv) -> Expr:
        a, b = self(e.a), self(e.b)
        c = b.value if isinstance(b, IntImm) else None
        if not is_int(e.dtype) or c is None or c <= 0:
            return arith.floordiv(a, b) if c != 0 else FloorDiv(a, b)
        return self._floordiv(a, c)

    def _floordiv(self, a: Expr, c: int) -> Expr:
        if c == 1:
            return a
        lin = Linear.of(a)
        inner = _single_atom(lin)
        if isinstance(inner, FloorDiv) and (c1 := _const_divisor(inner)) and c1 > 0:
            return self._floordiv(inner.a, c1 * c)                     # (x // c1) // c
        if isinstance(inner, FloorMod) and (m := _const_divisor(inner)) and m > 0 and m % c == 0:
            return self._floormod(self._floordiv(inner.a, c), m // c)   # (x % (c*s)) // c
        out, rest = Linear(a.dtype), Linear(a.dtype)
        for atom, k in lin.terms.items():
            if k % c == 0:
                out.add_term(atom, k // c)
            else:
                rest.add_term(atom, k)
        out.const, rest.const = divmod(lin.const, c)
        lo, hi = rest.bound(self.cb)
        if lo is not None and hi is not None and lo // c == hi // c:
            out.const += lo // c
            return out.to_expr()
        g = math.gcd(rest.divisor(), c)
        if g > 1 and not rest.is_const:
            # (g*X) // (g*d) == X // d
            rest, c = Linear(rest.dtype, {x: k // g for x, k in rest.terms.items()}, rest.const // g), c // g
        split = self._split_by_divisor(rest, c)
        if split is not None:
            # (h*X + r) // (h*d) == X // d for 0 <= r < h
            h, rest, _ = split
            c //= h
            lo, hi = rest.bound(self.cb)
            if lo is not None and hi is not None and lo // c == hi // c:
                out.const += lo // c
                return out.to_expr()
        div = FloorDiv(rest.to_expr(), arith.const(c, a.dtype)) if c != 1 else rest.to_expr()
        out = out.plus(Linear.of(div))
        return out.to_expr()

    def visit_floor_mod(self, e: FloorMod) -> Expr:
        a, b = self(e.a), self(e.b)
        c = b.value if isinstance(b, IntImm) else None
        if not is_int(e.dtype) or c is None or c <= 0:
            return arith.floormod(a, b) if c != 0 else FloorMod(a, b)
        return self._floormod(a, c)

    def _floormod(self, a: Expr, c: int) -> Expr:
        if c == 1:
            return arith.const(0, a.dtype)
        lin = Linear.of(a)
        inner = _single_atom(lin)
        if isinstance(inner, FloorMod) and (m := _const_divisor(inner)) and m > 0 and m % c == 0:
            return self._floormod(inner.a, c)                           # (x % (c*s)) % c
        rest = Linear(a.dtype, {x: k for x, k in lin.terms.items() if k % c != 0}, lin.const % c)
        lo, hi = rest.bound(self.cb)
        if lo is not None and hi is not None and lo // c == hi // c:
            return rest.plus(Linear(a.dtype, const=-(lo // c) * c)).to_expr()
        if rest.const == 0 and len(rest.terms) == 1:
            (x, k), = rest.terms.items()
            if k > 1 and c % k == 0:                                    # (x*k) % c
                return arith.mul(self._floormod(x, c // k), arith.const(k, a.dtype))
        g = math.gcd(rest.divisor(), c)
        if 1 < g < c and not rest.is_const:
            # (g*X) % (g*m) == g*(X % m)
            scaled = Linear(rest.dtype, {x: k // g for x, k in rest.terms.items()}, rest.const // g)
            return arith.mul(self._floormod(scaled.to_expr(), c // g), arith.const(g, a.dtype))
        split = self._split_by_divisor(rest, c)
        if split is not None:
            # (h*X + r) % (h*m) == h*(X % m) + r for 0 <= r < h
            h, high, low = split
            inner_mod = self._floormod(high.to_expr(), c // h)
            return Linear.of(arith.mul(inner_mod, arith.const(h, a.dtype))).plus(low).to_expr()
        if rest.terms == lin.terms and rest.const == lin.const and isinstance(a, Expr):
            return FloorMod(a, arith.const(c, a.dtype))
        return FloorMod(rest.to_expr(), arith.const(c, a.dtype))

    def _split_by_divisor(self, lin: Linear, c: int) -> tuple[int, Linear, Linear] | None:
        """``lin == h*high + low`` for the largest ``h > 1`` dividing *c* with ``0 <= low < h``."""
        for h in _divisors_descending(c):
            high, low = Linear(lin.dtype), Linear(lin.dtype, const=lin.const)
            for atom, k in lin.terms.items():
                if k % h == 0:
                    high.add_term(atom, k // h)
                else:
                    low.add_term(atom, k)
            if high.is_const:
                continue
            lo, hi = low.bound(self.cb)
            if lo is not None and hi is not None and 0 <= lo and hi < h:
                return h, high, low
        return None

    def visit_div(self, e: Div) -> Expr:
        a, b = self(e.a), self(e.b)
        if is_int(e.dtype) and self._nonneg(a) and isinstance(b, IntImm) and b.value > 0:
            return self._floordiv(a, b.value)
        return arith.div(a, b) if not (isinstance(b, IntImm) and b.value == 0) else Div(a, b)

    def visit_mod(self, e: Mod) -> Expr:
        a, b = self(e.a), self(e.b)
        if is_int(e.dtype) and self._nonneg(a) and isinstance(b, IntImm) and b.value > 0:
            return self._floormod(a, b.value)
        return arith.truncmod(a, b) if not (isinstance(b, IntImm) and b.value == 0) else Mod(a, b)

    def _nonneg(self, e: Expr) -> bool:
        lo, _ = self.cb(e)
        return lo is not None and lo >= 0

    # -- min / max / comparisons ----------------------------------------------------------------
    def _difference(self, a: Expr, b: Expr) -> Bound:
        if not is_int(a.dtype):
            return None, None
        raw = Linear.of(arith.sub(a, b))
        lin = Linear(a.dtype, const=raw.const)
        for atom, k in raw.terms.items():
            lin.add_scaled(Linear.of(self._atom(atom)), k)
        return self._recombine(lin).bound(self.cb)

    def visit_min(self, e: Min) -> Expr:
        a, b = self(e.a), self(e.b)
        lo, hi = self._difference(a, b)
        if hi is not None and hi <= 0:
            return a
        if lo is not None and lo >= 0:
            return b
        return arith.min_expr(a, b)

    def visit_max(self, e: Max) -> Expr:
        a, b = self(e.a), self(e.b)
        lo, hi = self._difference(a, b)
        if hi is not None and hi <= 0:
            return b
        if lo is not None and lo >= 0:
            return a
        return arith.max_expr(a, b)

    def visit_default(self, e: Expr) -> Expr:
        if isinstance(e, CmpOp):
            return self._compare(e)
        return super().visit_default(e, skip=getattr(e, "unsimplified_fields", ()))

    def _compare(self, e: CmpOp) -> Expr:
        a, b = self(e.a), self(e.b)
        branched = self._compare_branches(type(e), a, b)
        if branched is not None:
            return branched
        lo, hi = self._difference(a, b)
        decided = {
            LT: (hi is not None and hi < 0, lo is not None and lo >= 0),
            LE: (hi is not None and hi <= 0, lo is not None and lo > 0),
            GT: (lo is not None and lo > 0, hi is not None and hi <= 0),
            GE: (lo is not None and lo >= 0, hi is not None and hi < 0),
            EQ: (lo == hi == 0, (lo is not None and lo > 0) or (hi is not None and hi < 0)),
            NE: ((lo is not None and lo > 0) or (hi is not None and hi < 0), lo == hi == 0),
        }[type(e)]
        if decided[0]:
            return arith.const(True)
        if decided[1]:
            return arith.const(False)
        builder = {LT: arith.lt, LE: arith.le, GT: arith.gt, GE: arith.ge,
                   EQ: arith.equal, NE: arith.not_equal}[type(e)]
        return builder(a, b)

    def _compare_branches(self, kind: type, a: Expr, b: Expr) -> Expr | None:
        """``select(c, x, y) < b`` as ``c``, ``!c`` or a constant when the comparison is decided in
        both branches (exact tails of thread-dependent regions have this form); else None."""
        for sel, other, flip in ((a, b, False), (b, a, True)):
            if not isinstance(sel, Select):
                continue
            sides = [(other, x) if flip else (x, other) for x in (sel.true_value, sel.false_value)]
            t, f = (self._compare(kind(*side)) for side in sides)
            if isinstance(t, IntImm) and isinstance(f, IntImm):
                if t.value == f.value:
                    return t
                return self(sel.condition) if t.value else self(_negated(sel.condition))
        return None

    # -- logic and choices ----------------------------------------------------------------------
    def visit_and(self, e: And) -> Expr:
        a, b = self(e.a), self(e.b)
        return a if bool(a == b) else arith.logical_and(a, b)

    def visit_or(self, e: Or) -> Expr:
        a, b = self(e.a), self(e.b)
        return a if bool(a == b) else arith.logical_or(a, b)

    def visit_not(self, e: Not) -> Expr:
        return arith.logical_not(self(e.a))

    def visit_select(self, e: Select) -> Expr:
        c, t, f = self(e.condition), self(e.true_value), self(e.false_value)
        if isinstance(c, IntImm):
            return t if c.value else f
        return t if bool(t == f) else Select(c, t, f)

    def visit_call(self, e: Call) -> Expr:
        args = tuple(self(a) for a in e.args)
        if e.name == "tvm_if_then_else" and isinstance(args[0], IntImm):
            return args[1] if args[0].value else args[2]
        if e.name == "likely" and isinstance(args[0], IntImm):
            return args[0]
        if all(x is y for x, y in zip(args, e.args)):
            return e
        return Call(e.dtype, e.name, args)

    def visit_cast(self, e: Cast) -> Expr:
        return arith.cast(e.dtype, self(e.value))


def _divisors_descending(c: int) -> list[int]:
    """The divisors of *c* greater than 1, largest first."""
    small = [d for d in range(1, math.isqrt(c) + 1) if c % d == 0]
    return sorted({*small, *(c // d for d in small)} - {1}, reverse=True)


def var_bounds_of(ranges: Mapping[Any, Any] | None) -> tuple[dict[Var, Bound], dict[Var, Expr]]:
    """Constant bounds and point substitutions from a map of variables to ranges.

    Values may be a :class:`Range` (extent 1 substitutes the variable by the minimum), an
    inclusive ``(lo, hi)`` pair of ints, or anything with ``min_value``/``max_value`` ends.
    Keys may be Vars or IterVars.
    """
    bounds: dict[Var, Bound] = {}
    subst: dict[Var, Expr] = {}
    for key, r in (ranges or {}).items():
        _add_range(bounds, subst, key, r)
    return bounds, subst


def _add_range(bounds: dict[Var, Bound], subst: dict[Var, Expr], key: Any, r: Any) -> None:
    """Add one entry of :func:`var_bounds_of`, bounded by the entries before it."""
    cb = ConstBounds(bounds)
    v = key.var if isinstance(key, IterVar) else key
    subst.pop(v, None)
    if isinstance(r, Range):
        if isinstance(r.extent, IntImm) and r.extent.value == 1:
            subst[v] = r.min
        lo, hi_min = cb(r.min)
        hi_ext = cb(r.extent)[1]
        bounds[v] = (lo, None if hi_min is None or hi_ext is None else hi_min + hi_ext - 1)
    elif isinstance(r, tuple):
        bounds[v] = (r[0], r[1])
    elif isinstance(r, Expr):  # var equals the expression
        subst[v] = r
        bounds[v] = cb(r)
    else:
        lo = cb(r.min_value)[0] if isinstance(r.min_value, Expr) else None
        hi = cb(r.max_value)[1] if isinstance(r.max_value, Expr) else None
        bounds[v] = (lo, hi)


def simplify(e: Expr, ranges: Mapping[Any, Any] | None = None) -> Expr:
    """*e* simplified, knowing the range of each variable in *ranges*.

    The result equals *e* at every point of the ranges.
    """
    if not ranges and is_int(e.dtype):
        lin = Linear.of(e)
        if all(isinstance(atom, Var) for atom in lin.terms):
            # A sum of plain variables: its canonical form is all a full pass would give.
            out = lin.to_expr()
            return out if node_count(out) <= node_count(e) else e
    return _simplify(e, *var_bounds_of(ranges))


def _simplify(e: Expr, bounds: Mapping[Var, Bound], subst: Mapping[Var, Expr]) -> Expr:
    original = current = e
    for _ in range(_MAX_PASSES):
        out = _Rewriter(bounds, subst)(current)
        if out is current or bool(out == current):
            break
        current = out
    if current is original:
        return current
    # Rules may expose structure at the cost of size; a result larger than the input is no help.
    return current if node_count(current) <= node_count(original) else original


def needed_ranges(exprs: Sequence[Expr], known: Mapping[Var, Any]) -> dict[Var, Any]:
    """The entries of *known* (ranges, interval sets or constant bounds per variable) for the
    variables of *exprs* and, through their ranges, the variables those depend on; in the
    order of *known*. A stage deep in a pipeline needs a few of its many enclosing loops."""
    out: dict[Var, Any] = {}
    pending = [v for v in free_vars(exprs) if v in known]
    while pending:
        v = pending.pop()
        if v in out:
            continue
        out[v] = r = known[v]
        ends = [r.min, r.extent] if isinstance(r, Range) else [getattr(r, "min_value", None),
                                                                getattr(r, "max_value", None)]
        pending += [u for u in free_vars([e for e in ends if isinstance(e, Expr)]) if u in known and u not in out]
    return {v: out[v] for v in known if v in out}


def _quick_proof(cond: Expr, bounds: Mapping[Var, Bound], subst: Mapping[Var, Expr]) -> bool | None:
    """Decide ``a <op> b`` from constant bounds of ``a - b`` term by term, when that is cheap
    and as strong as a full simplification: True if proven; False if the difference is a sum of
    distinct plain variables (nothing for the rewriter to cancel) and it is not proven; None
    when only a full simplification can tell."""
    if not isinstance(cond, (LT, LE, GT, GE)) or not is_int(cond.a.dtype):
        return None
    lin = Linear.of(arith.sub(cond.a, cond.b))
    lo, hi = lin.bound(ConstBounds(bounds))
    if isinstance(cond, LT):
        proven = hi is not None and hi < 0
    elif isinstance(cond, LE):
        proven = hi is not None and hi <= 0
    elif isinstance(cond, GT):
        proven = lo is not None and lo > 0
    else:
        proven = lo is not None and lo >= 0
    if proven:
        return True
    plain = all(isinstance(atom, Var) and atom not in subst for atom in lin.terms)
    return False if plain else None


_NEGATED: dict[type, type] = {LT: GE, LE: GT, GT: LE, GE: LT, EQ: NE, NE: EQ}


def _negated(c: Expr) -> Expr:
    """``!c``, as the opposite comparison where that is exact (integers: no NaN)."""
    if type(c) in _NEGATED and is_int(c.a.dtype):  # type: ignore[attr-defined]
        return _NEGATED[type(c)](c.a, c.b)  # type: ignore[attr-defined]
    return Not(c)
