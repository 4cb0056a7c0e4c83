"""Expressions as TVMScript writes them (TVM v0.9-v0.14's printer): ``a + b * 2``,
``T.float32(1)``, ``T.Cast("float64", a)``, ``T.max(a, b)``, ``A_1[i * 16 + j]``.

An operator prints as Python's only where TVM's own folding would rebuild the same node from
its operands (``a + b``, but ``T.Add(3, 4)`` for two constants); parentheses follow Python's
precedence, a right operand of equal precedence keeping them. An int32 constant is a bare
number, other constants name their type (``T.int64(3)``, ``T.bool(True)``); floats print with
17 significant digits, as TVM's printer does.
"""

from __future__ import annotations

import math
from collections.abc import Callable

from lower.ir.stmt import BufferView, Load
from schedule.ir import arith
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
    Call,
    Cast,
    Div,
    Expr,
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
    Ramp,
    Select,
    StringImm,
    Sub,
    Var,
)
from schedule.ir.functor import ExprFunctor

#: Python's precedence levels, as TVM's printer ranks them.
OR, AND, NOT, COMPARE, ADD, MULT, UNARY, ATOM = 3, 4, 5, 6, 11, 12, 13, 15
#: Sugared operators: the node, its Python spelling and precedence, TVM's name, and the
#: folding function whose result must be the node itself for the sugar to be used.
_OPERATORS: dict[type, tuple[str, int, str, Callable[[Expr, Expr], Expr]]] = {
    Add: ("+", ADD, "Add", arith.add), Sub: ("-", ADD, "Sub", arith.sub), Mul: ("*", MULT, "Mul", arith.mul),
    FloorDiv: ("//", MULT, "FloorDiv", arith.floordiv), FloorMod: ("%", MULT, "FloorMod", arith.floormod),
    LT: ("<", COMPARE, "LT", arith.lt), LE: ("<=", COMPARE, "LE", arith.le), EQ: ("==", COMPARE, "EQ", arith.eq_node),
    NE: ("!=", COMPARE, "NE", arith.ne_node), GT: (">", COMPARE, "GT", arith.gt), GE: (">=", COMPARE, "GE", arith.ge),
    And: ("and", AND, "And", arith.logical_and), Or: ("or", OR, "Or", arith.logical_or),
}
#: Nodes printed as calls of ``T.<name>(a, b)``.
_CALLED = {Mod: "truncmod", Min: "min", Max: "max"}
#: Intrinsics whose TVMScript name is not ours (ours: TVMScript's), and those whose text gives
#: their dtype first; the reader uses both.
RENAMED = {"tvm_if_then_else": "if_then_else"}
DTYPE_FIRST = frozenset({"call_extern", "call_pure_extern", "reinterpret", "call_llvm_intrin",
                         "call_llvm_pure_intrin"})


class ScriptNames:
    """Identifiers for variables and buffers: a name made a Python identifier (``i.outer`` is
    ``i_outer``), then ``_1``, ``_2`` ... where it is taken."""

    def __init__(self) -> None:
        self._names: dict[int, str] = {}
        self._taken: set[str] = {"T", "I"}
        self.order: list[object] = []  # what was named, in order

    def __call__(self, obj: object, base: str) -> str:
        found = self._names.get(id(obj))
        if found is not None:
            return found
        stem = "".join(c if c.isalnum() or c == "_" else "_" for c in base) or "v"
        if stem[0].isdigit():
            stem = "v_" + stem
        name, k = stem, 0
        while name in self._taken:
            k += 1
            name = f"{stem}_{k}"
        self._taken.add(name)
        self._names[id(obj)] = name
        self.order.append(obj)
        return name

    def __contains__(self, obj: object) -> bool:
        return id(obj) in self._names



def type_text(dtype: str) -> str:
    """A variable's type as TVMScript writes it: ``T.int32``, ``T.handle`` for a pointer."""
    return "T.handle" if dtype.startswith("handle") else f"T.{dtype}"

def str_literal(text: str) -> str:
    """*text* as a double-quoted Python string, as TVM's printer quotes it."""
    escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\t", "\\t")
    return f'"{escaped}"'


def float_text(value: float) -> str:
    """A float as TVM's printer writes it (C++'s ``%.17g``; infinities and NaN quoted)."""
    if math.isinf(value) or math.isnan(value):
        return f'"{"inf" if value > 0 else "-inf" if math.isinf(value) else "nan"}"'
    return f"{value:.17g}"


