"""Python source from a flattened function: one ``def`` compiled once, no tree walk per element.

Buffers are flat Python lists and arithmetic is Python's (exact integers, double-precision
floats), so a run computes exactly what :mod:`lower.reference` computes from the definitions;
values take the tensor's dtype when the caller's arrays are written. With *checks*, every load
and store first checks each logical index against its realized region.
"""

from __future__ import annotations

import builtins
import keyword
import math
import re
from collections.abc import Sequence
from typing import Any

from lower.errors import LoweringError
from lower.stmt import (
    Allocate,
    AttrStmt,
    Buffer,
    Evaluate,
    For,
    IfThenElse,
    LetStmt,
    Load,
    ProducerConsumer,
    SeqStmt,
    Stmt,
    Store,
)
from lower.stmt_functor import StmtFunctor
from schedule.dtype import is_bool, is_float
from schedule.evaluate import MATH_FUNCS, floor_div, trunc_div, trunc_mod
from schedule.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Call,
    Cast,
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
    Select,
    StringImm,
    Sub,
    Var,
)
from schedule.functor import ExprFunctor
from schedule.itervar import IterVar

#: Python allows only 20 statically nested blocks; deeper nests continue in a helper function.
_MAX_DEPTH = 16

_INFIX = {Add: "+", Sub: "-", Mul: "*", EQ: "==", NE: "!=", LT: "<", LE: "<=", GT: ">", GE: ">="}


class OutOfBoundsError(IndexError):
    """A run read or wrote outside a buffer's realized region."""


def _check(kind: str, name: str, checks: tuple, flat: int, size: int) -> None:
    index = checks[0::3]
    for i, lo, ext in zip(checks[0::3], checks[1::3], checks[2::3]):
        if not lo <= i < lo + ext:
            break
    else:
        if 0 <= flat < size:
            return
    region = " x ".join(f"[{lo}, {lo + ext})" for lo, ext in zip(checks[1::3], checks[2::3]))
    raise OutOfBoundsError(f"out-of-bounds {kind} of {name} at index {tuple(index)} (flat {flat}); "
                           f"the realized region is {region or 'flat [0, ' + str(size) + ')'}")


def _load(buf: list, flat: int, name: str, checks: tuple) -> Any:
    _check("read", name, checks or (flat, 0, len(buf)), flat, len(buf))
    return buf[flat]


def _store(buf: list, flat: int, value: Any, name: str, checks: tuple) -> None:
    _check("write", name, checks or (flat, 0, len(buf)), flat, len(buf))
    buf[flat] = value


RUNTIME: dict[str, Any] = {"_load": _load, "_store": _store, "_tdiv": trunc_div, "_tmod": trunc_mod,
                           "_fdiv": floor_div, "_math": MATH_FUNCS, "_trunc": math.trunc,
                           "_inf": math.inf, "_nan": math.nan, "_math_fmod": math.fmod}


class _Names:
    """Python identifiers for variables and buffers, unique per object."""

    def __init__(self) -> None:
        self._by_id: dict[int, str] = {}
        # Tensors and loops may be called anything ("lambda", "range", "min"): never a keyword,
        # a builtin the kernel calls, or a runtime helper.
        self._used: set[str] = {*RUNTIME, *keyword.kwlist, *keyword.softkwlist, *dir(builtins)}

    def __call__(self, obj: Any, hint: str) -> str:
        name = self._by_id.get(id(obj))
        if name is None:
            base = re.sub(r"\W", "_", hint) or "v"
            if base[0].isdigit():
                base = "_" + base
            name, k = base, 1
            while name in self._used:
                name, k = f"{base}_{k}", k + 1
            self._used.add(name)
            self._by_id[id(obj)] = name
        return name


