"""TVM's ``tvm.arith.Analyzer``: ours, with TVM's names for what it does, and TVM's
``ConstIntBound`` (infinite ends as ``NEG_INF``/``POS_INF``)."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from bound.arith.analyzer import Analyzer as _Analyzer
from bound.arith.interval import TVM_V013, IntervalSet, eval_set
from schedule.ir.arith import convert, equal
from schedule.ir.expr import Expr, IntImm, Var
from schedule.ir.itervar import IterVar, Range
from tebound.tvm.arith.canonical_simplify import CanonicalSimplifier
from tebound.tvm.arith.const_int_bound import NEG_INF, POS_INF, ConstIntBoundEval, bound_info
from tebound.tvm.arith.rewrite_simplify import RewriteSimplifier, literal_constraints
from tebound.tvm.arith.transitive import TransitiveComparisons


class ConstIntBound:
    """``[min_value, max_value]`` of an integer expression; an end past int64 is
    ``NEG_INF``/``POS_INF``."""

    POS_INF = POS_INF
    NEG_INF = NEG_INF

    def __init__(self, min_value: int, max_value: int) -> None:
        self.min_value, self.max_value = int(min_value), int(max_value)

    @classmethod
    def of(cls, bound: tuple[int | None, int | None]) -> ConstIntBound:
        lo, hi = bound
        return cls(cls.NEG_INF if lo is None or lo <= cls.NEG_INF else lo,
                   cls.POS_INF if hi is None or hi >= cls.POS_INF else hi)

    def ends(self) -> tuple[int | None, int | None]:
        """The bound as ours: None for an infinite end."""
        return (None if self.min_value <= self.NEG_INF else self.min_value,
                None if self.max_value >= self.POS_INF else self.max_value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ConstIntBound) and self.ends() == other.ends()

    def __hash__(self) -> int:
        return hash(self.ends())

    def __repr__(self) -> str:
        return f"ConstIntBound[{self.min_value}, {self.max_value}]"


class Analyzer(_Analyzer):
    """TVM's analyzer: our :class:`bound.Analyzer` under TVM's method names, with TVM's rewrite
    simplifier (its exact forms) behind ``rewrite_simplify``."""

    _STATE = (*_Analyzer._STATE, "literal_constraints")

    def __init__(self, ranges: Mapping[Any, Any] | None = None) -> None:
        self.literal_constraints: list[Expr] = []
        #: The comparisons known from bindings and constraints (TVM's transitive_comparisons).
        self.transitive = TransitiveComparisons()
        #: The rewrite simplifier's extensions in force (the names of ``"tir.Simplify"``'s options).
        self.extensions: set[str] = set()
        super().__init__(ranges)

    @contextmanager
    def constraint_scope(self, cond: Any) -> Iterator[None]:
        """Within the block, *cond* holds: for the bounds and residues (see
        :meth:`bound.Analyzer.constraint_scope`) and, as TVM's, for the rewrite simplifier,
        which takes each of its simplified conjuncts as true."""
        with super().constraint_scope(cond):
            mark = None
            if not isinstance(cond, bool):
                c = convert(cond)
                self.literal_constraints = [*self.literal_constraints, *literal_constraints(self.rewrite_simplify(c))]
                mark = self.transitive.enter(c)
            try:
                yield
            finally:
                if mark is not None:
                    self.transitive.leave(mark)

    def bind(self, var: Var | IterVar, expr: Any, allow_override: bool = False) -> None:
        """*var* takes the range *expr* (a Range) or equals the expression *expr* (TVM's ``bind``).
        A second binding replaces the first, whatever *allow_override* says (TVM refuses it
        unless the two agree; programs that rebind a variable pass True)."""
        super().bind(var, expr if isinstance(expr, (Range, tuple, IntervalSet)) else convert(expr))
        v = var.var if isinstance(var, IterVar) else var
        if isinstance(expr, Range):
            self.transitive.bind(v, expr.min, expr.extent)
        elif not isinstance(expr, (tuple, IntervalSet)):
            self.transitive.bind(v, convert(expr), convert(1))

    def update(self, var: Var, info: ConstIntBound, override: bool = False) -> None:
        """Give *var* the constant bound *info*.

        :raises TypeError: for *info* other than a ``ConstIntBound``.
        :raises ValueError: when *var* has another bound already and *override* is False.
        """
        if not isinstance(info, ConstIntBound):
            raise TypeError(f"Analyzer.update: the information is a ConstIntBound, not {info!r}")
        v = var.var if isinstance(var, IterVar) else var
        if not override and self.knows(v) and self.const_bound(v) != info.ends():
            raise ValueError(f"Analyzer.update: {v} already has the bound {self.const_int_bound(v)}; pass "
                             "override=True to replace it")
        super().bind(v, info.ends())

    def const_int_bound(self, expr: Any) -> ConstIntBound:
        """The constant bounds of *expr* by TVM's rules (see :mod:`.const_int_bound`)."""
        lo, hi = ConstIntBoundEval(self._tvm_var_bound, bound_info(self.facts))(convert(expr))
        return ConstIntBound(lo, hi)

    def _tvm_var_bound(self, v: Var) -> tuple[int, int] | None:
        r = self.range_of(v)
        if r is None:
            return None
        if isinstance(r, tuple):
            return (NEG_INF if r[0] is None else r[0], POS_INF if r[1] is None else r[1])
        if isinstance(r, Expr):
            return ConstIntBoundEval(self._tvm_var_bound, [])(r)
        b = ConstIntBound.of(self.const_bound(v))
        return b.min_value, b.max_value

    def simplify(self, expr: Any, steps: int = 2) -> Expr:
        """TVM's ``Analyzer.simplify``: the canonical form, then the rewrite rules and the
        canonical form in turn, *steps* passes more, in TVM's forms."""
        res = self.canonical_simplify(convert(expr))
        for i in range(steps):
            if isinstance(res, IntImm):
                return res
            res = self.rewrite_simplify(res) if i % 2 == 0 else self.canonical_simplify(res)
        return res

    def canonical_simplify(self, expr: Any) -> Expr:
        """*expr* in TVM's canonical form (:mod:`.canonical_simplify`)."""
        return CanonicalSimplifier(self)(convert(expr))

    def rewrite_simplify(self, expr: Any) -> Expr:
        """*expr* simplified by TVM's rewrite rules, in TVM's forms (:mod:`.rewrite_simplify`)."""
        return RewriteSimplifier(self).simplify(convert(expr))

    def can_prove_equal(self, lhs: Any, rhs: Any) -> bool:
        """Whether *lhs* equals *rhs* wherever the known ranges hold."""
        return self.can_prove(equal(convert(lhs), convert(rhs)))

    def int_set(self, expr: Any, dom_map: Mapping[Var, Any] | None = None) -> IntervalSet:
        """The interval *expr* takes when each variable of *dom_map* ranges over its interval
        set or Range (TVM's interval rules)."""
        dom = {(k.var if isinstance(k, IterVar) else k): (IntervalSet.from_range(v) if isinstance(v, Range) else v)
               for k, v in (dom_map or {}).items()}
        return eval_set(convert(expr), dom, self, TVM_V013)