class ExprScript(ExprFunctor[tuple[str, int]]):
    """The TVMScript text of an expression and its precedence; *names* names variables and
    buffers (shared with the statements around it). A statement printer overrides
    :meth:`var_name` and :meth:`buffer_name` to declare what is used before it is defined."""

    def __init__(self, names: ScriptNames | None = None) -> None:
        self.names = names or ScriptNames()

    def var_name(self, v: Var) -> str:
        return self.names(v, v.name)

    def buffer_name(self, buffer: object) -> str:
        return self.names(buffer, buffer.name)  # type: ignore[attr-defined]

    def text(self, e: Expr) -> str:
        return self(e)[0]

    def _child(self, e: Expr, parent: int, right: bool = False) -> str:
        text, precedence = self(e)
        if precedence < parent or (right and precedence == parent):
            return f"({text})"
        return text

    def _call(self, name: str, *args: str) -> tuple[str, int]:
        return f"T.{name}({', '.join(args)})", ATOM

    def visit_int_imm(self, e: IntImm) -> tuple[str, int]:
        if e.dtype == "int32":
            return (str(e.value), ATOM) if e.value >= 0 else (str(e.value), UNARY)
        if e.dtype == "bool":
            return self._call("bool", "True" if e.value else "False")
        return self._call(e.dtype, str(e.value))

    def visit_float_imm(self, e: FloatImm) -> tuple[str, int]:
        return self._call(e.dtype, float_text(e.value))

    def visit_string_imm(self, e: StringImm) -> tuple[str, int]:
        return str_literal(e.value), ATOM

    def visit_var(self, e: Var) -> tuple[str, int]:
        return self.var_name(e), ATOM

    def visit_default(self, e: Expr) -> tuple[str, int]:
        kind = type(e)
        if kind in _OPERATORS:
            symbol, precedence, name, fold = _OPERATORS[kind]
            a, b = e.a, e.b  # type: ignore[attr-defined]
            rebuilt = fold(a, b)
            if type(rebuilt) is kind and rebuilt.a is a and rebuilt.b is b:  # type: ignore[attr-defined]
                return (f"{self._child(a, precedence)} {symbol} {self._child(b, precedence, right=True)}",
                        precedence)
            return self._call(name, self.text(a), self.text(b))
        if kind in _CALLED:
            return self._call(_CALLED[kind], self.text(e.a), self.text(e.b))  # type: ignore[attr-defined]
        if kind is Div:
            a, b = e.a, e.b  # type: ignore[attr-defined]
            if a.dtype.startswith(("int", "uint")) or isinstance(a, IntImm) and isinstance(b, IntImm):
                return self._call("Div", self.text(a), self.text(b))
            return f"{self._child(a, MULT)} / {self._child(b, MULT, right=True)}", MULT
        raise TypeError(f"TVMScript: no text for {kind.__name__} nodes")

    def visit_not(self, e: Not) -> tuple[str, int]:
        if isinstance(e.a, IntImm):
            return self._call("Not", self.text(e.a))
        return f"not {self._child(e.a, NOT)}", NOT

    def visit_cast(self, e: Cast) -> tuple[str, int]:
        return self._call("Cast", f'"{e.dtype}"', self.text(e.value))

    def visit_select(self, e: Select) -> tuple[str, int]:
        return self._call("Select", self.text(e.condition), self.text(e.true_value), self.text(e.false_value))

    def visit_ramp(self, e: Ramp) -> tuple[str, int]:
        return self._call("Ramp", self.text(e.base), self.text(e.stride), str(e.lanes))

    def visit_broadcast(self, e: Broadcast) -> tuple[str, int]:
        return self._call("Broadcast", self.text(e.value), str(e.lanes))

    def visit_let(self, e: Let) -> tuple[str, int]:
        var = self.text(e.var)
        return f"T.Let({self.text(e.body)}, where={{{var}: {self.text(e.value)}}})", ATOM

    def visit_call(self, e: Call) -> tuple[str, int]:
        name = RENAMED.get(e.name, e.name)
        args = [self.text(a) for a in e.args]
        if e.name in DTYPE_FIRST:
            args.insert(0, f'"{e.dtype}"')
        return self._call(name, *args)

    def visit_load(self, e: Load) -> tuple[str, int]:
        return f"{self.buffer_name(e.buffer)}[{self.index_text(e.index)}]", ATOM

    def index_text(self, index: Expr) -> str:
        """An element index; a ramp of constant stride as TVM's slice ``base:stop(:stride)``."""
        if isinstance(index, Ramp) and isinstance(index.stride, IntImm):
            stop = arith.add(index.base, arith.const(index.lanes * index.stride.value, index.base.dtype))
            step = "" if index.stride.value == 1 else f":{self.text(index.stride)}"
            return f"{self.text(index.base)}:{self.text(stop)}{step}"
        return self.text(index)

    def data_text(self, buffer: object) -> str:
        """The storage of *buffer* as an expression (``A.data``)."""
        return f"{self.buffer_name(buffer)}.data"

    def visit_buffer_view(self, e: BufferView) -> tuple[str, int]:
        """A region of a buffer passed to a call, as TVM describes one to a packed function:
        ``T.tvm_stack_make_array(data, shape, strides, ndim, a zero of the dtype, offset)``."""
        shape = self._call("tvm_stack_make_shape", *(self.text(d) for d in e.shape))[0]
        strides = self._call("tvm_stack_make_shape", *(self.text(d) for d in e.strides))[0]
        zero = self.text(arith.const(0, e.buffer.dtype))
        return self._call("tvm_stack_make_array", self.data_text(e.buffer), shape, strides, str(len(e.shape)), zero,
                          self.text(e.offset))


def expr_script(e: Expr) -> str:
    """*e* alone as TVMScript: its free variables declared first (``a = T.int32()``), as
    TVM's ``expr.script()`` prints it."""
    names = ScriptNames()
    body = ExprScript(names).text(e)
    lines = [f"{names(v, v.name)} = {type_text(v.dtype)}()" for v in names.order if isinstance(v, Var)]
    return "\n".join([*lines, body])
