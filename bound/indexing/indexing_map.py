"""XLA's indexing maps: an affine map plus the domain of its variables and constraints.

``(d0, d1)[s0]{rt0} -> (d0 + s0, d1), domain: d0 in [0, 9], ..., d0 + s0 in [0, 12]``: dims
index the tensor mapped from, range variables (``s``) are statically bounded, runtime
variables (``rt``) are known only when running. Symbols of the affine map are packed
``[range..., rt...]``. A map may be *undefined* (no affine map) or *known empty* (no point
satisfies its domain). Maps are immutable; equality ignores variable names.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bound.indexing.affine_expr import AffineExpr, Const, Dim, Symbol, evaluate, replace, walk
from bound.indexing.intervals import Interval
from bound.isl import relation_is_empty, same_relation


@dataclass(frozen=True, eq=False)
class Variable:
    """A variable's inclusive bounds and optional name (empty: the positional default)."""

    bounds: Interval
    name: str = ""

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Variable) and self.bounds == other.bounds

    def __hash__(self) -> int:
        return hash(self.bounds)


@dataclass(frozen=True)
class AffineMap:
    """``(d0..d{num_dims-1})[s0..s{num_symbols-1}] -> (results)``."""

    num_dims: int
    num_symbols: int
    results: tuple[AffineExpr, ...]


class _Hooks:
    """What maps' methods call in the modules above this one (their text, their parser and their
    simplifier), filled in by those modules when they are imported; the ``bound.indexing``
    face imports them."""

    parse: Any = None  # text -> IndexingMap (bound.indexing.text)
    text: Any = None  # IndexingMap -> its printed form (bound.indexing.text)
    isl_text: Any = None  # IndexingMap -> an isl relation (bound.indexing.text)
    simplified: Any = None  # bound.indexing.simplify
    rescale_symbols: Any = None  # bound.indexing.simplify


_impl = _Hooks()