class _ExprSource(ExprFunctor[str]):
    def __init__(self, names: _Names, checks: bool) -> None:
        self.names = names
        self.checks = checks
        self.defined: dict[Var, int] = {}  # variables in scope, with how many scopes define them

    def visit_int_imm(self, e: IntImm) -> str:
        return str(bool(e.value)) if is_bool(e.dtype) else str(e.value)

    def visit_float_imm(self, e: FloatImm) -> str:
        if math.isnan(e.value):
            return "_nan"
        if math.isinf(e.value):
            return "_inf" if e.value > 0 else "(-_inf)"
        return repr(float(e.value))

    def visit_string_imm(self, e: StringImm) -> str:
        return repr(e.value)

    def visit_var(self, e: Var) -> str:
        if not self.defined.get(e):
            raise LoweringError(f"build: variable '{e.name}' is used where no loop, let, argument or "
                                "argument shape defines it")
        return self.names(e, e.name)

    def visit_default(self, e: Expr) -> str:
        kind = type(e)
        if kind in _INFIX:
            return f"({self(e.a)} {_INFIX[kind]} {self(e.b)})"  # type: ignore[attr-defined]
        a, b = self(e.a), self(e.b)  # type: ignore[attr-defined]
        floats = is_float(e.a.dtype)  # type: ignore[attr-defined]
        if kind is Div:
            return f"({a} / {b})" if floats else f"_tdiv({a}, {b})"
        if kind is Mod:
            return f"_math_fmod({a}, {b})" if floats else f"_tmod({a}, {b})"
        if kind is FloorDiv:
            return f"_fdiv({a}, {b})" if floats else f"({a} // {b})"
        if kind is FloorMod:
            return f"({a} % {b})"
        if kind in (Min, Max):
            return f"{kind.__name__.lower()}({a}, {b})"
        raise LoweringError(f"build: cannot compile {kind.__name__} nodes")

    def visit_and(self, e: And) -> str:
        return f"({self(e.a)} and {self(e.b)})"

    def visit_or(self, e: Or) -> str:
        return f"({self(e.a)} or {self(e.b)})"

    def visit_not(self, e: Not) -> str:
        return f"(not {self(e.a)})"

    def visit_select(self, e: Select) -> str:
        return f"({self(e.true_value)} if {self(e.condition)} else {self(e.false_value)})"

    def visit_cast(self, e: Cast) -> str:
        v = self(e.value)
        if is_float(e.dtype):
            return f"float({v})"
        if is_bool(e.dtype):
            return f"bool({v})"
        return f"_trunc({v})"

    def visit_call(self, e: Call) -> str:
        if e.name == "tvm_if_then_else":
            c, t, f = (self(a) for a in e.args)
            return f"({t} if {c} else {f})"
        if e.name == "likely":
            return self(e.args[0])
        if e.name not in MATH_FUNCS:
            raise LoweringError(f"build: unknown intrinsic '{e.name}'")
        return f"_math[{e.name!r}]({', '.join(self(a) for a in e.args)})"

    def visit_load(self, e: Load) -> str:
        buf = self.names(e.buffer, e.buffer.name)
        if not self.checks:
            return f"{buf}[{self(e.index)}]"
        return f"_load({buf}, {self(e.index)}, {e.buffer.name!r}, {self._tuple(e.checks)})"

    def _tuple(self, items: Sequence[Expr]) -> str:
        return "(" + "".join(f"{self(x)}, " for x in items) + ")"

    def visit_producer_load(self, e: Expr) -> str:
        raise LoweringError("build: the function still reads tensors; flatten it first")


