"""Math functions in vector loops: ``exp``, ``log``, ``tanh``, ``sigmoid`` and ``erf`` of float32 inside a
``vectorized`` loop are computed by the polynomials of :mod:`lower.backend.c.fast_math`, which
vectorize, as Halide's and NumPy's vector math do. Their error is at most 1 ulp from the
correctly rounded result (:data:`~lower.backend.c.fast_math.MAX_ULPS`, measured by the tests
over every binade); libm's are within 1 ulp too, but stay one scalar call per lane (GCC
vectorizes them only under ``-ffast-math``). Outside vector loops, and in a build that asks for
libm (``build(..., libm=True)``), the C library's functions remain (sigmoid's scalar form
being ``1 / (1 + expf(-x))``).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lower.ir.stmt import For, ForKind, Stmt
from lower.ir.stmt_functor import StmtMutator
from schedule.ir.expr import Call, Expr
from schedule.ir.functor import ExprMutator

#: The functions a vector loop computes by polynomial (``te.<name>`` of float32).
VECTOR_MATH = ("exp", "log", "tanh", "sigmoid", "erf")


def use_vector_math(body: Stmt) -> Stmt:
    """*body* with :data:`VECTOR_MATH` calls inside vectorized loops replaced by their polynomials."""
    return _InVectorLoops()(body)


class _InVectorLoops(StmtMutator):
    def __init__(self) -> None:
        self.depth = 0
        self.rename = _Polynomials()

    def visit_for(self, s: For) -> Generator[Any, Any, Stmt]:
        inside = s.kind == ForKind.VECTORIZED
        self.depth += inside
        try:
            return (yield from self.visit_default(s))
        finally:
            self.depth -= inside

    def mutate_expr(self, e: Expr) -> Expr:
        return self.rename(e) if self.depth else e


class _Polynomials(ExprMutator):
    def visit_call(self, e: Call) -> Expr:
        e = self.visit_default(e)  # type: ignore[assignment]
        if e.name in VECTOR_MATH and e.dtype == "float32" and len(e.args) == 1:
            return Call("float32", f"fast_{e.name}", e.args)
        return e
