"""Expression patterns for TVM's rewrite rules: a pattern is written with the operators of the
expressions it matches (``(x - y) + y``), matched against an expression into bindings, and
evaluated under them into a new expression, folding constants as TVM's ``TryConstFold``.

Pattern variables: :class:`PVar` matches any expression (kind ``"expr"``), an ``IntImm``
(``"int"``), a ``FloatImm`` (``"float"``) or a vector's lane count (``"lanes"``); a variable
met twice must match structurally equal expressions. A Python integer in a pattern matches
that integer constant, and evaluates to a constant of its sibling's type.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Broadcast,
    Div,
    Expr,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    Ramp,
    Select,
    Sub,
)
from schedule.ir.functor import structural_equal
from tebound.tvm.arith.const_fold import make_const, try_fold


class Pat:
    """A pattern; the operators build larger patterns."""

    def __add__(self, o: Any) -> Pat: return PNode(Add, self, lift(o))
    def __radd__(self, o: Any) -> Pat: return PNode(Add, lift(o), self)
    def __sub__(self, o: Any) -> Pat: return PNode(Sub, self, lift(o))
    def __rsub__(self, o: Any) -> Pat: return PNode(Sub, lift(o), self)
    def __mul__(self, o: Any) -> Pat: return PNode(Mul, self, lift(o))
    def __rmul__(self, o: Any) -> Pat: return PNode(Mul, lift(o), self)
    def __lt__(self, o: Any) -> Pat: return PNode(LT, self, lift(o))
    def __le__(self, o: Any) -> Pat: return PNode(LE, self, lift(o))
    def __gt__(self, o: Any) -> Pat: return PNode(GT, self, lift(o))
    def __ge__(self, o: Any) -> Pat: return PNode(GE, self, lift(o))
    def __and__(self, o: Any) -> Pat: return PNode(And, self, lift(o))
    def __or__(self, o: Any) -> Pat: return PNode(Or, self, lift(o))
    def __invert__(self) -> Pat: return PNode(Not, self)

    def eq(self, o: Any) -> Pat:
        """``self == o`` as a pattern (``==`` keeps its Python meaning on patterns)."""
        return PNode(EQ, self, lift(o))

    def ne(self, o: Any) -> Pat:
        return PNode(NE, self, lift(o))


class PVar(Pat):
    """A pattern variable of one *kind*: ``expr``, ``int``, ``float`` or ``lanes``."""

    def __init__(self, name: str, kind: str = "expr") -> None:
        self.name, self.kind = name, kind

    def __repr__(self) -> str:
        return self.name


class PInt(Pat):
    """An integer literal: matches the constant, evaluates to it in its sibling's type."""

    def __init__(self, value: int) -> None:
        self.value = value


class PExpr(Pat):
    """A fixed expression: matches a structurally equal one, evaluates to itself."""

    def __init__(self, expr: Expr) -> None:
        self.expr = expr


class PLike(Pat):
    """A constant *value* of the type of pattern *like* (TVM's ``ZeroWithTypeLike``)."""

    def __init__(self, value: int, like: Pat) -> None:
        self.value, self.like = value, like


class PNode(Pat):
    """A node of class *op* over child patterns (an int child of a ramp or broadcast is its lanes)."""

    def __init__(self, op: type, *args: Pat) -> None:
        self.op, self.args = op, args


class PCall(Pat):
    """A pattern evaluated by *fn* from the bindings (results computed by code)."""

    def __init__(self, fn: Callable[[Bindings], Expr]) -> None:
        self.fn = fn


def lift(o: Any) -> Pat:
    if isinstance(o, Pat):
        return o
    if isinstance(o, int) and not isinstance(o, bool):
        return PInt(o)
    if isinstance(o, Expr):
        return PExpr(o)
    raise TypeError(f"pattern: cannot use {o!r}")


