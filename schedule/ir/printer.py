"""Expression text in TVM's legacy format (DESIGN.md, "Printed IR").

Binary arithmetic is fully parenthesised: ``(a + b)``, ``(a - b)``, ``(a*b)``, ``(a/b)``,
``(a % b)``; ``floordiv(a, b)``, ``min(a, b)``, ``select(c, a, b)``; int32 constants print bare,
other integers as ``(int64)16``, float32 constants as ``2.000000f``.
"""

from __future__ import annotations

import math
import sys

from schedule.ir import expr as _expr
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    BinaryOp,
    Call,
    Cast,
    CmpOp,
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
    ProducerLoad,
    Reduce,
    Select,
    StringImm,
    Sub,
    Var,
)
from schedule.ir.functor import ExprFunctor

_INFIX = {Add: " + ", Sub: " - ", Mul: "*", Div: "/", Mod: " % ",
          EQ: " == ", NE: " != ", LT: " < ", LE: " <= ", GT: " > ", GE: " >= ",
          And: " && ", Or: " || "}
_CALL_LIKE = {FloorDiv: "floordiv", FloorMod: "floormod", Min: "min", Max: "max"}
_FLOAT_SUFFIX = {"float32": "f", "float16": "h", "float64": ""}


def format_float(value: float, dtype: str) -> str:
    """A float constant as the legacy printer writes it: ``2.000000f``."""
    if math.isnan(value):
        text = "nan"
    elif math.isinf(value):
        text = "inf" if value > 0 else "-inf"
    else:
        text = f"{value:f}"
    return text + _FLOAT_SUFFIX.get(dtype, "")


def format_int(value: int, dtype: str) -> str:
    """An integer constant: bare for int32, ``(int64)16`` otherwise."""
    return str(value) if dtype == "int32" else f"({dtype}){value}"


class ExprPrinter(ExprFunctor[str]):
    """Render one expression as text; loads print as ``A(i, j)``."""

    def visit_int_imm(self, e: IntImm) -> str:
        return format_int(e.value, e.dtype)

    def visit_float_imm(self, e: FloatImm) -> str:
        return format_float(e.value, e.dtype)

    def visit_buffer_arg(self, e: Expr) -> str:
        return e.buffer.name  # type: ignore[attr-defined]

    def visit_string_imm(self, e: StringImm) -> str:
        return '"' + e.value.replace("\\", "\\\\").replace('"', '\\"') + '"'

    def visit_var(self, e: Var) -> str:
        return e.name

    def visit_default(self, e: Expr) -> str:
        if isinstance(e, (BinaryOp, CmpOp, And, Or)):
            kind = type(e)
            if kind in _CALL_LIKE:
                return f"{_CALL_LIKE[kind]}({self(e.a)}, {self(e.b)})"
            return f"({self(e.a)}{_INFIX[kind]}{self(e.b)})"
        if hasattr(e, "print_with"):  # nodes of later layers (flat loads) print themselves
            return e.print_with(self)
        return super().visit_default(e)

    def visit_not(self, e: Not) -> str:
        return f"!{self(e.a)}"

    def visit_select(self, e: Select) -> str:
        return f"select({self(e.condition)}, {self(e.true_value)}, {self(e.false_value)})"

    def visit_ramp(self, e: Expr) -> str:
        return f"ramp({self(e.base)}, {self(e.stride)}, {e.lanes})"  # type: ignore[attr-defined]

    def visit_broadcast(self, e: Expr) -> str:
        return f"x{e.lanes}({self(e.value)})"  # type: ignore[attr-defined]

    def visit_let(self, e: Expr) -> str:
        return f"(let {self(e.var)} = {self(e.value)} in {self(e.body)})"  # type: ignore[attr-defined]

    def visit_cast(self, e: Cast) -> str:
        return f"{e.dtype}({self(e.value)})"

    def visit_call(self, e: Call) -> str:
        return f"{e.name}({', '.join(self(a) for a in e.args)})"

    def visit_producer_load(self, e: ProducerLoad) -> str:
        return f"{e.producer.op.name}({', '.join(self(i) for i in e.indices)})"

    def visit_reduce(self, e: Reduce) -> str:
        c = e.combiner
        axes = ", ".join(
            f"iter_var({iv.var.name}, range(min={self(iv.dom.min)}, ext={self(iv.dom.extent)}))"
            if iv.dom is not None else f"iter_var({iv.var.name}, )" for iv in e.axis)
        return (f"reduce(combiner=comm_reducer(result=[{self._join(c.result)}], "
                f"lhs=[{self._join(c.lhs)}], rhs=[{self._join(c.rhs)}], "
                f"identity_element=[{self._join(c.identity_element)}]), "
                f"source=[{self._join(e.source)}], axis=[{axes}], where={self(e.condition)}, "
                f"value_index={e.value_index})")

    def _join(self, exprs: tuple[Expr, ...]) -> str:
        return ", ".join(self(x) for x in exprs)


_PRINTER = ExprPrinter()


def expr_str(e: Expr) -> str:
    """The legacy text of *e*."""
    return _PRINTER(e)


_expr.install("printer", sys.modules[__name__])  # the node classes' operators, hashing and text call here
