"""isl's affine functions, sets and AST expressions back to expressions."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import islpy as isl

from bound.arith.linear import Linear
from bound.errors import NonAffineError
from bound.isl.names import IslNames
from schedule import arith
from schedule.ir.expr import Expr

_DT = isl.dim_type


def rational(v: isl.Val) -> Fraction:
    """An isl value as an exact fraction."""
    return Fraction(v.to_str())


def aff_to_expr(aff: isl.Aff, names: IslNames, dtype: str = "int32") -> Expr:
    """An integer-valued quasi-affine function as an expression (divs become floordiv)."""
    if aff.is_nan():
        raise NonAffineError("isl returned an undefined (NaN) value")
    terms: list[tuple[Fraction, Expr]] = []
    for kind in (_DT.param, _DT.in_):
        for i in range(aff.dim(kind)):
            c = rational(aff.get_coefficient_val(kind, i))
            if c:
                terms.append((c, names.var(aff.get_dim_name(kind, i))))
    for i in range(aff.dim(_DT.div)):
        c = rational(aff.get_coefficient_val(_DT.div, i))
        if c:
            terms.append((c, _floor_of(aff.get_div(i), names, dtype)))
    const = rational(aff.get_constant_val())
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
