"""The only door to isl: expressions to isl sets and piecewise affine functions, and back.

Quasi-affine expressions (``+``, ``-``, multiplication by a constant, ``floordiv``/``floormod``
/truncating division by a positive constant, ``min``, ``max``, ``select`` on affine
conditions) convert both ways; anything else raises :class:`~bound.errors.NonAffineError`,
which callers catch to fall back on intervals. Everything is keyed by name: :class:`IslNames`
gives each variable (by identity) a unique isl-safe name.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import islpy as isl

from bound.errors import NonAffineError
from bound.intset import IntSet
from schedule import arith
from schedule.dtype import is_int
from schedule.expr import (
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
    Div,
    Expr,
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
    Sub,
    Var,
)
from schedule.functor import ExprFunctor, free_vars

_DT = isl.dim_type

if TYPE_CHECKING:
    from bound.interval import IntervalSet


class IslNames:
    """Unique isl-safe name for each Var (identity-keyed): ``i.outer`` -> ``i_outer``, clashes get ``_1``."""

    def __init__(self) -> None:
        self._name_of: dict[Var, str] = {}
        self._var_of: dict[str, Var] = {}
        self._next: dict[str, int] = {}  # per base name, the first suffix that may be free

    def __getitem__(self, v: Var) -> str:
        name = self._name_of.get(v)
        if name is None:
            base = re.sub(r"\W", "_", v.name) or "v"
            if base[0].isdigit():
                base = "v" + base
            name = self._unused(base)
            self._name_of[v], self._var_of[name] = name, v
        return name

    def var(self, name: str) -> Var:
        return self._var_of[name]

    def fresh(self, hint: str) -> str:
        """A new name that no variable has (for auxiliary set dimensions)."""
        name = self._unused(re.sub(r"\W", "_", hint))
        self._var_of[name] = Var(name)
        return name

    def _unused(self, base: str) -> str:
        if base not in self._var_of:
            return base
        k = self._next.get(base, 1)
        while f"{base}_{k}" in self._var_of:
            k += 1
        self._next[base] = k + 1
        return f"{base}_{k}"


def make_space(set_names: Sequence[str], param_names: Sequence[str]) -> isl.Space:
    return isl.Space.create_from_names(isl.DEFAULT_CONTEXT, set=list(set_names), params=list(param_names))


# ----------------------------------------------------------------------------- expr -> isl

class _ToPwAff(ExprFunctor[isl.PwAff]):
    """Quasi-affine integer expression -> PwAff over *space* (variables by name)."""

    def __init__(self, space: isl.Space, names: IslNames) -> None:
        self._vars = isl.affs_from_space(space)
        self._names = names
        self._zero = self._vars[0]

    def const(self, v: int) -> isl.PwAff:
        # islpy's operator form converts the number through a slow generic path.
        return self._zero.add_constant_val(isl.Val.int_from_si(isl.DEFAULT_CONTEXT, v))

    def visit_int_imm(self, e: IntImm) -> isl.PwAff:
        return self.const(e.value)

    def visit_var(self, e: Var) -> isl.PwAff:
        name = self._names[e]
        if name not in self._vars:
            raise NonAffineError(f"variable {e.name} is not in the isl space")
        return self._vars[name]

    def visit_add(self, e: Add) -> isl.PwAff: return self(e.a) + self(e.b)
    def visit_sub(self, e: Sub) -> isl.PwAff: return self(e.a) - self(e.b)

    def visit_mul(self, e: Mul) -> isl.PwAff:
        for k, x in ((e.a, e.b), (e.b, e.a)):
            if isinstance(k, IntImm):
                return self(x).scale_val(isl.Val.int_from_si(isl.DEFAULT_CONTEXT, k.value))
        raise NonAffineError(f"product of two non-constants: {e}")

    def _divisor(self, e: Any) -> int:
        if not (isinstance(e.b, IntImm) and e.b.value > 0):
            raise NonAffineError(f"division by a non-constant or non-positive value: {e}")
        return e.b.value

    def visit_floor_div(self, e: FloorDiv) -> isl.PwAff:
        return self(e.a).scale_down_val(isl.Val.int_from_si(isl.DEFAULT_CONTEXT, self._divisor(e))).floor()

    def visit_floor_mod(self, e: FloorMod) -> isl.PwAff:
        return self(e.a).mod_val(isl.Val.int_from_si(isl.DEFAULT_CONTEXT, self._divisor(e)))

    def visit_div(self, e: Div) -> isl.PwAff:
        return self(e.a).tdiv_q(self.const(self._divisor(e)))

    def visit_mod(self, e: Mod) -> isl.PwAff:
        return self(e.a).tdiv_r(self.const(self._divisor(e)))

    def visit_min(self, e: Min) -> isl.PwAff: return self(e.a).min(self(e.b))
    def visit_max(self, e: Max) -> isl.PwAff: return self(e.a).max(self(e.b))

    def visit_select(self, e: Select) -> isl.PwAff:
        cond = _ToSet(self)(e.condition)
        return self(e.true_value).intersect_domain(cond).union_add(
            self(e.false_value).intersect_domain(cond.complement()))

    def visit_cast(self, e: Cast) -> isl.PwAff:
        if is_int(e.dtype) and is_int(e.value.dtype):
            return self(e.value)
        raise NonAffineError(f"cast to {e.dtype} is not affine: {e}")

    def visit_default(self, e: Expr) -> isl.PwAff:
        raise NonAffineError(f"not quasi-affine: {e}")


class _ToSet(ExprFunctor[isl.Set]):
    """Affine condition -> the set where it holds."""

    def __init__(self, aff: _ToPwAff) -> None:
        self._aff = aff

    def visit_int_imm(self, e: IntImm) -> isl.Set:
        universe = self._aff._zero.domain()
        return universe if e.value else universe.subtract(universe)

    def visit_default(self, e: Expr) -> isl.Set:
        pairs = {LT: "lt_set", LE: "le_set", GT: "gt_set", GE: "ge_set", EQ: "eq_set", NE: "ne_set"}
        method = pairs.get(type(e))
        if method is None:
            raise NonAffineError(f"not an affine condition: {e}")
        return getattr(self._aff(e.a), method)(self._aff(e.b))  # type: ignore[attr-defined]

    def visit_and(self, e: And) -> isl.Set: return self(e.a).intersect(self(e.b))
    def visit_or(self, e: Or) -> isl.Set: return self(e.a).union(self(e.b))
    def visit_not(self, e: Not) -> isl.Set: return self(e.a).complement()

    def visit_call(self, e: Call) -> isl.Set:
        if e.name == "likely":
            return self(e.args[0])
        raise NonAffineError(f"not an affine condition: {e}")


class Builder:
    """Converts expressions into isl objects over one space of named set dims and params."""

    def __init__(self, names: IslNames, set_vars: Sequence[str], param_vars: Sequence[str]) -> None:
        self.names = names
        self.space = make_space(set_vars, param_vars)
        self._aff = _ToPwAff(self.space, names)
        self._set = _ToSet(self._aff)

    def pw_aff(self, e: Expr) -> isl.PwAff:
        return self._aff(e)

    def condition(self, e: Expr) -> isl.Set:
        return self._set(e)

    def var(self, name: str) -> isl.PwAff:
        return self._aff._vars[name]

    def universe(self) -> isl.Set:
        return isl.Set.universe(self.space)

    def where(self, conditions: Iterable[Expr], equal: Sequence[tuple[str, Expr]] = ()) -> IslSet:
        """The points where every condition holds and each named dimension equals its expression."""
        s = self.universe()
        for c in conditions:
            s = s & self.condition(c)
        for name, value in equal:
            s = s & self.var(name).eq_set(self.pw_aff(value))
        return IslSet(s, self.names)


# ----------------------------------------------------------------------------- isl -> expr

def _val(v: isl.Val) -> Fraction:
    return Fraction(v.to_str())


def aff_to_expr(aff: isl.Aff, names: IslNames, dtype: str = "int32") -> Expr:
    """An integer-valued quasi-affine function as an expression (divs become floordiv)."""
    if aff.is_nan():
        raise NonAffineError("isl returned an undefined (NaN) value")
    terms: list[tuple[Fraction, Expr]] = []
    for kind in (_DT.param, _DT.in_):
        for i in range(aff.dim(kind)):
            c = _val(aff.get_coefficient_val(kind, i))
            if c:
                terms.append((c, names.var(aff.get_dim_name(kind, i))))
    for i in range(aff.dim(_DT.div)):
        c = _val(aff.get_coefficient_val(_DT.div, i))
        if c:
            terms.append((c, _floor_of(aff.get_div(i), names, dtype)))
    const = _val(aff.get_constant_val())
    den = math.lcm(const.denominator, *(c.denominator for c, _ in terms))
    num: Expr = arith.const(int(const * den), dtype)
    for c, x in terms:
        num = arith.add(num, arith.mul(arith.cast(dtype, x), int(c * den)))
    return arith.floordiv(num, den) if den != 1 else num


def _floor_of(aff: isl.Aff, names: IslNames, dtype: str) -> Expr:
    """``floor(aff)`` for an isl div: :func:`aff_to_expr` floors a rational function exactly."""
    if aff.is_nan():
        raise NonAffineError("an isl div has no explicit definition")
    return aff_to_expr(aff, names, dtype)


def set_to_condition(s: isl.Set, names: IslNames) -> Expr:
    """The condition (on params and set dims) under which a point is in *s*."""
    clauses = []
    for bs in s.get_basic_sets():
        conj: Expr = arith.const(True)
        for c in bs.get_constraints():
            conj = arith.logical_and(conj, _comparison(aff_to_expr(c.get_aff(), names), c.is_equality()))
        clauses.append(conj)
    if not clauses:
        return arith.const(False)
    result = clauses[0]
    for c in clauses[1:]:
        result = arith.logical_or(result, c)
    return result


def _comparison(e: Expr, equality: bool) -> Expr:
    """``e == 0`` or ``e >= 0`` written as ``left op right`` with positive terms on each side."""
    from bound.linear import Linear

    lin = Linear.of(e)
    left = Linear(lin.dtype, {x: k for x, k in lin.terms.items() if k > 0}, max(lin.const, 0))
    right = Linear(lin.dtype, {x: -k for x, k in lin.terms.items() if k < 0}, max(-lin.const, 0))
    if left.is_const and not right.is_const:
        # Keep variables on the left: "2 >= o" reads better as "o <= 2".
        return (arith.equal if equality else arith.le)(right.to_expr(), left.to_expr())
    return (arith.equal if equality else arith.ge)(left.to_expr(), right.to_expr())


def pw_aff_to_expr(pa: isl.PwAff, names: IslNames, dtype: str = "int32",
                   context: isl.Set | None = None) -> Expr:
    """A piecewise quasi-affine function of the parameters as an expression.

    Pieces become ``min``/``max`` when the function is the min or max of its pieces, else a
    chain of ``select``. *context* (a parameter set) is assumed to hold; outside it, and
    outside the domain of *pa*, the expression's value is unspecified.
    """
    if context is not None:
        pa = pa.gist_params(context)
    pa = pa.coalesce()
    pieces = pa.get_pieces()
    if not pieces:
        raise NonAffineError("empty piecewise function")
    affs = [aff for _, aff in pieces]
    if len(affs) == 1:
        return aff_to_expr(affs[0], names, dtype)
    for dominates, builder in (("ge_set", arith.max_expr), ("le_set", arith.min_expr)):
        # pa is the max (min) of its pieces iff each piece's function wins on the piece's domain;
        # checking pairs stays quadratic where building the max of all pieces is exponential.
        if all(piece_set.is_subset(_params_if(getattr(a, dominates)(b), piece_set))
               for piece_set, a in pieces for b in affs if b is not a):
            result = aff_to_expr(affs[0], names, dtype)
            for a in affs[1:]:
                result = builder(result, aff_to_expr(a, names, dtype))
            return result
    # Otherwise as isl's AST generator writes it: a select per piece, with conditions and
    # values simplified in the context of the previous pieces.
    n_in = pa.dim(_DT.in_)
    if n_in:  # a function of set dimensions: the AST speaks of parameters only
        pa = pa.move_dims(_DT.param, pa.dim(_DT.param), _DT.in_, 0, n_in)
    if not pa.domain().is_params():
        pa = pa.project_domain_on_params()
    where = pa.domain().params()
    if context is not None:
        a, b = isl.align_two(where, context)
        where = (a & b).params()
    pa = pa.align_params(where.space)
    build = isl.AstBuild.from_context(where)
    return ast_to_expr(build.expr_from_pw_aff(pa), names, dtype)


def ast_to_expr(e: isl.AstExpr, names: IslNames, dtype: str = "int32") -> Expr:
    """An isl AST expression (over parameters and loop iterators) as an expression.

    isl writes ``pdiv_q``/``fdiv_q`` for floor division and ``pdiv_r``/``zdiv_r`` for the
    remainder, all with a positive constant divisor: floordiv and floormod say the same.
    """
    out: dict[int, Expr] = {}
    stack: list[tuple[isl.AstExpr, bool]] = [(e, False)]
    done: list[isl.AstExpr] = []  # keeps the visited nodes alive while their ids are keys
    while stack:
        x, expanded = stack.pop()
        kind = x.get_type()
        if kind == isl.ast_expr_type.int:
            out[id(x)] = arith.const(int(x.get_val().to_python()), dtype)
            done.append(x)
            continue
        if kind == isl.ast_expr_type.id:
            out[id(x)] = names.var(x.get_id().get_name())
            done.append(x)
            continue
        if kind != isl.ast_expr_type.op:
            raise NonAffineError(f"isl AST expression of type {kind}")
        args = [x.get_op_arg(k) for k in range(x.get_op_n_arg())]
        if not expanded:
            stack.append((x, True))
            stack.extend((a, False) for a in args)
            x._args = args  # type: ignore[attr-defined]
            continue
        args = x._args  # type: ignore[attr-defined]
        out[id(x)] = _ast_op(x.get_op_type(), [out[id(a)] for a in args])
        done.append(x)
    return out[id(e)]


_AST_BINARY = {
    "add": arith.add, "sub": arith.sub, "mul": arith.mul, "div": arith.floordiv,
    "fdiv_q": arith.floordiv, "pdiv_q": arith.floordiv, "pdiv_r": arith.floormod, "zdiv_r": arith.floormod,
    "min": arith.min_expr, "max": arith.max_expr, "and_": arith.logical_and, "and_then": arith.logical_and,
    "or_": arith.logical_or, "or_else": arith.logical_or, "eq": arith.equal, "le": arith.le, "lt": arith.lt,
    "ge": arith.ge, "gt": arith.gt,
}


def _ast_op(op: Any, args: list[Expr]) -> Expr:
    name = str(op).rsplit(".", 1)[-1]
    if name == "minus":
        return arith.sub(arith.const(0, args[0].dtype), args[0])
    if name in ("select", "cond"):
        return arith.select(*args)
    fn = _AST_BINARY.get(name)
    if fn is None:
        raise NonAffineError(f"isl AST operation {name}")
    result = args[0]
    for a in args[1:]:  # min and max may take more than two arguments
        result = fn(result, a)
    return result


def _params_if(s: isl.Set, like: isl.Set) -> isl.Set:
    return s.params() if like.is_params() else s


def dim_bounds(s: isl.Set, name: str) -> tuple[isl.PwAff, isl.PwAff]:
    """Exact parametric ``(min, max)`` of set dimension *name* of *s*."""
    pos = s.find_dim_by_name(_DT.set, name)
    return s.dim_min(pos).coalesce(), s.dim_max(pos).coalesce()


class IslSet(IntSet):
    """A set of integer points over named dimensions; free variables are isl parameters."""

    def __init__(self, s: isl.Set, names: IslNames) -> None:
        self.isl = s
        self.names = names

    @property
    def ndim(self) -> int:
        return self.isl.dim(_DT.set)

    @property
    def dim_names(self) -> list[str]:
        return [self.isl.get_dim_name(_DT.set, k) for k in range(self.ndim)]

    @property
    def param_names(self) -> list[str]:
        return [self.isl.get_dim_name(_DT.param, k) for k in range(self.isl.dim(_DT.param))]

    def _with(self, s: isl.Set) -> IslSet:
        return IslSet(s, self.names)

    def union(self, other: IntSet) -> IslSet:
        assert isinstance(other, IslSet)
        a, b = isl.align_two(self.isl, other.isl)
        return self._with((a | b).coalesce())

    def intersect(self, other: IntSet) -> IslSet:
        assert isinstance(other, IslSet)
        a, b = isl.align_two(self.isl, other.isl)
        return self._with(a & b)

    def is_empty(self) -> bool:
        return bool(self.isl.is_empty())

    def project_onto(self, keep: Sequence[str]) -> IslSet:
        """The set with every dimension but *keep* projected out (existentially)."""
        s = self.isl
        for k in reversed([k for k, n in enumerate(self.dim_names) if n not in set(keep)]):
            s = s.project_out(_DT.set, k, 1)
        return self._with(s)

    def renamed(self, new_names: Sequence[str]) -> IslSet:
        s = self.isl
        for k, name in enumerate(new_names):
            s = s.set_dim_name(_DT.set, k, name)
        return self._with(s)

    def within_box(self, extents: Sequence[Expr]) -> IslSet:
        """The points with ``0 <= x_k < extents[k]`` (unchanged if an extent is not affine)."""
        try:
            b = Builder(self.names, self.dim_names, [self.names[v] for v in free_vars(extents)])
            box = b.universe()
            for name, extent in zip(self.dim_names, extents):
                box = box & b.var(name).ge_set(b.var(name) * 0) & b.var(name).lt_set(b.pw_aff(extent))
        except NonAffineError:
            return self
        return self.intersect(IslSet(box, self.names))

    def is_box(self) -> bool:
        """Whether the set is, for every value of the parameters, the product of one interval
        per dimension (False may also mean that isl's hull of a dimension is not exact)."""
        s = self.isl.coalesce()
        basics = s.get_basic_sets()
        n = s.dim(_DT.set)
        if len(basics) == 1 and basics[0].dim(_DT.div) == 0 and all(
                sum(1 for k in range(n) if not c.get_coefficient_val(_DT.set, k).is_zero()) <= 1
                for c in basics[0].get_constraints()):
            return True
        box = None
        for k in range(n):
            side = isl.Set.from_basic_set(
                s.project_out(_DT.set, k + 1, n - k - 1).project_out(_DT.set, 0, k).polyhedral_hull())
            box = side if box is None else box.flat_product(side)
        if box is None:
            return True
        box = box.reset_tuple_id()
        return bool(s.reset_tuple_id().is_subset(box) and box.is_subset(s.reset_tuple_id()))

    def count(self) -> int:
        """The number of points of a bounded, parameter-free set."""
        return int(self.isl.count_val().to_python())

    def points(self) -> set[tuple[int, ...]]:
        """Every point of a bounded, parameter-free set."""
        out: set[tuple[int, ...]] = set()
        n = self.ndim

        def add(p: isl.Point) -> None:
            out.add(tuple(int(p.get_coordinate_val(_DT.set, k).to_python()) for k in range(n)))
        self.isl.foreach_point(add)
        return out

    def points_at(self, params: dict[str, int]) -> list[tuple[int, ...]]:
        """The points of the set where each parameter named in *params* has its value."""
        s = self.isl
        for name, value in params.items():
            s = s.fix_val(_DT.param, s.find_dim_by_name(_DT.param, name), isl.Val.int_from_si(s.get_ctx(), value))
        return sorted(IslSet(s, self.names).points())

    def max_of(self, name: str) -> int | None:
        """The largest value of dimension *name* in a parameter-free set (None if empty)."""
        v = self.isl.dim_max_val(self.isl.find_dim_by_name(_DT.set, name))
        return None if v.is_nan() or v.is_infty() or v.is_neginfty() else int(v.to_python())

    def box(self) -> tuple[IntervalSet, ...]:
        from bound.interval import IntervalSet

        out = []
        for name in self.dim_names:
            lo, hi = dim_bounds(self.isl, name)
            out.append(IntervalSet(pw_aff_to_expr(lo, self.names), pw_aff_to_expr(hi, self.names)))
        return tuple(out)

    def box_ranges(self, loop_guards: Sequence[Expr], dtype: str = "int32",
                   nonnegative: Sequence[Var] = ()) -> list[tuple[Expr, Expr]]:
        """``(min, extent)`` per dimension of the hull, as expressions in the parameters.

        *loop_guards* bound the loop variables among the parameters, and the *nonnegative*
        ones (shape variables) are at least 0. Where the set is empty for some of their values
        the box is empty too: if none of the extents is zero there, the first one is.
        """
        nonempty = self.isl.params()
        guards = [*loop_guards, *(arith.ge(v, 0) for v in nonnegative if self.names[v] in self.param_names)]
        loops = self._context(guards)
        if loops is None:
            loops = isl.Set.universe(nonempty.space)
        context, gaps = isl.align_two(loops, nonempty)
        context, gaps = context, context.subtract(gaps)
        bounds = [dim_bounds(self.isl, name) for name in self.dim_names]
        extents = [(hi - lo).add_constant_val(isl.Val.int_from_si(isl.DEFAULT_CONTEXT, 1)) for lo, hi in bounds]
        mins = [pw_aff_to_expr(lo, self.names, dtype, nonempty) for lo, _ in bounds]
        exprs = [pw_aff_to_expr(extent, self.names, dtype, context) for extent in extents]
        if exprs and not gaps.is_empty():
            unblocked = self._where_nonzero(gaps, exprs)
            if not unblocked.is_empty():
                g = unblocked.params().align_params(extents[0].space.params())
                first = extents[0].align_params(g.space)
                zero = isl.PwAff.zero_on_domain(isl.LocalSpace.from_space(g.space)).intersect_domain(g)
                # dim_max names its output after the set dimension; the filler must match.
                zero = zero.set_dim_id(_DT.out, 0, isl.Id(self.dim_names[0]))
                exprs[0] = pw_aff_to_expr(first.union_add(zero), self.names, dtype, context)
        return list(zip(mins, exprs))

    def _where_nonzero(self, gaps: isl.Set, exprs: Sequence[Expr]) -> isl.Set:
        """The points of *gaps* where no expression of *exprs* is zero."""
        params = [gaps.get_dim_name(_DT.param, k) for k in range(gaps.dim(_DT.param))]
        b = Builder(self.names, [], params)
        out = gaps
        for e in exprs:
            try:
                nonzero = b.condition(arith.not_equal(e, 0))
            except NonAffineError:
                continue
            out, nonzero = isl.align_two(out, nonzero)
            out = out & nonzero
        return out

    def _context(self, guards: Sequence[Expr]) -> isl.Set | None:
        params = self.param_names
        if not guards or not params:
            return None
        b = Builder(self.names, [], params)
        ctx = b.universe()
        for g in guards:
            try:
                ctx = ctx & b.condition(g)
            except NonAffineError:
                continue
        return ctx.params()

    def __repr__(self) -> str:
        return f"IslSet({self.isl})"


def same_relation(texts_a: Sequence[str], texts_b: Sequence[str]) -> bool:
    """Whether the unions of two lists of isl maps (in isl's text syntax) are the same relation."""

    def union(texts: Sequence[str]) -> isl.UnionMap:
        out = isl.UnionMap("{ }")
        for t in texts:
            out = out.union(isl.UnionMap(t))
        return out
    return union(texts_a).is_equal(union(texts_b))


def relation_is_empty(text: str) -> bool:
    """Whether the isl relation written *text* has no point."""
    return isl.Map(text).is_empty()


#: An isl affine function as plain data: (denominator, constant numerator,
#: [(coefficient numerator, ("in", position) or ("div", function))]).
AffTerms = tuple[int, int, list]


def aff_terms(aff: isl.Aff) -> AffTerms:
    """*aff* (over set dims, divs as floors) as :data:`AffTerms`."""
    if aff.is_nan():
        raise NonAffineError("isl returned an undefined (NaN) value")
    items: list[tuple[Fraction, tuple]] = []
    for i in range(aff.dim(_DT.in_)):
        c = _val(aff.get_coefficient_val(_DT.in_, i))
        if c:
            items.append((c, ("in", i)))
    for i in range(aff.dim(_DT.div)):
        c = _val(aff.get_coefficient_val(_DT.div, i))
        if c:
            items.append((c, ("div", aff_terms(aff.get_div(i)))))
    const = _val(aff.get_constant_val())
    den = math.lcm(const.denominator, *(c.denominator for c, _ in items))
    return den, int(const * den), [(int(c * den), kind) for c, kind in items]


def reversed_functions(text: str, in_box: str) -> list[AffTerms | None] | None:
    """For the isl relation *text* ``{ [d] -> [x] }`` reversed: per d dim, the function of x
    giving it (None where it is not a single affine function). None if the reversed relation's
    domain is not exactly the set *in_box* (the inverse is partial)."""
    rel = isl.Map(text).reverse()
    if not rel.domain().is_equal(isl.Set(in_box)):
        return None
    out: list[AffTerms | None] = []
    for j in range(rel.dim(_DT.out)):
        lo, hi = rel.dim_min(j).coalesce(), rel.dim_max(j).coalesce()
        pieces = lo.get_pieces()
        if not lo.is_equal(hi) or len(pieces) != 1:
            out.append(None)
            continue
        out.append(aff_terms(pieces[0][1]))
    return out


def single_valued_function(text: str) -> AffTerms | None:
    """The one affine function (of the input dims) that the isl relation *text* with one output
    is, or None if it is many-valued or piecewise."""
    rel = isl.Map(text)
    if not rel.is_single_valued():
        return None
    pieces = rel.dim_max(0).coalesce().get_pieces()
    if len(pieces) != 1:
        return None
    return aff_terms(pieces[0][1])


def set_constraints(text: str) -> list[tuple[AffTerms, bool]] | None:
    """The constraints ``terms >= 0`` (or ``== 0`` when the flag is set) of the isl set *text*,
    or None if it is not one conjunction."""
    s = isl.Set(text).coalesce()
    basics = s.get_basic_sets()
    if len(basics) != 1:
        return None
    bs = basics[0]
    divs = [aff_terms(bs.get_div(k)) for k in range(bs.dim(_DT.div))]
    out = []
    for c in bs.get_constraints():
        items: list[tuple[int, tuple]] = []
        for i in range(bs.dim(_DT.set)):
            v = int(c.get_coefficient_val(_DT.set, i).to_python())
            if v:
                items.append((v, ("in", i)))
        for k, d in enumerate(divs):
            v = int(c.get_coefficient_val(_DT.div, k).to_python())
            if v:
                items.append((v, ("div", d)))
        out.append(((1, int(c.get_constant_val().to_python()), items), c.is_equality()))
    return out


# ----------------------------------------------------------------------------- isl AST -> loops

@dataclass(frozen=True)
class AstFor:
    """``for (var = lo; var < lo + extent * stride; var += stride) body``."""

    var: Var
    lo: Expr
    extent: Expr
    stride: int
    body: AstNode


@dataclass(frozen=True)
class AstIf:
    condition: Expr
    then: AstNode
    otherwise: AstNode | None


@dataclass(frozen=True)
class AstBlock:
    items: tuple[AstNode, ...]


@dataclass(frozen=True)
class AstPoint:
    """The statement at one point of the set: its coordinates."""

    coordinates: tuple[Expr, ...]


AstNode = AstFor | AstIf | AstBlock | AstPoint


def scan_loops(region: IslSet, context: Sequence[Expr], iterators: Sequence[Var]) -> AstNode:
    """Loops that visit every point of *region* once (isl's AST generation), its dimensions
    named by *iterators*, under the parameter conditions *context*.

    :raises NonAffineError: for a loop whose shape this translation does not know.
    """
    names = region.names
    params = region.param_names
    b = Builder(names, [], params)
    where = b.universe()
    for g in context:
        try:
            where = where & b.condition(g)
        except NonAffineError:
            continue
    where = where.params()
    s = region.isl
    where = where.align_params(s.space)
    s = s.align_params(where.space).set_tuple_name("S")
    schedule = isl.Map.identity(isl.Space.map_from_set(s.space)).intersect_domain(s).reset_tuple_id(_DT.out)
    ids = isl.IdList.alloc(isl.DEFAULT_CONTEXT, len(iterators))
    for v in iterators:
        ids = ids.add(isl.Id(names[v]))
    build = isl.AstBuild.from_context(where).set_iterators(ids)
    node = build.node_from_schedule_map(isl.UnionMap.from_map(schedule))
    return _ast_node(node, names)


def _ast_node(node: isl.AstNode, names: IslNames) -> AstNode:
    kind = node.get_type()
    if kind == isl.ast_node_type.block:
        children = node.block_get_children()
        return AstBlock(tuple(_ast_node(children.get_at(k), names) for k in range(children.n_ast_node())))
    if kind == isl.ast_node_type.if_:
        otherwise = _ast_node(node.if_get_else_node(), names) if node.if_has_else_node() else None
        return AstIf(ast_to_expr(node.if_get_cond(), names), _ast_node(node.if_get_then_node(), names), otherwise)
    if kind == isl.ast_node_type.user:
        call = node.user_get_expr()
        return AstPoint(tuple(ast_to_expr(call.get_op_arg(k), names) for k in range(1, call.get_op_n_arg())))
    if kind == isl.ast_node_type.for_:
        var = names.var(node.for_get_iterator().get_id().get_name())
        lo = ast_to_expr(node.for_get_init(), names)
        stride = int(node.for_get_inc().get_val().to_python())
        cond = node.for_get_cond()
        op = str(cond.get_op_type()).rsplit(".", 1)[-1]
        lhs = cond.get_op_arg(0)
        if op not in ("le", "lt") or lhs.get_type() != isl.ast_expr_type.id or stride < 1:
            raise NonAffineError(f"isl loop of an unexpected shape: {cond.to_C_str()}")
        hi = ast_to_expr(cond.get_op_arg(1), names)
        last = hi if op == "le" else arith.sub(hi, 1)  # the largest value the loop may take
        extent = arith.floordiv(arith.add(arith.sub(last, lo), stride), stride)
        return AstFor(var, lo, extent, stride, _ast_node(node.for_get_body(), names))
    raise NonAffineError(f"isl AST node of type {kind}")