def floordiv(a: Any, b: Any) -> Pat: return PNode(FloorDiv, lift(a), lift(b))
def floormod(a: Any, b: Any) -> Pat: return PNode(FloorMod, lift(a), lift(b))
def truncdiv(a: Any, b: Any) -> Pat: return PNode(Div, lift(a), lift(b))
def truncmod(a: Any, b: Any) -> Pat: return PNode(Mod, lift(a), lift(b))
def pmin(a: Any, b: Any) -> Pat: return PNode(Min, lift(a), lift(b))
def pmax(a: Any, b: Any) -> Pat: return PNode(Max, lift(a), lift(b))
def select(c: Any, a: Any, b: Any) -> Pat: return PNode(Select, lift(c), lift(a), lift(b))
def ramp(b: Any, s: Any, lanes: PVar) -> Pat: return PNode(Ramp, lift(b), lift(s), lanes)
def broadcast(v: Any, lanes: PVar) -> Pat: return PNode(Broadcast, lift(v), lanes)
def zero_like(p: Pat) -> Pat: return PLike(0, p)
def one_like(p: Pat) -> Pat: return PLike(1, p)


_FIELDS = {Select: ("condition", "true_value", "false_value"), Ramp: ("base", "stride", "lanes"),
           Broadcast: ("value", "lanes"), Not: ("a",)}


class Bindings(dict):
    """What a match bound: ``m.x`` is an expression, ``m.c1`` the value of an integer or float
    constant (``m.expr("c1")`` the constant itself), a lanes variable its count."""

    kinds: dict[str, str]

    def __getattr__(self, name: str) -> Any:
        try:
            v = self[name]
        except KeyError:
            raise AttributeError(name) from None
        return v.value if isinstance(v, (IntImm, FloatImm)) and self.kinds.get(name) in ("int", "float") else v

    def expr(self, name: str) -> Expr:
        return self[name]

    def ev(self, p: Any) -> Any:
        """Pattern *p* evaluated under these bindings."""
        return evaluate(lift(p), self)


def match(p: Pat, e: Any, b: Bindings) -> bool:
    """Whether *e* matches *p*, extending *b* (left dirty on failure)."""
    if isinstance(p, PVar):
        if p.kind == "int" and not isinstance(e, IntImm):
            return False
        if p.kind == "float" and not isinstance(e, FloatImm):
            return False
        old = b.get(p.name)
        if old is None:
            b[p.name] = e
            b.kinds[p.name] = p.kind
            return True
        if p.kind == "lanes":
            return old == e
        return old is e or structural_equal(old, e)
    if isinstance(p, PNode):
        if type(e) is not p.op:
            return False
        names = _FIELDS.get(p.op, ("a", "b"))
        return all(match(sub, getattr(e, n), b) for sub, n in zip(p.args, names))
    if isinstance(p, PInt):
        return isinstance(e, IntImm) and e.value == p.value
    if isinstance(p, PExpr):
        return structural_equal(p.expr, e)
    raise TypeError(f"pattern: {p!r} cannot be matched")


def match_any(patterns: Pat | Sequence[Pat], e: Expr) -> Bindings | None:
    """The bindings of the first of *patterns* that *e* matches, else None."""
    for p in patterns if isinstance(patterns, (list, tuple)) else (patterns,):
        b = Bindings()
        b.kinds = {}
        if match(p, e, b):
            return b
    return None


def evaluate(p: Pat, b: Bindings, like: Expr | None = None) -> Any:
    """The expression *p* stands for under *b*; an integer literal takes *like*'s type."""
    if isinstance(p, PVar):
        return b[p.name]
    if isinstance(p, PInt):
        return make_const(like.dtype if like is not None else "int32", p.value)
    if isinstance(p, PExpr):
        return p.expr
    if isinstance(p, PLike):
        return make_const(evaluate(p.like, b).dtype, p.value)
    if isinstance(p, PCall):
        return p.fn(b)
    if isinstance(p, PNode):
        if p.op in (Ramp, Broadcast):
            parts = [evaluate(a, b) if not isinstance(a, PInt) else None for a in p.args[:-1]]
            first = next((x for x in parts if x is not None), None)
            parts = [x if x is not None else evaluate(a, b, first) for x, a in zip(parts, p.args[:-1])]
            return p.op(*parts, evaluate(p.args[-1], b))
        known = [None if isinstance(a, PInt) else evaluate(a, b) for a in p.args]
        sibling = next((x for x in known if x is not None), None)
        args = [x if x is not None else evaluate(a, b, sibling) for x, a in zip(known, p.args)]
        return build(p.op, *args)
    raise TypeError(f"pattern: {p!r} cannot be evaluated")


def build(op: type, *args: Expr) -> Expr:
    """Node *op* of *args*, constants folded as TVM's ``TryConstFold``."""
    folded = try_fold(op, *args) if len(args) <= 2 else None
    return folded if folded is not None else op(*args)
