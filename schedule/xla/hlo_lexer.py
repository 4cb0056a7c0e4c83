"""The tokens of HLO text as XLA prints it, each with its line and column.

Comments (``/* ... */``, ``// ...`` to the end of the line) and whitespace separate tokens and
are dropped; newlines mean nothing to the grammar. A token is a string literal (in double
quotes, or single quotes as in ``mesh['axis_0'=4]``), punctuation (``{ } ( ) [ ] , = : ; * ?
-> <= ...``, and the ``# < > @`` of attributes written in MLIR's syntax), a word that starts
with a letter, ``%`` or ``_`` (names, element types, opcodes, keywords; ``-`` may join
parts, as in ``fused-computation``, but ``->`` ends a word), or a number: a word that starts
with a digit or a sign (XLA's compound numbers too, such as ``2x3``, ``1_1x0_0``, ``1e-05``,
``-inf``). What a word or number means is the parser's business.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from schedule.base.errors import TeError


class HloParseError(TeError, ValueError):
    """HLO text that does not parse: the one error type of the lexer and the parser. With a
    *line* and *column*, the message starts with them."""

    def __init__(self, message: str, line: int | None = None, column: int | None = None) -> None:
        super().__init__(f"line {line}, column {column}: {message}" if line is not None else message)
        self.line, self.column = line, column


class Token(NamedTuple):
    kind: str  # "word", "number", "string", "punct" or "end"
    text: str
    line: int
    column: int
    offset: int  # in the source, so that a parser can quote a span of it


_TOKEN = re.compile(r"""
    (?P<space>[ \t\r\n\f\v]+)
  | (?P<comment>/\*.*?\*/|//[^\n]*)
  | (?P<unclosed>/\*)
  | (?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')
  | (?P<number>(?:[-+](?=[0-9A-Za-z.])|(?=\d))(?:\d|\.\d|[A-Za-z])(?:[eE][-+](?=\d)|[A-Za-z0-9_.])*)
  | (?P<word>[A-Za-z_%$][A-Za-z0-9_.$]*(?:-(?!>)[A-Za-z0-9_.$]+)*)
  | (?P<punct>\.\.\.|->|<=|[{}()\[\],=:;*?\#<>@!|&^~/])
""", re.S | re.X)


def tokenize(text: str) -> list[Token]:
    """The tokens of *text*, ending with one of kind ``"end"``.

    :raises HloParseError: for an unterminated comment or string, or a character no token
        starts with.
    """
    tokens: list[Token] = []
    append = tokens.append
    line, line_start, at = 1, 0, 0
    for m in _TOKEN.finditer(text):  # one pass in C; a gap between matches is a bad character
        start = m.start()
        if start != at:
            _fail(text, at, line, at - line_start + 1)
        kind = m.lastgroup
        at = m.end()
        if kind == "space" or kind == "comment":
            newlines = text.count("\n", start, at)
            if newlines:
                line += newlines
                line_start = text.rfind("\n", start, at) + 1
            continue
        if kind == "unclosed":
            _fail(text, start, line, start - line_start + 1)
        append(Token(kind, m.group(), line, start - line_start + 1, start))  # type: ignore[arg-type]
        if kind == "string" and (newlines := text.count("\n", start, at)):
            line += newlines
            line_start = text.rfind("\n", start, at) + 1
    if at != len(text):
        _fail(text, at, line, at - line_start + 1)
    append(Token("end", "", line, at - line_start + 1, at))
    return tokens


def _fail(text: str, at: int, line: int, column: int) -> None:
    if text.startswith("/*", at):
        raise HloParseError("a comment opened here is never closed ('*/')", line, column)
    if text[at] in "\"'":
        raise HloParseError("a string opened here is never closed", line, column)
    raise HloParseError(f"unexpected character {text[at]!r}", line, column)


def unquote(token: Token) -> str:
    """The value of a string token (C escapes resolved)."""
    body = token.text[1:-1]
    if "\\" not in body:
        return body
    return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