@dataclass(eq=False)
class IndexingMap:
    """See the module docstring. Build with :meth:`create`, :meth:`parse` or the operations."""

    affine_map: AffineMap | None
    dims: tuple[Variable, ...] = ()
    ranges: tuple[Variable, ...] = ()
    rts: tuple[Variable, ...] = ()
    constraints: dict[AffineExpr, Interval] = field(default_factory=dict)
    is_known_empty: bool = False

    # -- construction --------------------------------------------------------------------------
    @staticmethod
    def create(affine_map: AffineMap, dims: Sequence[Variable], ranges: Sequence[Variable] = (),
               rts: Sequence[Variable] = (),
               constraints: Iterable[tuple[AffineExpr, Interval]] = ()) -> IndexingMap:
        """A map whose constraints go through :meth:`_add_constraint` (folding into bounds)."""
        m = IndexingMap(affine_map, tuple(dims), tuple(ranges), tuple(rts))
        if any(not v.bounds.is_feasible for v in (*m.dims, *m.ranges, *m.rts)):
            m._reset_to_known_empty()
            return m
        for expr, interval in constraints:
            m._add_constraint(expr, interval)
        return m

    @staticmethod
    def undefined() -> IndexingMap:
        return IndexingMap(None)

    @staticmethod
    def from_tensor_sizes(results: Sequence[AffineExpr], dim_sizes: Sequence[int],
                          symbol_sizes: Sequence[int] = (), num_dims: int | None = None) -> IndexingMap:
        """Dims and range variables bounded by ``[0, size - 1]`` (*num_dims*: of the affine map,
        if it differs from the number of sizes; :meth:`verify` then says so)."""
        dims = len(dim_sizes) if num_dims is None else num_dims
        amap = AffineMap(dims, len(symbol_sizes), tuple(results))
        return IndexingMap.create(amap, [Variable(Interval(0, n - 1)) for n in dim_sizes],
                                  [Variable(Interval(0, n - 1)) for n in symbol_sizes])

    @staticmethod
    def parse(text: str) -> IndexingMap:
        """A map from its printed form (see :mod:`bound.indexing.text`)."""
        return _impl.parse(text)

    def _copy(self) -> IndexingMap:
        return IndexingMap(self.affine_map, self.dims, self.ranges, self.rts, dict(self.constraints),
                           self.is_known_empty)

    def _reset_to_known_empty(self) -> None:
        amap = self.affine_map
        if amap is not None:
            self.affine_map = AffineMap(amap.num_dims, amap.num_symbols, tuple(Const(0) for _ in amap.results))
        empty = Interval(0, -1)
        self.dims = tuple(Variable(empty, v.name) for v in self.dims)
        self.ranges = tuple(Variable(empty, v.name) for v in self.ranges)
        self.constraints = {}
        self.is_known_empty = True

    def _add_constraint(self, expr: AffineExpr, interval: Interval) -> None:
        """XLA's AddConstraint: bounds of a dim or symbol narrow, constants are checked."""
        if self.is_known_empty:
            return
        if not interval.is_feasible:
            self._reset_to_known_empty()
            return
        if isinstance(expr, Dim):
            self._narrow("dims", expr.position, interval)
        elif isinstance(expr, Symbol):
            k = expr.position
            if k < len(self.ranges):
                self._narrow("ranges", k, interval)
            else:
                self._narrow("rts", k - len(self.ranges), interval)
        elif isinstance(expr, Const):
            if expr.value not in interval:
                self._reset_to_known_empty()
        else:
            current = self.constraints.get(expr)
            new = interval if current is None else current.intersect(interval)
            if not new.is_feasible:
                self._reset_to_known_empty()
                return
            self.constraints[expr] = new

    def _narrow(self, which: str, k: int, interval: Interval) -> None:
        variables = list(getattr(self, which))
        v = variables[k]
        bounds = v.bounds.intersect(interval)
        variables[k] = Variable(bounds, v.name)
        setattr(self, which, tuple(variables))
        if not bounds.is_feasible:
            self._reset_to_known_empty()

    # -- queries -------------------------------------------------------------------------------
    @property
    def is_undefined(self) -> bool:
        return self.affine_map is None

    @property
    def results(self) -> tuple[AffineExpr, ...]:
        return self.affine_map.results if self.affine_map is not None else ()

    @property
    def num_symbols(self) -> int:
        return len(self.ranges) + len(self.rts)

    def symbol_variable(self, k: int) -> Variable:
        return self.ranges[k] if k < len(self.ranges) else self.rts[k - len(self.ranges)]

    def verify(self) -> str:
        """Why the variables do not fit the affine map ("" when they do)."""
        if self.affine_map is None:
            return ""
        if len(self.dims) != self.affine_map.num_dims:
            return (f"number of dim vars ({len(self.dims)}) must match the number of dimensions in "
                    f"the affine map ({self.affine_map.num_dims})")
        if self.num_symbols != self.affine_map.num_symbols:
            return (f"number of range ({len(self.ranges)}) + runtime ({len(self.rts)}) variables must "
                    f"match the number of symbols in the affine map ({self.affine_map.num_symbols})")
        return ""

    def rescale_symbols(self) -> IndexingMap:
        """Symbols constrained to one residue ``s mod c in [r, r]`` replaced by ``s*c + r``."""
        return _impl.rescale_symbols(self)[0]

    def evaluate(self, dims: Sequence[int], symbols: Sequence[int] = ()) -> list[int]:
        """The results at a point (the domain is not checked)."""
        return [evaluate(r, dims, symbols) for r in self.results]

    def constraints_satisfied(self, dims: Sequence[int], symbols: Sequence[int] = ()) -> bool:
        return all(evaluate(e, dims, symbols) in iv for e, iv in self.constraints.items())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, IndexingMap):
            return NotImplemented
        return (self.affine_map == other.affine_map and self.dims == other.dims
                and self.ranges == other.ranges and self.rts == other.rts
                and self.constraints == other.constraints and self.is_known_empty == other.is_known_empty)

    def __hash__(self) -> int:
        return hash((self.affine_map, self.dims, self.ranges, self.rts,
                     frozenset(self.constraints.items()), self.is_known_empty))

    def __str__(self) -> str:
        return _impl.text(self)

    def __repr__(self) -> str:
        return f"IndexingMap({str(self)!r})"

    # -- operations ----------------------------------------------------------------------------
    def simplify(self) -> IndexingMap:
        """A simplified copy (XLA's ``Simplify`` with point dimensions replaced)."""
        return _impl.simplified(self)

    def is_empty(self) -> bool:
        """Whether no point satisfies the domain, decided exactly with isl (XLA only notices
        empty intervals: ``d0 mod 8 in [45, 49]`` stays; here it is empty)."""
        if self.is_known_empty:
            return True
        return relation_is_empty(_impl.isl_text(self))

    def same_relation(self, other: IndexingMap) -> bool:
        """Whether both maps relate the same indices (names, constraint forms and variables
        aside), decided with isl."""
        return same_relation([_impl.isl_text(self)], [_impl.isl_text(other)])

    def simplify_exact(self) -> IndexingMap:
        """:meth:`simplify`, then known empty if isl proves the domain empty."""
        out = self.simplify()
        if not out.is_known_empty and out.affine_map is not None and out.is_empty():
            out = out._copy()
            out._reset_to_known_empty()
        return out

    def remove_unused_symbols(self) -> tuple[IndexingMap, list[bool]]:
        """Range and runtime variables the results do not use, and the constraints only on
        them, removed; the mask is ``[dims..., symbols...]`` with True for removed (empty
        when nothing was)."""
        return _remove_unused(self, dims_too=False)

    def remove_unused_vars(self) -> tuple[IndexingMap, list[bool]]:
        """As :meth:`remove_unused_symbols`, for dims too."""
        return _remove_unused(self, dims_too=True)

    def convert_symbols_to_dimensions(self) -> IndexingMap:
        """Range, then runtime variables appended as dims (names dropped)."""
        if self.affine_map is None or self.is_known_empty:
            return self
        n = len(self.dims)
        new_syms = [Dim(n + k) for k in range(self.num_symbols)]
        dims = (*self.dims, *(Variable(v.bounds) for v in (*self.ranges, *self.rts)))
        return _rebuilt(self, None, new_syms, dims, (), (), verbatim=True)

    def convert_range_variables_to_dimensions(self, indices: Sequence[int]) -> IndexingMap:
        """The range variables at *indices* appended as dims in index order (names kept)."""
        if self.affine_map is None:
            return self
        chosen = sorted(set(indices))
        rest = [k for k in range(len(self.ranges)) if k not in chosen]
        n = len(self.dims)
        new_syms: list[AffineExpr] = [Const(0)] * self.num_symbols
        for j, k in enumerate(chosen):
            new_syms[k] = Dim(n + j)
        for j, k in enumerate(rest):
            new_syms[k] = Symbol(j)
        for j in range(len(self.rts)):
            new_syms[len(self.ranges) + j] = Symbol(len(rest) + j)
        dims = (*self.dims, *(self.ranges[k] for k in chosen))
        return _rebuilt(self, None, new_syms, dims, tuple(self.ranges[k] for k in rest), self.rts,
                        verbatim=True)


