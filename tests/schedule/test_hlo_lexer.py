"""The HLO lexer: XLA's compound words split as XLA's own lexer splits them, nothing of the
text dropped but whitespace and comments, and positions that name the right line and column."""

from __future__ import annotations

import bisect
import re
from pathlib import Path

import pytest

from schedule.xla.hlo_lexer import HloParseError, tokenize, unquote

CORPUS = Path(__file__).resolve().parents[3] / "shared" / "hlo_corpus"
_GAP = re.compile(r"(?:\s|/\*.*?\*/|//[^\n]*)*", re.S)


def _kinds(text):
    return [(t.kind, t.text) for t in tokenize(text)[:-1]]


def test_compound_words_split_as_xla_splits_them():
    assert _kinds("dim_labels=b01f_01io->b01f") == [
        ("word", "dim_labels"), ("punct", "="), ("word", "b01f_01io"), ("punct", "->"), ("word", "b01f")]
    assert _kinds("%fused-computation.1 (p: f32[<=4,?]) -> (f32[], s4[2])") == [
        ("word", "%fused-computation.1"), ("punct", "("), ("word", "p"), ("punct", ":"), ("word", "f32"),
        ("punct", "["), ("punct", "<="), ("number", "4"), ("punct", ","), ("punct", "?"), ("punct", "]"),
        ("punct", ")"), ("punct", "->"), ("punct", "("), ("word", "f32"), ("punct", "["), ("punct", "]"),
        ("punct", ","), ("word", "s4"), ("punct", "["), ("number", "2"), ("punct", "]"), ("punct", ")")]
    assert _kinds("window={size=2x3 pad=1_1x0_0}, epsilon=1e-05, c={-inf, +0.5, -nan, 1.5e+10}") == [
        ("word", "window"), ("punct", "="), ("punct", "{"), ("word", "size"), ("punct", "="), ("number", "2x3"),
        ("word", "pad"), ("punct", "="), ("number", "1_1x0_0"), ("punct", "}"), ("punct", ","),
        ("word", "epsilon"), ("punct", "="), ("number", "1e-05"), ("punct", ","), ("word", "c"), ("punct", "="),
        ("punct", "{"), ("number", "-inf"), ("punct", ","), ("number", "+0.5"), ("punct", ","),
        ("number", "-nan"), ("punct", ","), ("number", "1.5e+10"), ("punct", "}")]
    assert _kinds("f32[8,128]{1,0:T(8,128)(2,1)S(1)}")[6:] == [
        ("punct", "{"), ("number", "1"), ("punct", ","), ("number", "0"), ("punct", ":"), ("word", "T"),
        ("punct", "("), ("number", "8"), ("punct", ","), ("number", "128"), ("punct", ")"), ("punct", "("),
        ("number", "2"), ("punct", ","), ("number", "1"), ("punct", ")"), ("word", "S"), ("punct", "("),
        ("number", "1"), ("punct", ")"), ("punct", "}")]


def test_comments_and_newlines_separate_tokens_and_positions_are_kept():
    tokens = tokenize('a, /*index=5*/ b // trailing\n  "x\\"y" /* two\nlines */ c')
    assert [(t.text, t.line, t.column) for t in tokens] == [
        ("a", 1, 1), (",", 1, 2), ("b", 1, 16), ('"x\\"y"', 2, 3), ("c", 3, 10), ("", 3, 11)]
    assert unquote(tokens[3]) == 'x"y'


@pytest.mark.parametrize("text, message, line, column", [
    ("a\n  /* never closed", "comment opened here is never closed", 2, 3),
    ('x = "open', "string opened here is never closed", 1, 5),
    ("ok\nok \\bad", "unexpected character '\\\\\\\\'", 2, 4),
])
def test_errors_name_line_and_column(text, message, line, column):
    with pytest.raises(HloParseError, match=f"line {line}, column {column}: .*{message}") as info:
        tokenize(text)
    assert (info.value.line, info.value.column) == (line, column)
    assert isinstance(info.value, ValueError)


@pytest.mark.skipif(not CORPUS.is_dir(), reason="no HLO corpus")
def test_every_corpus_module_tokenizes_without_dropping_anything():
    files = sorted(CORPUS.glob("*.hlo"))
    assert len(files) == 716
    for path in files:
        text = path.read_text()
        tokens = tokenize(text)
        starts = [0, *(m.end() for m in re.finditer("\n", text))]
        at = 0
        for t in tokens[:-1]:
            if t.offset != at:
                assert _GAP.fullmatch(text, at, t.offset), (path.name, t)
            assert text.startswith(t.text, t.offset)
            line = bisect.bisect_right(starts, t.offset)
            assert (t.line, t.column) == (line, t.offset - starts[line - 1] + 1), (path.name, t)
            at = t.offset + len(t.text)
        assert _GAP.fullmatch(text, at), path.name
