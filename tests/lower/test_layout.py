"""Tiled layouts: the document's numbers, and every formula against a brute-force
pad-reshape-transpose with NumPy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import schedule as te
from lower import Layout
from schedule.ir.evaluate import evaluate


def brute_force_positions(dims, minor_to_major, tiles):
    """Each element's memory position, by padding, reshaping and transposing a NumPy array
    of logical ids as the document describes (repeated tiles apply to the minor dims)."""
    ids = np.arange(int(np.prod(dims))).reshape(dims)
    a = np.transpose(ids, list(reversed(minor_to_major))) if dims else ids
    a = a.astype(float)
    for tile in tiles:
        k = len(tile)
        head = a.shape[:a.ndim - k]
        shape = list(a.shape[a.ndim - k:])
        # combine '*' dims into the next minor one
        t = list(tile)
        i = 0
        while i < len(t):
            if t[i] == -1:
                shape[i + 1] *= shape[i]
                del shape[i], t[i]
            else:
                i += 1
        a = a.reshape(*head, *shape)
        padded = [-(-n // s) * s for n, s in zip(shape, t)]
        a = np.pad(a, [(0, 0)] * len(head) + [(0, p - n) for p, n in zip(padded, shape)], constant_values=np.nan)
        split = [x for p, s in zip(padded, t) for x in (p // s, s)]
        a = a.reshape(*head, *split)
        h = len(head)
        order = list(range(h)) + [h + 2 * i for i in range(len(t))] + [h + 2 * i + 1 for i in range(len(t))]
        a = np.transpose(a, order)
    flat = a.reshape(-1)
    positions = np.empty(int(np.prod(dims)), dtype=np.int64)
    for pos, v in enumerate(flat):
        if not np.isnan(v):
            positions[int(v)] = pos
    return positions.reshape(dims), flat.size


def test_figure_1_element_2_3_is_at_17():
    lay = Layout.parse("F32[3,5]{1,0:(2,2)}")
    assert str(lay) == "F32[3,5]{1,0:(2,2)}"
    assert lay.physical_size == 24
    assert lay.linear_index((2, 3)) == 17


def test_figure_2_numbering_matches_pad_reshape_transpose():
    lay = Layout.parse("F32[4,8]{1,0:(2,4)(2,1)}")
    assert str(lay) == "F32[4,8]{1,0:(2,4)(2,1)}"
    want, size = brute_force_positions((4, 8), (1, 0), [(2, 4), (2, 1)])
    assert np.array_equal(lay.linear_indices(), want) and lay.physical_size == size
    # within a 2x4 tile, the 2x1 tiles pair vertical neighbours
    assert lay.linear_indices()[:2, :4].tolist() == [[0, 2, 4, 6], [1, 3, 5, 7]]


def test_combined_dimensions_behave_as_the_merged_shape():
    five = Layout.parse("F32[2,7,8,11,10]{4,3,2,1,0:(*,*,2,*,3)}")
    two = Layout.parse("F32[112,110]{1,0:(2,3)}")
    assert str(five) == "F32[2,7,8,11,10]{4,3,2,1,0:(*,*,2,*,3)}"
    assert np.array_equal(five.linear_indices().reshape(112, 110), two.linear_indices())
    assert five.physical_size == two.physical_size == 56 * 2 * 37 * 3


@pytest.mark.parametrize("text", ["F32[5,3]{0,1:(2,2)}", "F32[3,5,4]{2,0,1:(2,3)}", "F32[7,6]{1,0:(4,4)(2,2)}",
                                  "F32[3,4,5]{2,1,0:(*,3,2)}", "F32[9]{0:(4)(2)}", "F32[6,10]{1,0:(3)}"])
def test_every_formula_agrees_with_the_brute_force(text):
    lay = Layout.parse(text)
    want, size = brute_force_positions(lay.dims, lay.minor_to_major, lay.tiles)
    assert np.array_equal(lay.linear_indices(), want) and lay.physical_size == size
    m = lay.indexing_map()
    names = [te.var(f"i{k}") for k in range(len(lay.dims))]
    expr = lay.linear_index_expr(names)
    for index in itertools.product(*(range(n) for n in lay.dims)):
        assert lay.linear_index(index) == want[index] == m.evaluate(list(index))[0]
        assert evaluate(expr, dict(zip(names, index))) == want[index]


def test_physical_conversions_round_trip_with_zero_padding():
    lay = Layout.parse("F32[3,5]{1,0:(2,2)}")
    x = np.arange(1, 16, dtype="float32").reshape(3, 5)
    flat = lay.to_physical(x)
    assert flat.shape == (24,) and np.count_nonzero(flat) == 15
    assert np.array_equal(lay.from_physical(flat), x)


@pytest.mark.parametrize("text, message", [
    ("F32[3,5]{1,0:(2,0)}", "a tile size that is positive at column 17"),
    ("F32[3,5]{1,0:(2,*)}", "'\\*' must not be last"),
    ("F32[3,5]{1,1}", "not a permutation"),
    ("F32[3,5]{1,0:(2,2,2)}", "more dimensions"),
    ("F32(3,5)", r"expected '\[' after the element type at column 4"),
    ("F32[3,5]{1,0::(2,2)}", r"expected a tile such as \(2,2\) after ':' at column 14"),
    ("U8[2,3,,4,5]{3,2,1,0}", "expected a dimension size at column 8"),
    ("F32[3,5]{1,0:(2,2)} junk", "expected the end of the layout at column 21"),
    ("F32[3,5]{1,0:(2,2}", "expected ',' or '\\)' at column 18"),
    ("F32[3 5]{1,0}", "expected ',' or '\\]' at column 7"),
    ("F32[3,5]{1,0:(-2,2)}", "expected a tile size .* at column 15 of .*, found '-'"),
])
def test_bad_layouts_are_refused(text, message):
    with pytest.raises(ValueError, match=message):
        Layout.parse(text)


@pytest.mark.parametrize("value", [None, 3, b"F32[3]"])
def test_a_layout_that_is_not_text_is_a_type_error(value):
    with pytest.raises(TypeError, match="a layout is text such as 'F32"):
        Layout.parse(value)


def test_plot_writes_the_figures(tmp_path):
    pytest.importorskip("matplotlib")
    for name, text in (("figure1.png", "F32[3,5]{1,0:(2,2)}"), ("figure2.png", "F32[4,8]{1,0:(2,4)(2,1)}")):
        path = tmp_path / name
        Layout.parse(text).plot(str(path))
        assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000


def test_tiled_view_is_the_pad_reshape_transpose_of_the_document():
    lay = Layout.parse("F32[3,5]{1,0:(2,2)}")
    x = np.arange(1, 16).reshape(3, 5)
    padded = np.pad(x, ((0, 1), (0, 1)))                       # pad to (4, 6)
    want = padded.reshape(2, 2, 3, 2).transpose(0, 2, 1, 3)    # (rows/2, 2, cols/2, 2) -> tiles first
    assert np.array_equal(lay.tiled_view(x), want)
