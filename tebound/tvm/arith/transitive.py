"""Comparisons known from bindings and constraints, and what follows from them (TVM v0.13's
``TransitiveComparisonAnalyzer``): each known comparison is kept as ``a <= b + k``,
``a >= b + k``, ``a == b + k`` or ``a != b + k`` between two expressions (a constant offset
taken off each side); two expressions compare by the known comparisons between them, and,
where asked, by chains of them (``i < j`` and ``j <= k`` give ``i < k``).

Results are TVM's ``CompareResult`` bit sets: the possible outcomes, intersected as facts
accumulate.
"""

from __future__ import annotations

from dataclasses import dataclass

from schedule.ir import arith
from schedule.ir.expr import EQ, GE, GT, LE, LT, NE, Add, And, Expr, IntImm, Sub
from schedule.ir.functor import structural_equal
from tebound.tvm.arith.effects import has_effects, reads_memory

#: TVM's CompareResult: the set of outcomes still possible.
INCONSISTENT, EQUAL, LESS, LESS_EQUAL, GREATER, GREATER_EQUAL, NOT_EQUAL, UNKNOWN = range(8)
NAMES = {EQUAL: "EQ", LESS: "LT", LESS_EQUAL: "LE", GREATER: "GT", GREATER_EQUAL: "GE", NOT_EQUAL: "NE",
         UNKNOWN: "UNK", INCONSISTENT: "INCONSISTENT"}
CODES = {name: code for code, name in NAMES.items()}
_REVERSE = {EQUAL: EQUAL, LESS: GREATER, LESS_EQUAL: GREATER_EQUAL, GREATER: LESS, GREATER_EQUAL: LESS_EQUAL,
            NOT_EQUAL: NOT_EQUAL, UNKNOWN: UNKNOWN, INCONSISTENT: INCONSISTENT}
_KINDS = {LE: LESS_EQUAL, GE: GREATER_EQUAL, LT: LESS, GT: GREATER, EQ: EQUAL, NE: NOT_EQUAL}


@dataclass(frozen=True)
class Comparison:
    """``lhs result rhs + offset`` between expression keys, with ``<``/``>`` made ``<=``/``>=``."""

    lhs: int
    rhs: int
    offset: int
    result: int

    @staticmethod
    def make(lhs: int, rhs: int, offset: int, result: int) -> Comparison:
        if result == LESS:
            return Comparison(lhs, rhs, offset - 1, LESS_EQUAL)
        if result == GREATER:
            return Comparison(lhs, rhs, offset + 1, GREATER_EQUAL)
        return Comparison(lhs, rhs, offset, result)

    def with_lhs(self, key: int) -> Comparison | None:
        if key == self.lhs:
            return self
        if key == self.rhs:
            return Comparison.make(self.rhs, self.lhs, -self.offset, _REVERSE[self.result])
        return None

    def implies(self, other: Comparison) -> bool:
        if self.result == other.result and self.offset == other.offset:
            return True
        if other.result == LESS_EQUAL and self.offset <= other.offset and self.result in (EQUAL, LESS_EQUAL):
            return True
        if other.result == GREATER_EQUAL and self.offset >= other.offset and self.result in (EQUAL, GREATER_EQUAL):
            return True
        if other.result == NOT_EQUAL:
            return ((self.result == EQUAL and self.offset != other.offset)
                    or (self.result == LESS_EQUAL and self.offset < other.offset)
                    or (self.result == GREATER_EQUAL and self.offset > other.offset))
        return False


def _offset(e: Expr) -> tuple[Expr | None, int]:
    if isinstance(e, Add) and isinstance(e.b, IntImm):
        return e.a, e.b.value
    if isinstance(e, Sub) and isinstance(e.b, IntImm):
        return e.a, -e.b.value
    if isinstance(e, IntImm):
        return None, e.value  # the constant side of a comparison: a key of its own
    return e, 0


def _conjuncts(e: Expr) -> list[Expr]:
    out, stack = [], [e]
    while stack:
        x = stack.pop()
        if isinstance(x, And):
            stack += [x.b, x.a]
        else:
            out.append(x)
    return out


