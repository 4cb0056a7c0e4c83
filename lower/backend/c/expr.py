"""C source of expressions: arithmetic in each value's own dtype, TVM's floor division, libm.

Integer types narrower than ``int`` and float16 are promoted by C; their sums, differences and
products are cast back, so they wrap and round as the tensor's dtype does.
"""

from __future__ import annotations

import math

from lower.backend.c.callback import BUFFER, CLIPPED, DTYPES, FLOAT, INT, STRING, WRITES, PythonCall
from lower.backend.c.fast_math import FAST_FUNCTIONS, fast_function
from lower.backend.c.registers import Registers
from lower.backend.names import Names
from lower.errors import LoweringError
from lower.stmt import BufferView, Load
from schedule.dtype import bits, is_bool, is_float
from schedule.evaluate import MATH_FUNCS
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
from schedule.extern_calls import EXTERN_CALLS
from schedule.functor import ExprFunctor
from schedule.packed import get_global_func

_C_TYPES = {"float32": "float", "float64": "double", "float16": "_Float16", "bool": "bool",
            "int8": "int8_t", "int16": "int16_t", "int32": "int32_t", "int64": "int64_t",
            "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t"}
_COMPARE = {EQ: "==", NE: "!=", LT: "<", LE: "<=", GT: ">", GE: ">="}
_ARITH = {Add: "+", Sub: "-", Mul: "*"}
#: libm's name of each math function, for double; float takes the ``f`` suffix.
_LIBM = {"exp": "exp", "exp2": "exp2", "exp10": "exp10", "log": "log", "log2": "log2", "log10": "log10",
         "log1p": "log1p", "sqrt": "sqrt", "sin": "sin", "cos": "cos", "tan": "tan", "sinh": "sinh",
         "cosh": "cosh", "tanh": "tanh", "asin": "asin", "acos": "acos", "atan": "atan", "erf": "erf",
         "floor": "floor", "ceil": "ceil", "round": "nearbyint", "trunc": "trunc", "fabs": "fabs",
         "pow": "pow", "fmod": "fmod"}

_BIT_OPS = {"shift_right": ">>", "shift_left": "<<", "bitwise_and": "&", "bitwise_or": "|", "bitwise_xor": "^"}


def c_type(dtype: str) -> str:
    """The C type of a dtype."""
    found = _C_TYPES.get(dtype)
    if found is None:
        raise LoweringError(f"build: target 'c' has no type for dtype {dtype}")
    return found


def _narrow(dtype: str) -> bool:
    return dtype == "float16" or (not is_float(dtype) and not is_bool(dtype) and bits(dtype) < 32)


