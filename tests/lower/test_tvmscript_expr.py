"""Expressions as TVMScript: the forms TVM v0.13's printer gives (its operators where its own
folding keeps the node, ``T.Div`` for integers, ``T.truncmod``, typed constants), and text
that Python reads back to the same value, parentheses and all."""

from __future__ import annotations

import math
import random

import pytest

import schedule as te
from lower.ir.script.expr import ExprScript, ScriptNames, expr_script, float_text
from schedule.ir import arith
from schedule.ir.evaluate import evaluate
from schedule.ir.expr import (
    EQ,
    GE,
    LT,
    Add,
    And,
    Cast,
    Div,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Let,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    Select,
    Sub,
)

a, b = te.var("a"), te.var("b")
p, q = te.var("p", "bool"), te.var("q", "bool")
DECLARED = "a = T.int32()\nb = T.int32()\n"


@pytest.mark.parametrize("expr, text", [
    (Add(a, b), DECLARED + "a + b"),
    (Sub(a, b), DECLARED + "a - b"),
    (Mul(a, b), DECLARED + "a * b"),
    (FloorDiv(a, b), DECLARED + "a // b"),
    (FloorMod(a, b), DECLARED + "a % b"),
    (Mod(a, b), DECLARED + "T.truncmod(a, b)"),
    (Div(a, b), DECLARED + "T.Div(a, b)"),
    (Min(a, b), DECLARED + "T.min(a, b)"),
    (LT(a, b), DECLARED + "a < b"),
    (EQ(a, b), DECLARED + "a == b"),
    (Add(IntImm("int64", 3), IntImm("int64", 4)), "T.Add(T.int64(3), T.int64(4))"),
    (GE(IntImm("int64", 3), IntImm("int64", 4)), "T.GE(T.int64(3), T.int64(4))"),
    (And(p, q), "p = T.bool()\nq = T.bool()\np and q"),
    (Not(p), "p = T.bool()\nnot p"),
    (Cast("float64", te.var("x", "float32")), 'x = T.float32()\nT.Cast("float64", x)'),
    (Select(arith.const(True), arith.const(0), arith.const(2)), "T.Select(T.bool(True), 0, 2)"),
    (IntImm("int16", 1), "T.int16(1)"),
    (FloatImm("float16", 1.0), "T.float16(1)"),
    (FloatImm("float32", 0.5), "T.float32(0.5)"),
    (te.call_extern("float32", "f", a), 'a = T.int32()\nT.call_extern("float32", "f", a)'),
])
def test_each_form_is_tvms(expr, text):
    assert expr_script(expr) == text


def test_a_let_declares_its_variable_and_names_stay_apart():
    x = te.var("x")
    assert expr_script(Let(x, arith.const(1), x + 1)) == "x = T.int32()\nT.Let(x + 1, where={x: 1})"
    other = te.var("x")
    names = ScriptNames()
    assert ExprScript(names).text(x + other) == "x + x_1"
    assert names(te.var("i.outer"), "i.outer") == "i_outer"


def test_floats_print_as_tvms_printer_prints_them():
    assert [float_text(v) for v in (1.0, 0.1, -2.5, math.inf, -math.inf)] == [
        "1", "0.10000000000000001", "-2.5", '"inf"', '"-inf"']


class _T:
    """What the printed names mean, for reading the text back with Python."""

    @staticmethod
    def int32(v):
        return int(v)

    bool = staticmethod(bool)
    min, max = staticmethod(min), staticmethod(max)

    @staticmethod
    def truncmod(x, y):
        return int(math.fmod(x, y))

    @staticmethod
    def Div(x, y):  # noqa: N802 - TVM's name
        return int(x / y)

    @staticmethod
    def Select(c, t, f):  # noqa: N802 - TVM's name
        return t if c else f

    # Where folding would change the node (two constants), the operator is called by name.
    Add, Sub, Mul = staticmethod(lambda x, y: x + y), staticmethod(lambda x, y: x - y), staticmethod(lambda x, y: x * y)
    FloorDiv, FloorMod = staticmethod(lambda x, y: x // y), staticmethod(lambda x, y: x % y)
    LT, EQ, GE = staticmethod(lambda x, y: x < y), staticmethod(lambda x, y: x == y), staticmethod(lambda x, y: x >= y)
    And, Or = staticmethod(lambda x, y: x and y), staticmethod(lambda x, y: x or y)
    Not = staticmethod(lambda x: not x)


def _random_expr(rng: random.Random, depth: int):
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([a, b, arith.const(rng.randint(1, 9))])
    kind = rng.choice([Add, Sub, Mul, FloorDiv, FloorMod, Mod, Div, Min, Max, "select", "compare"])
    x, y = _random_expr(rng, depth - 1), _random_expr(rng, depth - 1)
    if kind in (FloorDiv, FloorMod, Mod, Div):
        y = Add(Mul(y, y), arith.const(1))  # never 0
    if kind == "select":
        return Select(LT(x, y), x, y)
    if kind == "compare":
        c = rng.choice([LT, EQ, GE])(x, y)
        return Select(Or(And(c, LT(x, arith.const(5))), Not(c)), x, y)
    return kind(x, y)


def test_the_text_reads_back_to_the_same_value_with_pythons_precedence():
    rng = random.Random(7)
    checked = 0
    for _ in range(300):
        e = _random_expr(rng, 4)
        text = ExprScript(ScriptNames()).text(e)
        for av, bv in ((3, -4), (-7, 2), (5, 5)):
            want = evaluate(e, {a: av, b: bv})
            got = eval(text, {"T": _T, "a": av, "b": bv})  # noqa: S307 - our own printed text
            assert got == want, (text, av, bv)
            checked += 1
    assert checked == 900