def _rebuilt(m: IndexingMap, new_dims: Sequence[AffineExpr] | None, new_syms: Sequence[AffineExpr] | None,
             dims: Sequence[Variable], ranges: Sequence[Variable], rts: Sequence[Variable],
             verbatim: bool) -> IndexingMap:
    """*m* with its variables renumbered by replacement, results and constraints rebuilt."""
    assert m.affine_map is not None
    results = tuple(replace(r, new_dims, new_syms) for r in m.results)
    amap = AffineMap(len(dims), len(ranges) + len(rts), results)
    constraints = [(replace(e, new_dims, new_syms), iv) for e, iv in m.constraints.items()]
    if verbatim:
        return IndexingMap(amap, tuple(dims), tuple(ranges), tuple(rts), dict(constraints), m.is_known_empty)
    return IndexingMap.create(amap, dims, ranges, rts, constraints)


def _used(e: AffineExpr) -> tuple[set[int], set[int]]:
    dims, syms = set(), set()
    for x in walk(e):
        if isinstance(x, Dim):
            dims.add(x.position)
        elif isinstance(x, Symbol):
            syms.add(x.position)
    return dims, syms


def _remove_unused(m: IndexingMap, dims_too: bool) -> tuple[IndexingMap, list[bool]]:
    if m.affine_map is None:
        return m, []
    nd, ns = len(m.dims), m.num_symbols
    used_d, used_s = set(), set()
    for r in m.results:
        d, s = _used(r)
        used_d |= d
        used_s |= s
    unused_d = [dims_too and k not in used_d for k in range(nd)]
    unused_s = [k not in used_s for k in range(ns)]
    candidates = []
    for e in m.constraints:
        d, s = _used(e)
        if all(unused_d[k] for k in d) and all(unused_s[k] for k in s):
            candidates.append((e, d, s))
            continue
        for k in d:
            unused_d[k] = False
        for k in s:
            unused_s[k] = False
    if not any(unused_d) and not any(unused_s):
        return m, []
    out = m._copy()
    for e, d, s in candidates:
        if all(unused_d[k] for k in d) and all(unused_s[k] for k in s):
            del out.constraints[e]
    dim_map: list[AffineExpr] = []
    for k in range(nd):
        dim_map.append(Const(0) if unused_d[k] else Dim(k - sum(unused_d[:k])))
    sym_map: list[AffineExpr] = []
    for k in range(ns):
        sym_map.append(Const(0) if unused_s[k] else Symbol(k - sum(unused_s[:k])))
    nr = len(m.ranges)
    dims = tuple(v for v, gone in zip(m.dims, unused_d) if not gone)
    ranges = tuple(v for v, gone in zip(m.ranges, unused_s[:nr]) if not gone)
    rts = tuple(v for v, gone in zip(m.rts, unused_s[nr:]) if not gone)
    return _rebuilt(out, dim_map, sym_map, dims, ranges, rts, verbatim=True), [*unused_d, *unused_s]