class _StmtSource(StmtFunctor[None]):
    def __init__(self, names: _Names, checks: bool) -> None:
        self.names = names
        self.expr = _ExprSource(names, checks)
        self.checks = checks
        self.helpers: list[list[str]] = []
        self.lines: list[str] = []
        self.indent = 1
        self.depth = 0
        self.scope: list[str] = []

    def emit(self, text: str) -> None:
        self.lines.append("    " * self.indent + text)

    def define(self, var: Var) -> str:
        """Bring *var* into scope; its Python name."""
        name = self.names(var, var.name)
        self.scope.append(name)
        self.expr.defined[var] = self.expr.defined.get(var, 0) + 1
        return name

    def undefine(self, var: Var) -> None:
        name = self.names(var, var.name)
        del self.scope[len(self.scope) - 1 - self.scope[::-1].index(name)]
        self.expr.defined[var] -= 1

    def block(self, head: str, body: Stmt, new_var: Var | None = None) -> None:
        self.emit(head)
        self.indent += 1
        self.depth += 1
        mark = len(self.lines)
        if self.depth >= _MAX_DEPTH:
            self.outline(body)
        else:
            self(body)
        if len(self.lines) == mark:
            self.emit("pass")
        self.indent -= 1
        self.depth -= 1
        if new_var is not None:
            self.undefine(new_var)

    def outline(self, body: Stmt) -> None:
        """Continue *body* in a helper function taking every name in scope."""
        name = self.names(object(), f"_nest{len(self.helpers)}")
        params = ", ".join(dict.fromkeys(self.scope))
        saved = self.lines, self.indent, self.depth
        self.lines, self.indent, self.depth = [], 1, 0
        self(body)
        inner = self.lines or ["    pass"]
        self.lines, self.indent, self.depth = saved
        self.helpers.append([f"def {name}({params}):", *inner])
        self.emit(f"{name}({params})")

    def visit_for(self, s: For) -> None:
        lo, ext = self.expr(s.min), self.expr(s.extent)
        rng = f"range({ext})" if lo == "0" else f"range({lo}, {lo} + {ext})"
        v = self.define(s.loop_var)
        self.block(f"for {v} in {rng}:", s.body, s.loop_var)

    def visit_attr_stmt(self, s: AttrStmt) -> None:
        if s.key in ("thread_extent", "virtual_thread") and isinstance(s.node, IterVar):
            ext = self.expr(s.value)
            v = self.define(s.node.var)
            self.block(f"for {v} in range({ext}):", s.body, s.node.var)
        else:
            self(s.body)

    def visit_allocate(self, s: Allocate) -> None:
        buf = self.names(s.buffer, s.buffer.name)
        size = " * ".join(self.expr(e) for e in s.buffer.extents)
        self.emit(f"{buf} = [0] * ({size})")
        self.scope.append(buf)
        self(s.body)

    def visit_store(self, s: Store) -> None:
        buf = self.names(s.buffer, s.buffer.name)
        index, value = self.expr(s.index), self.expr(s.value)
        if self.checks:
            self.emit(f"_store({buf}, {index}, {value}, {s.buffer.name!r}, {self.expr._tuple(s.checks)})")
        else:
            self.emit(f"{buf}[{index}] = {value}")

    def visit_if_then_else(self, s: IfThenElse) -> None:
        self.block(f"if {self.expr(s.condition)}:", s.then_case)
        if s.else_case is not None:
            self.block("else:", s.else_case)

    def visit_let_stmt(self, s: LetStmt) -> None:
        value = self.expr(s.value)
        v = self.define(s.var)
        self.emit(f"{v} = {value}")
        self(s.body)
        self.undefine(s.var)

    def visit_seq_stmt(self, s: SeqStmt) -> None:
        for x in s.seq:
            self(x)

    def visit_producer_consumer(self, s: ProducerConsumer) -> None:
        self(s.body)

    def visit_evaluate(self, s: Evaluate) -> None:
        self.emit(self.expr(s.value))

    def visit_default(self, s: Stmt) -> None:
        raise LoweringError(f"build: {type(s).__name__} must be flattened before it can run")


def python_source(body: Stmt, params: Sequence[Buffer], scalars: Sequence[Var] = (), name: str = "kernel", *,
                  checks: bool = True) -> str:
    """The source of ``def <name>(<buffers>, <scalars>)`` running *body* on flat lists.

    :raises LoweringError: if *body* uses a variable that neither a statement nor a
        parameter defines.
    """
    names = _Names()
    gen = _StmtSource(names, checks)
    gen.scope = [names(b, b.name) for b in params]
    for v in scalars:
        gen.define(v)
    args = ", ".join(gen.scope)
    gen(body)
    lines = [f"def {name}({args}):", *(gen.lines or ["    pass"])]
    for helper in gen.helpers:
        lines = [*helper, "", *lines]
    return "\n".join(lines) + "\n"


def compile_source(source: str, name: str = "kernel") -> Any:
    """The function *name* defined by *source*, with the runtime helpers in scope."""
    namespace: dict[str, Any] = dict(RUNTIME)
    exec(compile(source, f"<lowered {name}>", "exec"), namespace)  # noqa: S102 - our own generated code
    return namespace[name]
