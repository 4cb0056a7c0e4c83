"""``IndexingMap.simplify`` keeps a ``mod`` constraint's points when values or divisors are
negative (XLA's ``a mod b`` lies in ``[0, |b|)``): the two maps that lost or gained points."""

from __future__ import annotations

import pytest

from bound.indexing.indexing_map import IndexingMap


def _values(m: IndexingMap) -> list[int]:
    (d,) = m.dims
    return [v for v in range(-20, 21) if d.bounds.lower <= v <= d.bounds.upper
            and all(iv.lower <= _mod(v, e) <= iv.upper for e, iv in m.constraints.items())]


def _mod(v: int, e) -> int:
    return v % abs(e.rhs.value)


@pytest.mark.parametrize("text, points", [
    ("(d0) -> (d0), domain: d0 in [-4, 5], d0 mod 8 in [4, 4]", [-4, 4]),
    ("(d0) -> (d0), domain: d0 in [0, 9], d0 mod -3 in [2, 2]", [2, 5, 8]),
])
def test_a_mod_constraint_keeps_its_points(text, points):
    m = IndexingMap.parse(text)
    assert _values(m) == points
    s = m.simplify()
    assert _values(s) == points and s.same_relation(m), str(s)