class TransitiveComparisons:
    """The comparisons known so far (see the module's docstring)."""

    def __init__(self) -> None:
        self._keys: dict[int, list[tuple[Expr | None, int]]] = {}
        self._count = 0
        self.knowns: list[Comparison] = []
        self.scoped: list[Comparison] = []
        self._bindings: dict[int, tuple[Expr, Expr]] = {}

    def _key(self, e: Expr | None, create: bool) -> int | None:
        h = 0 if e is None else hash(e)
        for other, key in self._keys.get(h, []):
            if (other is None and e is None) or (other is not None and e is not None and structural_equal(other, e)):
                return key
        if not create:
            return None
        self._count += 1
        self._keys.setdefault(h, []).append((e, self._count))
        return self._count

    def _from_expr(self, e: Expr) -> Comparison | None:
        kind = _KINDS.get(type(e))
        if kind is None or (isinstance(e.a, IntImm) and isinstance(e.b, IntImm)):  # type: ignore[attr-defined]
            return None
        lhs, lo = _offset(e.a)  # type: ignore[attr-defined]
        rhs, ro = _offset(e.b)  # type: ignore[attr-defined]
        return Comparison.make(self._key(lhs, True), self._key(rhs, True), ro - lo, kind)  # type: ignore[arg-type]

    def _add(self, e: Expr, into: list[Comparison]) -> None:
        if reads_memory(e) or has_effects(e):  # TVM keeps pure facts only: memory may change
            return
        for c in _conjuncts(e):
            found = self._from_expr(c)
            if found is not None:
                into.append(found)

    def bind(self, var: Expr, lo: Expr, extent: Expr) -> None:
        """*var* ranges over ``[lo, lo + extent)`` (one value where the extent is 1)."""
        previous = self._bindings.get(id(var))
        if previous is not None and not (structural_equal(previous[0], lo) and structural_equal(previous[1], extent)):
            key = self._key(var, False)
            self.knowns = [k for k in self.knowns if k.lhs != key]
        self._bindings[id(var)] = (lo, extent)
        if isinstance(extent, IntImm) and extent.value == 1:
            self._add(EQ(var, lo), self.knowns)
        else:
            self._add(arith.ge(var, lo), self.knowns)
            self._add(arith.lt(var, arith.add(lo, extent)), self.knowns)

    def enter(self, constraint: Expr) -> int:
        """Take *constraint* as true until :meth:`leave` with the returned mark."""
        mark = len(self.scoped)
        self._add(constraint, self.scoped)
        return mark

    def leave(self, mark: int) -> None:
        del self.scoped[mark:]

    def compare(self, lhs: Expr, rhs: Expr, transitive: bool) -> int:
        """What the known comparisons say of ``lhs`` against ``rhs``."""
        if not (lhs.dtype.startswith("int") and rhs.dtype.startswith("int")):
            return UNKNOWN
        if isinstance(lhs, IntImm) and isinstance(rhs, IntImm):
            return LESS if lhs.value < rhs.value else GREATER if lhs.value > rhs.value else EQUAL
        a, lo = _offset(lhs)
        b, ro = _offset(rhs)
        ka, kb = self._key(a, False), self._key(b, False)
        if ka is None or kb is None:
            return UNKNOWN
        found = self._indirect(ka, kb) if transitive else self._direct(ka, kb)
        return _merge(found, ro - lo)

    def _all(self) -> list[Comparison]:
        return [*self.knowns, *self.scoped]

    def _direct(self, ka: int, kb: int) -> list[Comparison]:
        out = []
        for known in self._all():
            c = known.with_lhs(ka)
            if c is not None and c.rhs == kb:
                out.append(c)
        return out

    def _indirect(self, ka: int, kb: int) -> list[Comparison]:
        out = self._search(ka, kb)
        for c in self._search(kb, ka):
            out.append(c.with_lhs(ka))  # type: ignore[arg-type]
        return out

    def _search(self, ka: int, kb: int) -> list[Comparison]:
        """The comparisons of *ka* with *kb* that chains of known ones give."""
        seen: set[int] = set()
        to_visit: list[int] = []
        compared: dict[int, list[Comparison]] = {}

        def declare(c: Comparison) -> None:
            knowns = compared.setdefault(c.rhs, [])
            if any(prev.implies(c) for prev in knowns):
                return
            if c.rhs != kb and c.rhs not in seen:
                to_visit.append(c.rhs)
                seen.add(c.rhs)
            for k, prev in enumerate(knowns):
                if c.implies(prev):
                    knowns[k] = c
                    return
            knowns.append(c)

        for known in self._all():
            c = known.with_lhs(ka)
            if c is not None:
                declare(c)
        while to_visit:
            middle = to_visit.pop(0)
            through = list(compared[middle])
            new: list[Comparison] = []
            for known in self._all():
                c = known.with_lhs(middle)
                if c is None or c.rhs == ka:
                    continue
                for prev in through:
                    if prev.result == EQUAL:
                        result = c.result
                    elif c.result == EQUAL:
                        result = prev.result
                    elif prev.result == c.result and prev.result in (LESS_EQUAL, GREATER_EQUAL):
                        result = prev.result
                    else:
                        continue
                    new.append(Comparison.make(ka, c.rhs, prev.offset + c.offset, result))
            for c in new:
                declare(c)
        return compared.get(kb, [])


def _merge(found: list[Comparison], offset: int) -> int:
    result = UNKNOWN
    for c in found:
        if c.result == EQUAL:
            result &= EQUAL if offset == c.offset else NOT_EQUAL
        elif c.result == LESS_EQUAL:
            if c.offset < offset:
                result &= LESS
            elif c.offset <= offset:
                result &= LESS_EQUAL
        elif c.result == GREATER_EQUAL:
            if c.offset > offset:
                result &= GREATER
            elif c.offset >= offset:
                result &= GREATER_EQUAL
        elif c.result == NOT_EQUAL and offset == c.offset:
            result &= NOT_EQUAL
    return result
