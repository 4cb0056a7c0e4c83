"""Python source of expressions: exact integers, double-precision floats, checked loads."""

from __future__ import annotations

import math
from collections.abc import Sequence

from lower.backend.names import Names
from lower.errors import LoweringError
from lower.ir.stmt import BufferView, Load
from schedule.base.packed import get_global_func
from schedule.ir.dtype import bits, is_bool, is_float
from schedule.ir.evaluate import MATH_FUNCS, extern_function
from schedule.ir.expr import (
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
from schedule.ir.extern_calls import EXTERN_CALLS
from schedule.ir.functor import ExprFunctor

_INFIX = {Add: "+", Sub: "-", Mul: "*", EQ: "==", NE: "!=", LT: "<", LE: "<=", GT: ">", GE: ">="}

#: Python's parser nests parentheses only 200 deep: every this many levels of an expression
#: continue in a function of no arguments (a thunk), called where the value is needed.
_CUT = 30


class ExprSource(ExprFunctor[str]):
    """The Python text of an expression; variables must be in scope (:attr:`defined`)."""

    def __init__(self, names: Names, checks: bool) -> None:
        self.names = names
        self.checks = checks
        self.defined: dict[Var, int] = {}  # variables in scope, with how many scopes define them
        self.thunks: list[str] = []  # definitions the next statement needs first
        self.discarded: Expr | None = None  # the value of the statement being written, if unused

    def __call__(self, e: Expr) -> str:
        memo = self._bu_memo
        if memo is not None:
            hit = memo.get(id(e))
            if hit is not None and hit[0] is e:
                return hit[1]
        text = super().__call__(e)
        height = e._height
        if height >= _CUT and height % _CUT == 0:
            # Evaluated where it is called, as the expression would be: lazy branches stay lazy.
            name = self.names.fresh("_t")
            self.thunks += [f"def {name}():", f"    return {text}"]
            return f"{name}()"
        return text

    def take_thunks(self) -> list[str]:
        """The thunk definitions made since the last call (to emit before the statement)."""
        out, self.thunks = self.thunks, []
        return out

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

    def visit_ramp(self, e: Expr) -> str:
        raise LoweringError("build: target 'python' computes a vector (Ramp/Broadcast) only as a store's value "
                            "or index (A[0:4] = ...); write the lanes as a loop")

    visit_broadcast = visit_ramp

    def visit_var(self, e: Var) -> str:
        if not self.defined.get(e):
            raise LoweringError(f"build: variable '{e.name}' is used where no loop, let, argument or "
                                "argument shape defines it")
        return self.names(e, e.name)

    def visit_default(self, e: Expr) -> str:
        kind = type(e)
        if kind in _INFIX:
            text = f"({self(e.a)} {_INFIX[kind]} {self(e.b)})"  # type: ignore[attr-defined]
            if kind in (Add, Sub, Mul) and e.dtype.startswith("uint"):
                return f"_w_{e.dtype}{text}"  # unsigned arithmetic wraps around, as C's and NumPy's
            if e.dtype == "float16":
                return f"_to_float16{text}"  # each result rounded to half, as C's casts back and NumPy's
            return text
        a, b = self(e.a), self(e.b)  # type: ignore[attr-defined]
        floats = is_float(e.a.dtype)  # type: ignore[attr-defined]
        signed = not floats and e.dtype.startswith("int")  # type: ignore[attr-defined]
        if kind in (Div, FloorDiv) and signed and not (isinstance(e.b, IntImm) and e.b.value != -1):  # type: ignore[attr-defined]
            smallest = -(1 << (bits(e.dtype) - 1))
            return f"_int_div({a}, {b}, {smallest}, {kind is FloorDiv}, {f'{e.dtype}:{e}'!r})"
        if kind is Div:  # floats divide as IEEE does: inf or NaN by 0
            if e.dtype == "float16":  # type: ignore[attr-defined]
                return f"_to_float16(_fdivide({a}, {b}))"
            return f"_fdivide({a}, {b})" if floats else f"_tdiv({a}, {b})"
        if kind is Mod:
            return f"_tmod({a}, {b})"
        if kind is FloorDiv:
            return f"_fdiv({a}, {b})" if floats else f"({a} // {b})"
        if kind is FloorMod:
            return f"_fmod({a}, {b})" if floats else f"({a} % {b})"
        if kind in (Min, Max):
            if floats:  # NaN propagates, as NumPy's maximum/minimum (Python's max keeps its first)
                return f"_f{kind.__name__.lower()}({a}, {b})"
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
            if e.dtype == "float32" and not is_float(e.value.dtype):
                return f"_to_float32({v})"  # an integer rounds once, as C's conversion
            if e.dtype == "float16":
                return f"_to_float16({v})"
            return f"float({v})"
        if is_bool(e.dtype):
            return f"bool({v})"
        if e.dtype == "handle":
            return f"_trunc({v})"
        if is_float(e.value.dtype):
            return f"_float_to_int({v}, {e.dtype!r})"  # out of range and NaN as C's (and NumPy's on x86)
        return f"_w_{e.dtype}(_trunc({v}))"  # wraps as C's cast

    def visit_call(self, e: Call) -> str:
        if e.name == "tvm_if_then_else":
            c, t, f = (self(a) for a in e.args)
            return f"({t} if {c} else {f})"
        if e.name == "likely":
            return self(e.args[0])
        if e.name == "prefetch":  # a hint: nothing to compute
            return "0"
        if e.name in ("tvm_call_packed", "tvm_call_trace_packed"):
            name = e.args[0]
            if not isinstance(name, StringImm):
                raise LoweringError("build: call_packed needs the function's name as a string")
            helper = "_call_packed" if e.name == "tvm_call_packed" else "_call_trace"
            return f"{helper}({name.value!r}, {self._result_dtype(e)!r}, {', '.join(self(a) for a in e.args[1:])})"
        if e.name in EXTERN_CALLS:
            name = e.args[0]
            assert isinstance(name, StringImm)
            fn = extern_function(name.value)
            if fn is None:
                raise LoweringError(f"build: the external function '{name.value}' is neither a C math function "
                                    f"nor registered; register it with te.register_func('{name.value}', f)")
            args = ", ".join(self(a) for a in e.args[1:])
            if any(_is_buffer(a) for a in e.args[1:]):
                return f"_call_arrays({name.value!r}, {self._result_dtype(e)!r}, _extern[{name.value!r}], {args})"
            if get_global_func(name.value, allow_missing=True) is not None:  # a Python function, as on C
                return f"_call({name.value!r}, {self._result_dtype(e)!r}, _extern[{name.value!r}], {args})"
            return f"_extern[{name.value!r}]({args})"
        if e.name == "tvm_access_ptr":
            return f"_ptr({self(e.args[1])}, {self(e.args[4])})"
        if e.name == "reinterpret":
            return f"_reinterpret({self(e.args[0])}, {e.args[0].dtype!r}, {e.dtype!r})"
        if e.name in ("shift_left", "shift_right"):  # counts outside [0, bits) as NumPy's (see _shift)
            a, b = (self(x) for x in e.args)
            return f"_shift({a}, {b}, {e.name == 'shift_left'}, {e.dtype!r})"
        if e.name == "popcount":  # of the operand's own width, as the C target counts
            return f"_popcount({self(e.args[0])}, {bits(e.args[0].dtype)})"
        if e.name == "clz":
            return f"_clz({self(e.args[0])}, {bits(e.args[0].dtype)})"
        if e.name == "nextafter" and e.dtype != "float64":  # the next value of the operands' own type
            return f"_nextafter({self(e.args[0])}, {self(e.args[1])}, {e.dtype!r})"
        if e.name not in MATH_FUNCS:
            raise LoweringError(f"build: unknown intrinsic '{e.name}'; give it a lowering rule with "
                                f"te.register_intrin_lowering('{e.name}', target='python', f=...)")
        return f"_math[{e.name!r}]({', '.join(self(a) for a in e.args)})"

    def _result_dtype(self, e: Call) -> str | None:
        """The dtype a call's result must have; None when nobody reads it (see ``call_result``)."""
        return None if e is self.discarded else e.dtype

    def visit_buffer_view(self, e: BufferView) -> str:
        buf = self.names(e.buffer, e.buffer.name)
        return (f"_view({buf}, {e.buffer.dtype!r}, {self._tuple(e.shape)}, {self._tuple(e.strides)}, "
                f"{self(e.offset)})")

    def visit_load(self, e: Load) -> str:
        buf = self.names(e.buffer, e.buffer.name)
        if not self.checks:
            return f"{buf}[{self(e.index)}]"
        return f"_load({buf}, {self(e.index)}, {e.buffer.name!r}, {self._tuple(e.checks)})"

    def _tuple(self, items: Sequence[Expr]) -> str:
        return "(" + "".join(f"{self(x)}, " for x in items) + ")"

    def visit_producer_load(self, e: Expr) -> str:
        raise LoweringError("build: the function still reads tensors; flatten it first")


def _is_buffer(e: Expr) -> bool:
    """Whether *e* is passed to a call as an array (a buffer or a pointer into one)."""
    return isinstance(e, BufferView) or (isinstance(e, Call) and e.name == "tvm_access_ptr")
