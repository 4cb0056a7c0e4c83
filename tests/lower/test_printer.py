"""The legacy text printer on hand-built statements (DESIGN.md "Printed IR")."""

from __future__ import annotations

import schedule as te
from lower import (
    Allocate,
    AttrStmt,
    Buffer,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    Load,
    SeqStmt,
    Store,
)
from schedule.ir.expr import StringImm


def test_allocate_attr_store_and_loops():
    i, j = te.var("i"), te.var("j")
    B = Buffer("B", "float32", (te.const(4), te.const(4)))
    A = Buffer("A", "float32", (te.const(16),))
    store = Store(B, Load(A, i * 4 + j) + 2.0, i * 4 + j)
    body = For(i, te.const(0), te.const(4), ForKind.SERIAL, For(j, te.const(0), te.const(4), ForKind.UNROLLED, store))
    text = str(AttrStmt(B, "storage_scope", StringImm("global"), Allocate(B, body)))
    assert text == (
        '// attr [B] storage_scope = "global"\n'
        "allocate B[float32 * 4 * 4]\n"
        "for (i, 0, 4) {\n"
        "  unrolled (j, 0, 4) {\n"
        "    B[((i*4) + j)] = (A[((i*4) + j)] + 2.000000f)\n"
        "  }\n"
        "}\n")


def test_if_chains_lets_and_evaluate():
    x, y = te.var("x"), te.var("y")
    stmt = IfThenElse(te.likely(x < 16), Evaluate(x),
                      IfThenElse(x < 20, LetStmt(y, x + 1, Evaluate(y * 2)), Evaluate(te.const(0, "int64"))))
    assert str(stmt) == (
        "if (likely((x < 16))) {\n"
        "  x\n"
        "} else if ((x < 20)) {\n"
        "  let y = (x + 1)\n"
        "  (y*2)\n"
        "} else {\n"
        "  (int64)0\n"
        "}\n")


def test_sequences_print_in_order_and_empty_ones_print_nothing():
    x = te.var("x")
    assert str(SeqStmt((Evaluate(x), SeqStmt(()), Evaluate(x + 1)))) == "x\n(x + 1)\n"
