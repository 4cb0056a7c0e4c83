"""Arithmetic for objects that stand for an expression (an IterVar, a partially indexed tensor)."""

from __future__ import annotations

from typing import Any

from schedule.ir.expr import Expr


class ExprLike:
    """Operators that convert this object with :meth:`as_expr` and apply the expression's."""

    def as_expr(self) -> Expr:
        raise NotImplementedError

    def __add__(self, o: Any) -> Expr: return self.as_expr() + o
    def __radd__(self, o: Any) -> Expr: return o + self.as_expr()
    def __sub__(self, o: Any) -> Expr: return self.as_expr() - o
    def __rsub__(self, o: Any) -> Expr: return o - self.as_expr()
    def __mul__(self, o: Any) -> Expr: return self.as_expr() * o
    def __rmul__(self, o: Any) -> Expr: return o * self.as_expr()
    def __truediv__(self, o: Any) -> Expr: return self.as_expr() / o
    def __rtruediv__(self, o: Any) -> Expr: return o / self.as_expr()
    def __floordiv__(self, o: Any) -> Expr: return self.as_expr() // o
    def __rfloordiv__(self, o: Any) -> Expr: return o // self.as_expr()
    def __mod__(self, o: Any) -> Expr: return self.as_expr() % o
    def __rmod__(self, o: Any) -> Expr: return o % self.as_expr()
    def __neg__(self) -> Expr: return -self.as_expr()
    def __lt__(self, o: Any) -> Expr: return self.as_expr() < o
    def __le__(self, o: Any) -> Expr: return self.as_expr() <= o
    def __gt__(self, o: Any) -> Expr: return self.as_expr() > o
    def __ge__(self, o: Any) -> Expr: return self.as_expr() >= o

    def equal(self, o: Any) -> Expr:
        """``self == o`` as a condition, as TVM's ``equal`` (``==`` of IterVars is identity)."""
        return self.as_expr().equal(o)

    def astype(self, dtype: str) -> Expr:
        """This expression cast to *dtype*."""
        return self.as_expr().astype(dtype)
