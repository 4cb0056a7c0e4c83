"""TVM's ``tvm.arith.detect_linear_equation``: an expression as a linear form of chosen
variables, with coefficients that may be expressions free of them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bound.arith.analyzer import Analyzer
from schedule.ir import arith
from schedule.ir.expr import Add, Expr, Mul, Sub, Var
from schedule.ir.functor import free_vars

Form = tuple[list[Expr], Expr]


def _form(e: Expr, variables: list[Var]) -> Form | None:
    """Coefficients of *variables* and the rest, or None when *e* is not linear in them."""
    zero = arith.const(0, e.dtype)
    if not set(free_vars([e])) & set(variables):
        return [zero] * len(variables), e
    if isinstance(e, Var):
        return [arith.const(1, e.dtype) if v is e else zero for v in variables], zero
    if isinstance(e, (Add, Sub)):
        a, b = _form(e.a, variables), _form(e.b, variables)
        if a is None or b is None:
            return None
        op = arith.add if isinstance(e, Add) else arith.sub
        return [op(x, y) for x, y in zip(a[0], b[0])], op(a[1], b[1])
    if isinstance(e, Mul):
        a, b = _form(e.a, variables), _form(e.b, variables)
        if a is None or b is None:
            return None
        for scaled, factor in ((a, e.b), (b, e.a)):
            if not set(free_vars([factor])) & set(variables):
                return [arith.mul(c, factor) for c in scaled[0]], arith.mul(scaled[1], factor)
    return None


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
