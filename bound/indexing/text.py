"""Indexing maps as XLA prints and parses them.

``(d0, d1)[s0]{rt0} -> (d0 + s0, d1), domain: d0 in [0, 9], d1 in [0, 4], s0 in [0, 3],
rt0 in [0, 7], d0 + s0 in [0, 12]``: default names are ``d{i}``, ``s{i}`` and ``rt{i}``;
constraints print sorted by their text. ``UNDEFINED`` and ``KNOWN EMPTY`` are the two
special states.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bound.indexing import indexing_map as _indexing_map
from bound.indexing.affine_expr import CALLS, AffineExpr, Binary, Const, Dim, Kind, Symbol, build, print_expr
from bound.indexing.indexing_map import AffineMap, IndexingMap, Variable
from bound.indexing.intervals import Interval


def names_of(m: IndexingMap) -> tuple[list[str], list[str], list[str]]:
    """The printed names of dims, range and runtime variables."""
    return ([v.name or f"d{k}" for k, v in enumerate(m.dims)],
            [v.name or f"s{k}" for k, v in enumerate(m.ranges)],
            [v.name or f"rt{k}" for k, v in enumerate(m.rts)])


def expr_text(e: AffineExpr, m: IndexingMap) -> str:
    dims, ranges, rts = names_of(m)
    symbols = [*ranges, *rts]
    return print_expr(e, lambda k: dims[k], lambda k: symbols[k])


def print_indexing_map(m: IndexingMap) -> str:
    if m.affine_map is None:
        return "UNDEFINED"
    if m.is_known_empty:
        return "KNOWN EMPTY"
    dims, ranges, rts = names_of(m)
    head = f"({', '.join(dims)})"
    if ranges:
        head += f"[{', '.join(ranges)}]"
    if rts:
        head += f"{{{', '.join(rts)}}}"
    head += f" -> ({', '.join(expr_text(r, m) for r in m.results)})"
    domain = [f"{n} in {v.bounds}" for n, v in zip([*dims, *ranges, *rts], [*m.dims, *m.ranges, *m.rts])]
    domain += sorted(f"{expr_text(e, m)} in {iv}" for e, iv in m.constraints.items())
    if not domain:
        return head
    return head + ", domain: " + ", ".join(domain)


# -- parsing ----------------------------------------------------------------------------------

class IndexingMapSyntaxError(ValueError):
    """Text that is not an indexing map; the message quotes the position."""


_TOKEN = re.compile(r"\s*(->|-?\d+|[A-Za-z_][A-Za-z0-9_.]*|[()\[\]{},+\-*:])")
_CALL_KINDS = {name: kind for kind, name in CALLS.items()}
_MUL_OPS = {"*": Kind.MUL, "floordiv": Kind.FLOORDIV, "ceildiv": Kind.CEILDIV, "mod": Kind.MOD}
_PRECEDENCE = {"+": 1, "-": 1, **dict.fromkeys(_MUL_OPS, 2), "neg": 3}


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens: list[tuple[str, int]] = []
        pos = 0
        while pos < len(text):
            if text[pos:].strip() == "":
                break
            m = _TOKEN.match(text, pos)
            if m is None:
                raise IndexingMapSyntaxError(f"unexpected character {text[pos]!r} at {pos} in {text!r}")
            self.tokens.append((m.group(1), m.start(1)))
            pos = m.end()
        self.k = 0
        self.names: dict[str, AffineExpr] = {}

    def peek(self, ahead: int = 0) -> str | None:
        k = self.k + ahead
        return self.tokens[k][0] if k < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok != expected):
            where = self.tokens[self.k][1] if self.k < len(self.tokens) else len(self.text)
            want = f"{expected!r}" if expected else "more input"
            raise IndexingMapSyntaxError(f"expected {want} at {where} in {self.text!r}, found {tok!r}")
        self.k += 1
        return tok

    def name_list(self, open_: str, close: str) -> list[str]:
        self.take(open_)
        names = []
        while self.peek() != close:
            names.append(self.identifier())
            if self.peek() == ",":
                self.take(",")
        self.take(close)
        return names

    def identifier(self) -> str:
        tok = self.take()
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", tok):
            raise IndexingMapSyntaxError(f"expected a name in {self.text!r}, found {tok!r}")
        return tok

    def integer(self) -> int:
        tok = self.take()
        if not re.fullmatch(r"-?\d+", tok):
            raise IndexingMapSyntaxError(f"expected an integer in {self.text!r}, found {tok!r}")
        return int(tok)

    # expr := term (('+' | '-') term)* ; term := unary (op unary)* ; unary := '-' unary | atom ;
    # atom := '(' expr ')' | integer | name. Read with explicit stacks of operands and operators
    # (operator precedence), so that 10,000 nested parentheses or minuses need no recursion.
    def expr(self) -> AffineExpr:
        values: list[AffineExpr] = []
        ops: list[str] = []  # "(", "neg", "+", "-" and the multiplicative operators
        operand = True  # an operand is expected next (else an operator or the end)
        depth = 0  # parentheses open in *ops*
        while True:
            tok = self.peek()
            if operand:
                if tok == "-":
                    self.take()
                    ops.append("neg")
                elif tok == "(":
                    self.take()
                    ops.append("(")
                    depth += 1
                elif tok is not None and re.fullmatch(r"-?\d+", tok):
                    self.take()
                    values.append(Const(int(tok)))
                    operand = False
                elif tok in _CALL_KINDS and self.peek(1) == "(" and tok not in self.names:
                    self.take()
                    self.take("(")
                    first = self.expr()
                    self.take(",")
                    second = self.expr()
                    self.take(")")
                    values.append(build(_CALL_KINDS[tok], first, second))
                    operand = False
                elif tok is not None and tok in self.names:
                    self.take()
                    values.append(self.names[tok])
                    operand = False
                elif tok is not None and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_.]*", tok) and tok not in _MUL_OPS \
                        and tok not in ("in", "domain"):
                    raise IndexingMapSyntaxError(f"unknown name {tok!r} in {self.text!r}")
                else:
                    where = self.tokens[self.k][1] if self.k < len(self.tokens) else len(self.text)
                    raise IndexingMapSyntaxError(f"expected an expression at {where} in {self.text!r}, "
                                                 f"found {tok!r}")
                continue
            if tok in ("+", "-") or self._negative_literal():
                self._reduce(values, ops, 1)
                if tok in ("+", "-"):
                    self.take()
                ops.append(tok if tok in ("+", "-") else "+")  # "d0 -5" lexes the minus into the literal
                operand = True
            elif tok in _MUL_OPS:
                self._reduce(values, ops, 2)
                ops.append(self.take())
                operand = True
            elif tok == ")" and depth:
                self.take()
                self._reduce(values, ops, 0)
                ops.pop()  # its "("
                depth -= 1
            else:
                break
        self._reduce(values, ops, 0)
        if ops:
            raise IndexingMapSyntaxError(f"expected ')' at the end of {self.text!r}")
        return values[0]

    def _reduce(self, values: list[AffineExpr], ops: list[str], precedence: int) -> None:
        """Apply the operators on top of *ops* that bind at least as tightly as *precedence*
        (down to an open parenthesis)."""
        while ops and ops[-1] != "(" and _PRECEDENCE[ops[-1]] >= precedence:
            op = ops.pop()
            if op == "neg":
                values[-1] = -values[-1]
                continue
            rhs, lhs = values.pop(), values.pop()
            if op in ("+", "-"):
                values.append(lhs + rhs if op == "+" else lhs - rhs)
                continue
            if op != "*" and isinstance(rhs, Const) and rhs.value == 0:
                raise IndexingMapSyntaxError(f"{op} by 0 is undefined, in {self.text!r}")
            values.append(build(_MUL_OPS[op], lhs, rhs))

    def _negative_literal(self) -> bool:
        tok = self.peek()
        return tok is not None and re.fullmatch(r"-\d+", tok) is not None

    def interval(self) -> Interval:
        self.take("[")
        lo = self.integer()
        self.take(",")
        hi = self.integer()
        self.take("]")
        return Interval(lo, hi)


def _stored(name: str, default: str) -> str:
    return "" if name == default else name


def _check_text(text: object) -> None:
    if not isinstance(text, str):
        raise TypeError(f"an indexing map is text such as '(d0) -> (d0), domain: d0 in [0, 9]', not "
                        f"{type(text).__name__}")


def parse_indexing_map(text: str) -> IndexingMap:
    """The map *text* prints (see the module docstring); constraints go through AddConstraint.

    :raises TypeError: if *text* is not a string.
    :raises IndexingMapSyntaxError: (a ValueError) for text that is not a map, a name given
        twice, or a division by 0.
    """
    _check_text(text)
    if text.strip() == "UNDEFINED":
        return IndexingMap.undefined()
    p = _Parser(text)
    dims = p.name_list("(", ")")
    ranges = p.name_list("[", "]") if p.peek() == "[" else []
    rts = p.name_list("{", "}") if p.peek() == "{" else []
    seen: set[str] = set()
    for n in [*dims, *ranges, *rts]:
        if n in seen:
            raise IndexingMapSyntaxError(f"the name {n!r} is given twice in {text!r}; each dimension and symbol "
                                         "needs a name of its own")
        seen.add(n)
    for k, n in enumerate(dims):
        p.names[n] = Dim(k)
    for k, n in enumerate([*ranges, *rts]):
        p.names[n] = Symbol(k)
    p.take("->")
    p.take("(")
    results: list[AffineExpr] = []
    while p.peek() != ")":
        results.append(p.expr())
        if p.peek() == ",":
            p.take(",")
    p.take(")")
    bounds: dict[str, Interval] = {}
    constraints: list[tuple[AffineExpr, Interval]] = []
    if p.peek() == ",":
        p.take(",")
        p.take("domain")
        p.take(":")
        for n in [*dims, *ranges, *rts]:
            got = p.identifier()
            if got != n:
                raise IndexingMapSyntaxError(f"the domain must list {n!r} next, not {got!r}, in {text!r}")
            p.take("in")
            bounds[n] = p.interval()
            if p.peek() == ",":
                p.take(",")
        while p.peek() is not None:
            e = p.expr()
            p.take("in")
            constraints.append((e, p.interval()))
            if p.peek() == ",":
                p.take(",")
    elif dims or ranges or rts:
        raise IndexingMapSyntaxError(f"missing the domain in {text!r}")
    missing = [n for n in [*dims, *ranges, *rts] if n not in bounds]
    if missing:
        raise IndexingMapSyntaxError(f"no bounds for {missing[0]!r} in {text!r}")
    amap = AffineMap(len(dims), len(ranges) + len(rts), tuple(results))
    return IndexingMap.create(
        amap,
        [Variable(bounds[n], _stored(n, f"d{k}")) for k, n in enumerate(dims)],
        [Variable(bounds[n], _stored(n, f"s{k}")) for k, n in enumerate(ranges)],
        [Variable(bounds[n], _stored(n, f"rt{k}")) for k, n in enumerate(rts)],
        constraints)


def parse_affine_expr(text: str, dims: Sequence[str] = (), symbols: Sequence[str] = ()) -> AffineExpr:
    """One expression over named dims and symbols."""
    _check_text(text)
    p = _Parser(text)
    p.names = {**{n: Dim(k) for k, n in enumerate(dims)}, **{n: Symbol(k) for k, n in enumerate(symbols)}}
    e = p.expr()
    if p.peek() is not None:
        raise IndexingMapSyntaxError(f"unexpected {p.peek()!r} after the expression in {text!r}")
    return e


def isl_text(m: IndexingMap) -> str:
    """*m* as an isl relation ``{ [d...] -> [results...] : domain }``; symbols are existential.

    :raises ValueError: for undefined maps and products of variables (not quasi-affine).
    """
    if m.affine_map is None:
        raise ValueError("an undefined map has no relation")
    dims = [f"d{k}" for k in range(len(m.dims))]
    outs = [f"o{k}" for k in range(len(m.results))]
    if m.is_known_empty:
        return f"{{ [{', '.join(dims)}] -> [{', '.join(outs)}] : 1 = 0 }}"
    return relation_text(m, dims, outs)


def _isl_expr(e: AffineExpr, dims: Sequence[str], syms: Sequence[str]) -> str:
    if isinstance(e, Const):
        return f"({e.value})"
    if isinstance(e, Dim):
        return dims[e.position]
    if isinstance(e, Symbol):
        return syms[e.position]
    assert isinstance(e, Binary)
    a, b = _isl_expr(e.lhs, dims, syms), _isl_expr(e.rhs, dims, syms)
    if e.op == Kind.ADD:
        return f"({a} + {b})"
    if e.op in CALLS:
        return f"{CALLS[e.op]}({a}, {b})"
    if not isinstance(e.rhs, Const):
        raise ValueError(f"not quasi-affine: {print_expr(e, lambda k: dims[k], lambda k: syms[k])}")
    if e.op == Kind.MUL:
        return f"({e.rhs.value} * {a})"
    c = e.rhs.value
    if c < 0 and e.op in (Kind.FLOORDIV, Kind.CEILDIV):  # isl divides by positive constants only
        a, c = f"(-{a})", -c
    if e.op == Kind.FLOORDIV:
        return f"floor({a} / {c})"
    if e.op == Kind.CEILDIV:
        return f"ceil({a} / {c})"
    return f"({a} mod {abs(e.rhs.value)})"


def relation_text(m: IndexingMap, inputs: Sequence[str], outputs: Sequence[str] | None,
                  extra: Sequence[str] = ()) -> str:
    """The isl relation ``{ [inputs] -> [outputs] : ... }`` (a set when *outputs* is None)
    over the names ``d<k>`` (dims), ``s<k>`` (symbols) and ``o<k>`` (results); every other
    name is existential; *extra* adds conditions.

    :raises ValueError: for products of variables (not quasi-affine).
    """
    dims = [f"d{k}" for k in range(len(m.dims))]
    syms = [f"s{k}" for k in range(m.num_symbols)]
    outs = [f"o{k}" for k in range(len(m.results))]
    conds = [f"{v.bounds.lower} <= {n} <= {v.bounds.upper}"
             for n, v in zip([*dims, *syms], [*m.dims, *m.ranges, *m.rts])]
    conds += [f"{iv.lower} <= {_isl_expr(e, dims, syms)} <= {iv.upper}" for e, iv in m.constraints.items()]
    conds += [f"{o} = {_isl_expr(r, dims, syms)}" for o, r in zip(outs, m.results)]
    conds += list(extra)
    hidden = [n for n in [*dims, *syms, *outs] if n not in inputs and n not in (outputs or ())]
    body = " and ".join(conds) or "true"
    if hidden:
        body = f"exists ({', '.join(hidden)} : {body})"
    head = f"[{', '.join(inputs)}]" + (f" -> [{', '.join(outputs)}]" if outputs is not None else "")
    return f"{{ {head} : {body} }}"


_indexing_map._impl.parse = parse_indexing_map  # what IndexingMap.parse, str() and the isl checks call
_indexing_map._impl.text = print_indexing_map
_indexing_map._impl.isl_text = isl_text