def compose(first: IndexingMap, second: IndexingMap) -> IndexingMap:
    """``second(first(x))``: *first* maps the consumer's index to the intermediate tensor,
    *second* the intermediate to the producer's input (XLA's ``ComposeIndexingMaps``).

    Symbols are packed ``[range(second), range(first), rt(second), rt(first)]``; the
    producer's constraints and dim bounds become constraints on the consumer's results.
    """
    if first.affine_map is None or second.affine_map is None:
        return IndexingMap.undefined()
    sr, fr, st = len(second.ranges), len(first.ranges), len(second.rts)
    ft = len(first.rts)
    sym_second = [Symbol(k) for k in range(sr)] + [Symbol(sr + fr + k) for k in range(st)]
    sym_first = [Symbol(sr + k) for k in range(fr)] + [Symbol(sr + fr + st + k) for k in range(ft)]
    first_results = [replace(r, None, sym_first) for r in first.results]
    results = tuple(replace(r, first_results, sym_second) for r in second.results)
    amap = AffineMap(len(first.dims), sr + fr + st + ft, results)
    out = IndexingMap.create(amap, first.dims, (*second.ranges, *first.ranges), (*second.rts, *first.rts))
    for e, iv in second.constraints.items():
        out._add_constraint(replace(e, first_results, sym_second), iv)
    for e, iv in first.constraints.items():
        out._add_constraint(replace(e, None, sym_first), iv)
    for r, v in zip(first_results, second.dims):
        out._add_constraint(r, v.bounds)
    return out


def permutation_map(perm: Sequence[int], sizes: Sequence[int]) -> IndexingMap:
    """``(d...) -> (d_{perm[0]}, d_{perm[1]}, ...)`` over a tensor of the given sizes."""
    return IndexingMap.from_tensor_sizes([Dim(p) for p in perm], sizes)


def physical_maps(sizes: Sequence[int], minor_to_major: Sequence[int]) -> tuple[IndexingMap, IndexingMap]:
    """(logical -> physical, physical -> logical) index maps of a layout."""
    order = list(reversed(minor_to_major))
    inverse = [order.index(k) for k in range(len(order))]
    return permutation_map(order, sizes), permutation_map(inverse, [sizes[k] for k in order])
