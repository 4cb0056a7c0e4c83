"""The indexing-map text parser: deep nesting at the default recursion limit, named errors for
what is not a map, names given once, and no division by 0."""

from __future__ import annotations

import pytest

from bound import IndexingMap
from bound.indexing.text import IndexingMapSyntaxError, parse_affine_expr


@pytest.mark.parametrize("wrap", ["parens", "minuses"])
def test_ten_thousand_nested_levels_parse_without_recursion(wrap):
    inner = "(" * 10_000 + "d0 + 1" + ")" * 10_000 if wrap == "parens" else "-" * 10_001 + "d0"
    m = IndexingMap.parse(f"(d0) -> ({inner}), domain: d0 in [0, 9]")
    assert str(m) == ("(d0) -> (d0 + 1), domain: d0 in [0, 9]" if wrap == "parens"
                      else "(d0) -> (-d0), domain: d0 in [0, 9]")


@pytest.mark.parametrize("value", [None, 3, b"(d0) -> (d0)"])
def test_a_map_that_is_not_text_is_a_type_error(value):
    with pytest.raises(TypeError, match="an indexing map is text such as"):
        IndexingMap.parse(value)
    with pytest.raises(TypeError, match="an indexing map is text"):
        parse_affine_expr(value)


@pytest.mark.parametrize("text", ["(d0, d0) -> (d0), domain: d0 in [0, 9], d0 in [0, 9]",
                                  "(d0)[d0] -> (d0), domain: d0 in [0, 9], d0 in [0, 3]",
                                  "(d0)[s0]{s0} -> (d0), domain: d0 in [0, 9], s0 in [0, 3], s0 in [0, 1]"])
def test_a_name_given_twice_is_refused(text):
    with pytest.raises(IndexingMapSyntaxError, match="is given twice"):
        IndexingMap.parse(text)


@pytest.mark.parametrize("op", ["mod", "floordiv", "ceildiv"])
def test_a_division_by_zero_is_refused(op):
    with pytest.raises(IndexingMapSyntaxError, match=f"{op} by 0 is undefined"):
        IndexingMap.parse(f"(d0) -> (d0 {op} 0), domain: d0 in [0, 9]")


def test_precedence_and_signs_read_as_xla_writes_them():
    m = IndexingMap.parse("(d0, d1) -> (d0 * 4 + d1 floordiv 2 - -3, -d0 mod 3, d0 -5, -(d0 + d1) * 2), "
                          "domain: d0 in [0, 9], d1 in [0, 3]")
    assert str(m) == ("(d0, d1) -> (d0 * 4 + d1 floordiv 2 + 3, -d0 mod 3, d0 - 5, (d0 + d1) * -2), "
                      "domain: d0 in [0, 9], d1 in [0, 3]")


@pytest.mark.parametrize("text, message", [
    ("(d0) -> (d0 +), domain: d0 in [0, 9]", "expected an expression at 13"),
    ("(d0) -> (d1), domain: d0 in [0, 9]", "unknown name 'd1'"),
    ("(d0) -> ((d0), domain: d0 in [0, 9]", "expected"),
])
def test_broken_expressions_name_the_problem(text, message):
    with pytest.raises(IndexingMapSyntaxError, match=message):
        IndexingMap.parse(text)