class CExprSource(ExprFunctor[str]):
    """The C text of an expression; helper functions it needs are collected in :attr:`helpers`."""

    def __init__(self, names: Names) -> None:
        self.names = names
        self.helpers: dict[str, str] = {}
        self.calls: list[PythonCall] = []  # call sites of Python functions, by their index
        self.registers = Registers()  # local buffers written as variables

    def buffer_name(self, buf: object) -> str:
        """The C name of the array *buf*."""
        return self.names(buf, buf.name)  # type: ignore[attr-defined]

    # -- leaves ------------------------------------------------------------------------------
    def visit_int_imm(self, e: IntImm) -> str:
        if is_bool(e.dtype):
            return "1" if e.value else "0"
        v = int(e.value)
        if e.dtype == "int64":
            return f"INT64_C({v})" if v != -2**63 else "INT64_MIN"
        if e.dtype == "uint64":
            return f"UINT64_C({v})"
        if e.dtype == "int32" and v == -2**31:
            return "INT32_MIN"
        text = f"({v})" if v < 0 else str(v)
        return text if e.dtype in ("int32", "uint32") else f"(({c_type(e.dtype)}){text})"

    def visit_float_imm(self, e: FloatImm) -> str:
        v = float(e.value)
        if math.isnan(v):
            text = "NAN"
        elif math.isinf(v):
            text = "INFINITY" if v > 0 else "(-INFINITY)"
        else:
            text = repr(v)  # always has "." or "e", or is inf/nan (handled above)
            if e.dtype == "float32":
                return text + "f"
        return text if e.dtype == "float64" else f"(({c_type(e.dtype)}){text})"

    def visit_var(self, e: Var) -> str:
        return self.names(e, e.name)

    def visit_string_imm(self, e: StringImm) -> str:
        raise LoweringError(f"build: target 'c' cannot pass the string {e.value!r}")

    def visit_load(self, e: Load) -> str:
        if e.buffer in self.registers.lanes:
            return self.registers.element(e.buffer, e.index)
        return f"{self.buffer_name(e.buffer)}[{self(e.index)}]"

    def visit_buffer_view(self, e: BufferView) -> str:
        raise LoweringError(f"build: buffer '{e.name}' can only be passed to a call")

    # -- arithmetic -----------------------------------------------------------------------------
    def visit_default(self, e: Expr) -> str:
        op = _ARITH.get(type(e))
        if op is not None:
            text = f"({self(e.a)} {op} {self(e.b)})"  # type: ignore[attr-defined]
            return f"(({c_type(e.dtype)}){text})" if _narrow(e.dtype) else text
        op = _COMPARE.get(type(e))
        if op is not None:
            return f"({self(e.a)} {op} {self(e.b)})"  # type: ignore[attr-defined]
        raise LoweringError(f"build: target 'c' cannot compute {type(e).__name__} yet; use target='python'")

    def visit_div(self, e: Div) -> str:
        text = f"({self(e.a)} / {self(e.b)})"
        return f"(({c_type(e.dtype)}){text})" if _narrow(e.dtype) else text

    def visit_mod(self, e: Mod) -> str:
        if is_float(e.dtype):
            return self._math("fmod", e.dtype, [e.a, e.b])
        return f"(({c_type(e.dtype)})({self(e.a)} % {self(e.b)}))"

    def visit_floor_div(self, e: FloorDiv) -> str:
        if is_float(e.dtype):
            return self._math("floor", e.dtype, [Div(e.a, e.b)])
        return f"{self._helper('floordiv', e.dtype)}({self(e.a)}, {self(e.b)})"

    def visit_floor_mod(self, e: FloorMod) -> str:
        if is_float(e.dtype):
            a, b = self(e.a), self(e.b)
            return f"({a} - {self._math('floor', e.dtype, [Div(e.a, e.b)])} * {b})"
        return f"{self._helper('floormod', e.dtype)}({self(e.a)}, {self(e.b)})"

    def visit_min(self, e: Min) -> str:
        return f"{self._helper('min', e.dtype)}({self(e.a)}, {self(e.b)})"

    def visit_max(self, e: Max) -> str:
        return f"{self._helper('max', e.dtype)}({self(e.a)}, {self(e.b)})"

    def visit_and(self, e: And) -> str:
        return f"({self(e.a)} && {self(e.b)})"

    def visit_or(self, e: Or) -> str:
        return f"({self(e.a)} || {self(e.b)})"

    def visit_not(self, e: Not) -> str:
        return f"(!{self(e.a)})"

    def visit_select(self, e: Select) -> str:
        return f"({self(e.condition)} ? {self(e.true_value)} : {self(e.false_value)})"

    def visit_cast(self, e: Cast) -> str:
        return f"(({c_type(e.dtype)}){self(e.value)})"

    def visit_call(self, e: Call) -> str:
        if e.name == "likely":
            return f"__builtin_expect(!!{self(e.args[0])}, 1)"
        if e.name == "tvm_if_then_else":
            c, t, f = (self(a) for a in e.args)
            return f"({c} ? {t} : {f})"
        if e.name == "prefetch":
            address = e.args[0]
            assert isinstance(address, Call) and isinstance(address.args[0], Load)
            return f"(__builtin_prefetch(&{self(address.args[0])}, 0, 3), 0)"
        name = e.name
        args = list(e.args)
        if name == "tvm_call_packed":
            fn = args[0]
            if not isinstance(fn, StringImm):
                raise LoweringError("build: call_packed needs the function's name as a string")
            return self._python_call("packed", fn.value, e.dtype, args[1:])
        if name in EXTERN_CALLS:
            fn = args[0]
            assert isinstance(fn, StringImm)
            if get_global_func(fn.value, allow_missing=True) is not None:
                return self._python_call("extern", fn.value, e.dtype, args[1:])
            name = fn.value.removeprefix("__")
            args = args[1:]
            base = name.removesuffix("f") if name.removesuffix("f") in _LIBM else name
            if base not in _LIBM and base not in MATH_FUNCS:
                raise LoweringError(f"build: the external function '{fn.value}' is neither a C math function nor "
                                    f"registered; register it with te.register_func('{fn.value}', f)")
            name = base
        if name.startswith("fast_") and name[5:] in FAST_FUNCTIONS:
            if e.dtype == "float32":
                fn, needs = fast_function(name[5:])
                for key, text in needs:
                    self.helpers.setdefault(key, text)
                return f"{fn}({self(args[0])})"
            name = name[5:]
        if name in ("sigmoid", "rsqrt"):
            one = FloatImm(e.dtype, 1.0) if is_float(e.dtype) else FloatImm("float64", 1.0)
            inner = self._math("exp", e.dtype, [_neg(args[0])]) if name == "sigmoid" \
                else self._math("sqrt", e.dtype, args)
            return f"({self(one)} / ({self(one)} + {inner}))" if name == "sigmoid" else f"({self(one)} / {inner})"
        if name in _LIBM:
            return self._math(name, e.dtype, args)
        if name in _BIT_OPS:
            return f"({self(args[0])} {_BIT_OPS[name]} {self(args[1])})"
        if name == "bitwise_not":
            return f"(~{self(args[0])})"
        if name == "popcount":
            wide = bits(args[0].dtype) > 32
            return (f"__builtin_popcountll((uint64_t)({self(args[0])}))" if wide
                    else f"__builtin_popcount((uint32_t)({self(args[0])}))")
        raise LoweringError(f"build: unknown intrinsic '{e.name}'; give it a lowering rule with "
                            f"te.register_intrin_lowering('{e.name}', target='c', f=...)")

    # -- helpers --------------------------------------------------------------------------------
    def _python_call(self, kind: str, name: str, dtype: str, args: list[Expr]) -> str:
        """A call of a Python function through the kernel's callback (see :mod:`lower.backend.c.callback`)."""
        ptrs: list[str] = []
        ints: list[str] = [str(len(args))]
        floats: list[str] = []
        strings: list[str] = []
        for a in args:
            if isinstance(a, Call) and a.name == "tvm_access_ptr":
                view, flags = a.args[1], f"((({self(a.args[4])}) & 2) ? {WRITES} : 0) | {CLIPPED}"
            else:
                view, flags = a, str(WRITES)
            if isinstance(view, BufferView):
                ints += [str(BUFFER), str(DTYPES.index(view.buffer.dtype)), str(len(view.shape)),
                         *(f"(int64_t)({self(x)})" for x in (*view.shape, *view.strides, view.offset)),
                         f"(int64_t)({self(view.buffer.size)})", flags]
                ptrs.append(self.buffer_name(view.buffer))
            elif isinstance(a, StringImm):
                ints += [str(STRING), str(len(strings))]
                strings.append(a.value)
            elif is_float(a.dtype):
                ints.append(str(FLOAT))
                floats.append(f"(double)({self(a)})")
            else:
                ints += [str(INT), f"(int64_t)({self(a)})"]
        self.calls.append(PythonCall(kind, name, tuple(strings)))
        result = "tb_fres" if is_float(dtype) else "tb_ires"
        cast = f"({c_type(dtype)})" if dtype != "handle" else "(int32_t)"
        return (f"({{ void* tb_p[] = {{{', '.join([*ptrs, '0'])}}}; int64_t tb_i[] = {{{', '.join(ints)}}}; "
                f"double tb_f[] = {{{', '.join([*floats, '0'])}}}; double tb_fres = 0; int64_t tb_ires = 0; "
                f"tb_python({len(self.calls) - 1}, tb_p, tb_i, tb_f, &tb_fres, &tb_ires); {cast}{result}; }})")

    def _math(self, name: str, dtype: str, args: list[Expr]) -> str:
        """A libm call in *dtype*'s precision (float16 and integers computed in float/double)."""
        single = dtype in ("float32", "float16")
        kind = "float" if single else "double"
        text = f"{_LIBM[name]}{'f' if single else ''}({', '.join(f'({kind}){self(a)}' for a in args)})"
        return text if dtype in ("float32", "float64") else f"(({c_type(dtype)}){text})"

    def _helper(self, kind: str, dtype: str) -> str:
        t = c_type(dtype)
        name = f"tb_{kind}_{dtype}"
        if name in self.helpers:
            return name
        if kind == "min":
            body = "return a < b ? a : b;"
        elif kind == "max":
            body = "return a > b ? a : b;"
        elif kind == "floordiv":
            # branch-free, so that the compiler hoists and shares it like other arithmetic
            body = f"{t} r = a % b; return a / b - (({t})(r != 0) & ({t})((r ^ b) < 0));"
        else:
            body = f"{t} r = a % b; return r + (b & -(({t})(r != 0) & ({t})((r ^ b) < 0)));"
        self.helpers[name] = f"static inline {t} {name}({t} a, {t} b) {{ {body} }}"
        return name


def _neg(e: Expr) -> Expr:
    return Sub(FloatImm(e.dtype, 0.0), e) if is_float(e.dtype) else Sub(IntImm(e.dtype, 0), e)
