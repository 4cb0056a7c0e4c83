"""isl relations given as text (XLA's indexing maps): equality, emptiness, inverses."""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import islpy as isl

from bound.errors import NonAffineError
from bound.isl.to_expr import rational

_DT = isl.dim_type


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
        c = rational(aff.get_coefficient_val(_DT.in_, i))
        if c:
            items.append((c, ("in", i)))
    for i in range(aff.dim(_DT.div)):
        c = rational(aff.get_coefficient_val(_DT.div, i))
        if c:
            items.append((c, ("div", aff_terms(aff.get_div(i)))))
    const = rational(aff.get_constant_val())
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
