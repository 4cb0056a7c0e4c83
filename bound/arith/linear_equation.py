"""``detect_linear_equation`` (TVM's): an expression as a linear form of chosen
variables, with coefficients that may be expressions free of them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bound.arith.analyzer import Analyzer
from schedule.ir import arith
from schedule.ir.expr import Add, Expr, Mul, Sub, Var
from schedule.ir.functor import distinct_post_order, free_vars

Form = tuple[list[Expr], Expr]


def _form(e: Expr, variables: list[Var]) -> Form | None:
    """Coefficients of *variables* and the rest, or None when *e* is not linear in them (built
    children first, without recursion: expressions may be thousands of nodes deep)."""
    wanted = set(variables)
    forms: dict[int, Form | None] = {}
    for x in distinct_post_order(e):
        zero = arith.const(0, x.dtype)
        if not wanted.intersection(free_vars([x])):
            forms[id(x)] = ([zero] * len(variables), x)
        elif isinstance(x, Var):
            forms[id(x)] = ([arith.const(1, x.dtype) if v is x else zero for v in variables], zero)
        elif isinstance(x, (Add, Sub)) and forms[id(x.a)] is not None and forms[id(x.b)] is not None:
            (ca, ra), (cb, rb) = forms[id(x.a)], forms[id(x.b)]
            op = arith.add if isinstance(x, Add) else arith.sub
            forms[id(x)] = [op(p, q) for p, q in zip(ca, cb)], op(ra, rb)
        elif isinstance(x, Mul) and forms[id(x.a)] is not None and forms[id(x.b)] is not None:
            forms[id(x)] = None
            for scaled, factor in ((forms[id(x.a)], x.b), (forms[id(x.b)], x.a)):
                if not wanted.intersection(free_vars([factor])):
                    forms[id(x)] = [arith.mul(c, factor) for c in scaled[0]], arith.mul(scaled[1], factor)
                    break
        else:
            forms[id(x)] = None
    return forms[id(e)]


def detect_linear_equation(expr: Any, var_list: Sequence[Var]) -> list[Expr]:
    """The coefficients of *var_list* in *expr*, then its remaining term, each simplified; an
    empty list when *expr* is not linear in them.

    :raises TypeError: when *var_list* holds something other than variables.
    """
    variables = list(var_list)
    if not all(isinstance(v, Var) for v in variables):
        raise TypeError(f"detect_linear_equation: var_list holds variables, not {variables!r}")
    found = _form(arith.convert(expr), variables)
    if found is None:
        return []
    ana = Analyzer()
    return [ana.simplify(c) for c in found[0]] + [ana.simplify(found[1])]
