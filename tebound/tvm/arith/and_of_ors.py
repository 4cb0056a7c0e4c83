"""A boolean expression as an AND of ORs, simplified (TVM v0.13's ``SimplifyAsAndOfOrs``, the
``convert_boolean_to_and_of_ors`` extension of the rewrite simplifier): the terms of each OR
group simplified pairwise, then groups that differ by one term simplified together under the
negation of the terms they share, and true/false removed.

    (a == 5) && ((b < 10) || (b > 10))                 ->  (a == 5) && (b != 10)
    ((a == 5) || (b <= 10)) && ((a == 5) || (b >= 10))  ->  (a == 5) || (b == 10)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from schedule.ir import arith
from schedule.ir.expr import And, Expr, Not, Or
from schedule.ir.functor import structural_equal

_EXTENSION = "convert_boolean_to_and_of_ors"


def _and_parts(e: Expr, out: Callable[[Expr], None]) -> None:
    if isinstance(e, And):
        _and_parts(e.a, out)
        _and_parts(e.b, out)
    elif isinstance(e, Or):
        _and_parts(e.a, lambda x: _and_parts(e.b, lambda y: out(arith.logical_or(x, y))))
    else:
        out(e)


def _or_parts(e: Expr, out: Callable[[Expr], None]) -> None:
    if isinstance(e, Or):
        _or_parts(e.a, out)
        _or_parts(e.b, out)
    elif isinstance(e, And):
        _or_parts(e.a, lambda x: _or_parts(e.b, lambda y: out(arith.logical_and(x, y))))
    else:
        out(e)


class _AndOfOrs:
    def __init__(self, e: Expr) -> None:
        self.exprs: list[Expr] = []
        self.true = self.key(arith.const(True))
        self.false = self.key(arith.const(False))
        self.chunks: list[list[int]] = []

        def add_chunk(outer: Expr) -> None:
            terms: list[int] = []

            def add_term(inner: Expr) -> None:
                k = self.key(inner)
                if k not in terms:
                    terms.append(k)
            _or_parts(outer, add_term)
            if not any(len(c) == len(terms) and sorted(c) == sorted(terms) for c in self.chunks):
                self.chunks.append(terms)
        _and_parts(e, add_chunk)

    def key(self, e: Expr) -> int:
        for k, other in enumerate(self.exprs):
            if type(other) is type(e) and structural_equal(other, e):
                return k
        self.exprs.append(e)
        return len(self.exprs) - 1

    def as_expr(self) -> Expr:
        out: Expr = arith.const(True)
        for chunk in self.chunks:
            part: Expr = arith.const(False)
            for k in chunk:
                part = arith.logical_or(part, self.exprs[k])
            out = arith.logical_and(out, part)
        return out

    def _pair(self, a: int, b: int, joint_type: type, analyzer: Any) -> tuple[int, int]:
        x, y = self.exprs[a], self.exprs[b]
        joint = joint_type(x, y)
        simplified = analyzer.rewrite_simplify(joint)
        if structural_equal(simplified, joint):
            return a, b
        if isinstance(simplified, joint_type):
            return self.key(simplified.a), self.key(simplified.b)
        neutral = self.false if joint_type is Or else self.true
        return neutral, self.key(simplified)

    def simplify(self, analyzer: Any) -> None:
        for chunk in self.chunks:
            for i in range(len(chunk)):
                for j in range(i + 1, len(chunk)):
                    chunk[i], chunk[j] = self._pair(chunk[i], chunk[j], Or, analyzer)
        self.remove_constants()
        self.across(analyzer)
        self.remove_constants()

    def across(self, analyzer: Any) -> None:
        for i in range(len(self.chunks)):
            for j in range(i + 1, len(self.chunks)):
                ci, cj = self.chunks[i], self.chunks[j]
                if len(ci) == 1 and len(cj) == 1:
                    ci[0], cj[0] = self._pair(ci[0], cj[0], And, analyzer)
                    continue
                i_only = next((k for k, key in enumerate(ci) if key not in cj), None)
                if i_only is None:
                    self.chunks[j] = [self.true]
                    continue
                j_only = next((k for k, key in enumerate(cj) if key not in ci), None)
                if j_only is None:
                    self.chunks[i] = [self.true]
                    continue
                shared = sum(1 for key in cj if key in ci)
                if len(ci) == len(cj) and shared + 1 == len(ci):
                    known: Expr = arith.const(True)
                    for k, key in enumerate(ci):
                        if k != i_only:
                            known = arith.logical_and(known, analyzer.simplify(Not(self.exprs[key])))
                    with analyzer.constraint_scope(known):
                        ci[i_only], cj[j_only] = self._pair(ci[i_only], cj[j_only], And, analyzer)

    def remove_constants(self) -> None:
        for n, chunk in enumerate(self.chunks):
            if self.true in chunk:
                self.chunks[n] = [self.true]
            else:
                self.chunks[n] = [k for k in chunk if k != self.false]
        if any(not chunk for chunk in self.chunks):
            self.chunks = [[]]
        else:
            self.chunks = [c for c in self.chunks if not (len(c) == 1 and c[0] == self.true)]


def simplify_as_and_of_ors(e: Expr, analyzer: Any) -> Expr:
    """*e* as a simplified AND of ORs (see the module's docstring)."""
    had = _EXTENSION in analyzer.extensions
    analyzer.extensions.discard(_EXTENSION)
    try:
        form = _AndOfOrs(analyzer.simplify(e))
        form.simplify(analyzer)
        return form.as_expr()
    finally:
        if had:
            analyzer.extensions.add(_EXTENSION)


