"""C source of expressions: arithmetic in each value's own dtype, TVM's floor division, libm.

Integer types narrower than ``int`` and float16 are promoted by C; their sums, differences and
products are cast back, so they wrap and round as the tensor's dtype does.
"""

from __future__ import annotations

import math

from lower.backend.c.callback import BUFFER, CLIPPED, DTYPES, FLOAT, INT, STRING, WRITES, PythonCall
from lower.backend.c.fast_math import FAST_FUNCTIONS, fast_function
from lower.backend.c.registers import Registers
from lower.backend.c.runtime import Site, checked_division, from_data, needs_guard
from lower.backend.names import Names
from lower.errors import LoweringError
from lower.ir.stmt import Buffer, BufferView, Load, Store
from schedule import arith
from schedule.base.packed import get_global_func
from schedule.ir.dtype import bits, is_bool, is_float
from schedule.ir.evaluate import MATH_FUNCS
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
from schedule.ir.functor import ExprFunctor, ExprMutator, distinct_post_order, structural_equal
from schedule.ir.intrinsics import FLOAT_TESTS

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
         "pow": "pow", "fmod": "fmod", "asinh": "asinh", "acosh": "acosh", "atanh": "atanh",
         "nearbyint": "nearbyint", "atan2": "atan2", "hypot": "hypot", "copysign": "copysign",
         "nextafter": "nextafter"}

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

    def __init__(self, names: Names, checked: bool = True) -> None:
        self.names = names
        self.checked = checked  # run-time checks (see lower.backend.c.runtime); allocations always
        self.helpers: dict[str, str] = {}
        #: Tests of accesses hoisted out of the loop being written, by their texts: the name of
        #: the flag that holds the test's result (see ``_StmtSource.hoist_guards``).
        self.hoisted: dict[tuple[str, str, str, str, str], str] = {}
        self.hoisted_vars: dict[tuple[str, str, str, str, str], Var] = {}
        self.calls: list[PythonCall] = []  # call sites of Python functions, by their index
        self.sites: list[Site] = []  # what each run-time check guards, by its index
        self.discarded: Expr | None = None  # the value of the statement being written, if unused
        self.registers = Registers()  # local buffers written as variables
        self.wide = False  # integers of 32 bits or fewer computed in 64 (an index that may pass 2^31)
        self.written: dict[Buffer, str] = {}  # warp buffers -> the flags of the elements written
        self.params: set[Var] = set()  # the function's scalar parameters (symbolic shapes, factors)

    def site(self, kind: str, text: str) -> int:
        """The index of a new run-time check of *kind* guarding *text*."""
        self.sites.append(Site(kind, text))
        return len(self.sites) - 1

    def buffer_name(self, buf: object) -> str:
        """The C name of the array *buf*."""
        return self.names(buf, buf.name)  # type: ignore[attr-defined]

    # -- leaves ------------------------------------------------------------------------------
    def index(self, buf: Buffer, e: Expr) -> str:
        """The C text of *e*, an index into *buf* (or a count of its elements): in 64-bit
        arithmetic unless *buf* has a constant size below 2^31, so that it cannot wrap."""
        if isinstance(e, (Var, IntImm)):  # nothing to wrap
            return self(e)
        saved, self.wide = self.wide, self.wide or wide_buffer(buf)
        try:
            return self(e)
        finally:
            self.wide = saved

    def needs_wide(self, e: Expr) -> bool:
        """Whether *e* is index arithmetic over the function's scalar parameters (no value read
        from memory) in 32 bits or fewer: a symbolic bound such as ``(n + m - 1) / m`` that may
        pass 2^31 on the way for large *m*, computed in 64 bits instead (see :meth:`exact`)."""
        if self.wide or e.dtype not in _WIDENED or isinstance(e, (Var, IntImm)) or not self.params:
            return False
        nodes = distinct_post_order(e)
        return any(isinstance(x, Var) and x in self.params for x in nodes) and not any(
            isinstance(x, (Load, Call)) for x in nodes)

    def exact(self, e: Expr) -> str:
        """*e* in 64-bit arithmetic where :meth:`needs_wide` says so, else as usual."""
        if not self.needs_wide(e):
            return self(e)
        saved, self.wide = self.wide, True
        try:
            return self(e)
        finally:
            self.wide = saved

    def access_guard(self, access: Load | Store) -> str | None:
        """The run-time check of an access whose indices come from data (a load, a call): each
        such dimension against its realized region, or the flat index against the buffer's size
        where dimensions are not known; None for an access that needs none."""
        if not self.checked or not needs_guard(access):
            return None
        tests = []
        for key, _ in self.guard_tests(access):
            kind, where, index, lo, extent = key
            hoisted = self.hoisted.get(key)
            tests.append(hoisted or f"tb_within(tb_ctx, {self.site(kind, where)}, {index}, {lo}, {extent})")
        return " && ".join(tests) or None

    def clamped_index(self, e: Load) -> Expr | None:
        """*e*'s flat index with each checked index replaced by the variable that holds it (or
        the region's start where its check failed), when every test of *e* was hoisted; None
        otherwise."""
        tests = self.guard_tests(e)
        if not tests or not all(key in self.hoisted_vars for key, _ in tests):
            return None
        index = e.index
        for key, (i, _, _) in tests:
            replaced = replace_subexpression(index, i, self.hoisted_vars[key])
            if replaced is index:
                return None  # the checked index is not written out in the flat one
            index = replaced
        return index

    def guard_tests(self, access: Load | Store) -> list[tuple[tuple[str, str, str, str, str], tuple[Expr, ...]]]:
        """The tests of :meth:`access_guard` as (kind, buffer, index, start, extent) texts, each
        with the expressions (index, start, extent) it tests."""
        checks = list(access.checks) or [access.index, arith.const(0), access.buffer.size]
        out = []
        saved, self.wide = self.wide, True
        try:
            for d in range(0, len(checks), 3):
                index, lo, extent = checks[d:d + 3]
                if not (access.checked or from_data(index)):
                    continue
                kind = "write" if isinstance(access, Store) else "read"
                where = f"{access.buffer.name}" + (f" (dimension {d // 3})" if access.checks else "")
                out.append(((kind, where, self(index), self(lo), self(extent)), (index, lo, extent)))
        finally:
            self.wide = saved
        return out

    def visit_int_imm(self, e: IntImm) -> str:
        if is_bool(e.dtype):
            return "1" if e.value else "0"
        v = int(e.value)
        if self.wide and e.dtype in _WIDENED:
            return f"INT64_C({v})"
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
        name = self.names(e, e.name)
        return f"((int64_t){name})" if self.wide and e.dtype in _WIDENED else name

    def visit_string_imm(self, e: StringImm) -> str:
        raise LoweringError(f"build: target 'c' cannot pass the string {e.value!r}")

    def visit_load(self, e: Load) -> str:
        if e.buffer in self.registers.lanes:
            return self.registers.element(e.buffer, e.index)
        saved, self.wide = self.wide, False  # the element itself is of the buffer's dtype
        try:
            guard = self.access_guard(e)
            text = f"{self.buffer_name(e.buffer)}[{self.index(e.buffer, e.index)}]"
            if e.dtype == "bool":  # any nonzero byte is true, as NumPy reads it (a C bool of 2 is undefined)
                text = f"(((const uint8_t *){self.buffer_name(e.buffer)})[{self.index(e.buffer, e.index)}] != 0)"
        finally:
            self.wide = saved
        flags = self.written.get(e.buffer) if self.checked else None
        if flags is not None:
            site = self.site("warp" if e.buffer.scope == "warp" else "block", e.buffer.name)
            index = self.index(e.buffer, e.index)
            unwritten = f"tb_unwritten(tb_ctx, {site}, {index})"
            guard = f"({guard} && ({flags}[{index}] || {unwritten}))" if guard else f"({flags}[{index}] || {unwritten})"
        clamped = self.clamped_index(e) if guard is not None and flags is None and e.dtype != "bool" else None
        if clamped is not None:
            # Checks made before the loop: the read itself is unconditional, with each checked
            # index replaced by the region's start where its check failed (the call raises
            # then), so that the loop vectorizes as an unchecked one would.
            saved, self.wide = self.wide, False
            try:
                text = f"{self.buffer_name(e.buffer)}[{self.index(e.buffer, clamped)}]"
            finally:
                self.wide = saved
        elif guard is not None:
            text = f"({guard} ? {text} : ({c_type(e.dtype)})0)"
        return f"((int64_t){text})" if self.wide and e.dtype in _WIDENED else text

    def visit_buffer_view(self, e: BufferView) -> str:
        raise LoweringError(f"build: buffer '{e.name}' can only be passed to a call")

    # -- arithmetic -----------------------------------------------------------------------------
    def dtype_of(self, e: Expr) -> str:
        """The dtype *e* is computed in: int64 for narrower integers in an index (see :meth:`index`)."""
        return "int64" if self.wide and e.dtype in _WIDENED else e.dtype

    def visit_default(self, e: Expr) -> str:
        op = _ARITH.get(type(e))
        if op is not None:
            text = f"({self(e.a)} {op} {self(e.b)})"  # type: ignore[attr-defined]
            return f"(({c_type(e.dtype)}){text})" if _narrow(self.dtype_of(e)) else text
        op = _COMPARE.get(type(e))
        if op is not None:
            a, b = e.a, e.b  # type: ignore[attr-defined]
            if self.needs_wide(a) or self.needs_wide(b):  # compared exactly, as the Python target does
                return f"({self.exact(a)} {op} {self.exact(b)})"
            return f"({self(a)} {op} {self(b)})"
        raise LoweringError(f"build: target 'c' cannot compute {type(e).__name__} yet; use target='python'")

    def visit_div(self, e: Div) -> str:
        if not is_float(e.dtype) and self._may_trap(e.b):
            return self._checked("div", e)
        text = f"({self(e.a)} / {self(e.b)})"
        return f"(({c_type(e.dtype)}){text})" if _narrow(self.dtype_of(e)) else text

    def visit_mod(self, e: Mod) -> str:
        if is_float(e.dtype):
            return self._math("fmod", e.dtype, [e.a, e.b])
        if self._may_trap(e.b):
            return self._checked("mod", e)
        return f"(({c_type(self.dtype_of(e))})({self(e.a)} % {self(e.b)}))"

    def visit_floor_div(self, e: FloorDiv) -> str:
        if is_float(e.dtype):
            return self._math("floor", e.dtype, [Div(e.a, e.b)])
        if self._may_trap(e.b):
            return self._checked("floordiv", e)
        return f"{self._helper('floordiv', self.dtype_of(e))}({self(e.a)}, {self(e.b)})"

    def visit_floor_mod(self, e: FloorMod) -> str:
        if is_float(e.dtype):
            a, b = self(e.a), self(e.b)
            return f"({a} - {self._math('floor', e.dtype, [Div(e.a, e.b)])} * {b})"
        if self._may_trap(e.b):
            return self._checked("floormod", e)
        return f"{self._helper('floormod', self.dtype_of(e))}({self(e.a)}, {self(e.b)})"

    def _may_trap(self, divisor: Expr) -> bool:
        return self.checked and _may_trap(divisor)

    def _checked(self, kind: str, e: Expr) -> str:
        """An integer division whose divisor may be 0 (or -1): through a helper that records the
        error in the call's context instead of trapping."""
        dtype = self.dtype_of(e)
        t = c_type(dtype)
        plain = self._helper(kind, dtype) if kind.startswith("floor") else ("/" if kind == "div" else "%")
        name, text = checked_division(kind, dtype, t, plain)
        self.helpers.setdefault(name, text)
        site = self.site(dtype, str(e))
        value = f"{name}(tb_ctx, {site}, {self(e.a)}, {self(e.b)})"  # type: ignore[attr-defined]
        return f"(({t}){value})" if _narrow(dtype) else value

    def visit_min(self, e: Min) -> str:
        return f"{self._helper('min', self.dtype_of(e))}({self(e.a)}, {self(e.b)})"

    def visit_max(self, e: Max) -> str:
        return f"{self._helper('max', self.dtype_of(e))}({self(e.a)}, {self(e.b)})"

    def visit_and(self, e: And) -> str:
        return f"({self(e.a)} && {self(e.b)})"

    def visit_or(self, e: Or) -> str:
        return f"({self(e.a)} || {self(e.b)})"

    def visit_not(self, e: Not) -> str:
        return f"(!{self(e.a)})"

    def visit_select(self, e: Select) -> str:
        return f"({self(e.condition)} ? {self(e.true_value)} : {self(e.false_value)})"

    def visit_cast(self, e: Cast) -> str:
        if is_float(e.value.dtype) and not is_float(e.dtype) and not is_bool(e.dtype) and e.dtype != "handle":
            saved, self.wide = self.wide, False
            try:
                text = f"{self._float_to_int(e.dtype)}((double){self(e.value)})"
            finally:
                self.wide = saved
            return f"((int64_t){text})" if self.wide and e.dtype in _WIDENED else text
        if self.wide and e.dtype in _WIDENED:  # exact, as the Python target computes an index
            return f"((int64_t){self(e.value)})"
        saved, self.wide = self.wide, False
        try:
            return f"(({c_type(e.dtype)}){self(e.value)})"
        finally:
            self.wide = saved

    def _float_to_int(self, dtype: str) -> str:
        """A helper converting a double to *dtype* as NumPy does on x86 (see FLOAT_TO_INT): C
        leaves a value out of range, or NaN, undefined."""
        name = f"tb_f2{dtype}"
        if name not in self.helpers:
            self.helpers.setdefault("tb_f2int64", FLOAT_TO_INT["int64"])
            self.helpers.setdefault("tb_f2int32", FLOAT_TO_INT["int32"])
            self.helpers[name] = FLOAT_TO_INT.get(dtype) or (
                f"static inline {c_type(dtype)} {name}(double x) {{ return ({c_type(dtype)})"
                f"{'tb_f2int64' if dtype == 'uint32' else 'tb_f2int32'}(x); }}")
        return name

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
        if name in ("tvm_call_packed", "tvm_call_trace_packed"):
            fn = args[0]
            if not isinstance(fn, StringImm):
                raise LoweringError("build: call_packed needs the function's name as a string")
            return self._python_call("packed" if name == "tvm_call_packed" else "trace", fn.value, e, args[1:])
        if name in EXTERN_CALLS:
            fn = args[0]
            assert isinstance(fn, StringImm)
            if get_global_func(fn.value, allow_missing=True) is not None:
                return self._python_call("extern", fn.value, e, args[1:])
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
        if name in ("shift_left", "shift_right"):
            return f"{self._shift_helper(name, self.dtype_of(e))}({self(args[0])}, {self(args[1])})"
        if name in _BIT_OPS:
            return f"({self(args[0])} {_BIT_OPS[name]} {self(args[1])})"
        if name == "bitwise_not":
            return f"(~{self(args[0])})"
        if name == "reinterpret":
            return f"{self._reinterpret(args[0].dtype, e.dtype)}({self(args[0])})"
        if name in FLOAT_TESTS:  # C's type-generic macros, float16 included
            return f"({name}({self(args[0])}) != 0)"
        if name == "ldexp":  # the exponent stays an integer
            single = e.dtype in ("float32", "float16")
            text = f"ldexp{'f' if single else ''}(({'float' if single else 'double'}){self(args[0])}, " \
                   f"(int){self(args[1])})"
            return text if e.dtype in ("float32", "float64") else f"(({c_type(e.dtype)}){text})"
        if name == "clz":  # of the operand's own width, and all of them for 0 (__builtin_clz leaves 0 undefined)
            width = bits(args[0].dtype)
            own = f"(uint{width}_t)({self(args[0])})"
            counted = f"__builtin_clzll({own})" if width > 32 else f"(__builtin_clz({own}) - {32 - width})"
            return f"({own} == 0 ? {width} : (int32_t){counted})"
        if name == "popcount":  # of the operand's own width: an int8's -1 has 8 set bits
            width = bits(args[0].dtype)
            own = f"(uint{width}_t)({self(args[0])})"
            return f"__builtin_popcountll({own})" if width > 32 else f"__builtin_popcount({own})"
        raise LoweringError(f"build: unknown intrinsic '{e.name}'; give it a lowering rule with "
                            f"te.register_intrin_lowering('{e.name}', target='c', f=...)")

    # -- helpers --------------------------------------------------------------------------------
    def _python_call(self, kind: str, name: str, call: Call, args: list[Expr]) -> str:
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
                layout = (*view.shape, *view.strides, view.offset, view.buffer.size)
                ints += [str(BUFFER), str(DTYPES.index(view.buffer.dtype)), str(len(view.shape)),
                         *(f"(int64_t)({self.index(view.buffer, x)})" for x in layout), flags]
                ptrs.append(self.buffer_name(view.buffer))
            elif isinstance(a, StringImm):
                ints += [str(STRING), str(len(strings))]
                strings.append(a.value)
            elif is_float(a.dtype):
                ints.append(str(FLOAT))
                floats.append(f"(double)({self(a)})")
            else:
                ints += [str(INT), f"(int64_t)({self(a)})"]
        dtype = call.dtype
        self.calls.append(PythonCall(kind, name, tuple(strings), None if call is self.discarded else dtype))
        result = "tb_fres" if is_float(dtype) else "tb_ires"
        cast = f"({c_type(dtype)})" if dtype != "handle" else "(int32_t)"
        return (f"({{ void* tb_p[] = {{{', '.join([*ptrs, '0'])}}}; int64_t tb_i[] = {{{', '.join(ints)}}}; "
                f"double tb_f[] = {{{', '.join([*floats, '0'])}}}; double tb_fres = 0; int64_t tb_ires = 0; "
                f"tb_call(tb_ctx, {len(self.calls) - 1}, tb_p, tb_i, tb_f, &tb_fres, &tb_ires); {cast}{result}; }})")

    def _math(self, name: str, dtype: str, args: list[Expr]) -> str:
        """A libm call in *dtype*'s precision (float16 and integers computed in float/double)."""
        single = dtype in ("float32", "float16")
        kind = "float" if single else "double"
        text = f"{_LIBM[name]}{'f' if single else ''}({', '.join(f'({kind}){self(a)}' for a in args)})"
        return text if dtype in ("float32", "float64") else f"(({c_type(dtype)}){text})"

    def _reinterpret(self, source: str, dtype: str) -> str:
        """A helper copying the bits of a *source* value into a *dtype* one."""
        name = f"tb_reinterpret_{source}_{dtype}"
        if name not in self.helpers:
            self.helpers[name] = (f"static inline {c_type(dtype)} {name}({c_type(source)} x) "
                                  f"{{ {c_type(dtype)} y; memcpy(&y, &x, sizeof y); return y; }}")
        return name

    def _shift_helper(self, name: str, dtype: str) -> str:
        """A shift defined for every count, as NumPy defines it: a count outside ``[0, bits)``
        (negative too) gives 0, or -1 for a negative value shifted right; a left shift goes
        through the unsigned type (C leaves a signed overflow undefined)."""
        t = c_type(dtype)
        helper = f"tb_{name}_{dtype}"
        if helper not in self.helpers:
            width = bits(dtype)
            unsigned = t if dtype.startswith("uint") else f"u{t}"
            if name == "shift_left":
                body = f"return (uint64_t)b < {width} ? ({t})(({unsigned})a << b) : ({t})0;"
            else:
                body = f"return (uint64_t)b < {width} ? ({t})(a >> b) : ({t})(a < 0 ? -1 : 0);"
            self.helpers[helper] = f"static inline {t} {helper}({t} a, int64_t b) {{ {body} }}"
        return helper

    def _helper(self, kind: str, dtype: str) -> str:
        t = c_type(dtype)
        name = f"tb_{kind}_{dtype}"
        if name in self.helpers:
            return name
        if kind in ("min", "max"):
            # NaN propagates (NumPy's maximum/minimum): a NaN first operand is kept, and a NaN
            # second one fails the comparison and is taken
            sign = "<" if kind == "min" else ">"
            body = f"return (a {sign} b || a != a) ? a : b;" if is_float(dtype) else f"return a {sign} b ? a : b;"
        elif kind == "floordiv":
            # branch-free, so that the compiler hoists and shares it like other arithmetic
            body = f"{t} r = a % b; return a / b - (({t})(r != 0) & ({t})((r ^ b) < 0));"
        else:
            body = f"{t} r = a % b; return r + (b & -(({t})(r != 0) & ({t})((r ^ b) < 0)));"
        self.helpers[name] = f"static inline {t} {name}({t} a, {t} b) {{ {body} }}"
        return name


#: Float to integer conversions as x86 does them and NumPy there computes them: an int32 or int64
#: out of range (or NaN) is the type's smallest value (the "integer indefinite"); narrower types
#: keep the low bits of the int32 conversion, uint32 those of the int64 one, and uint64 above 2^63
#: converts x - 2^63 and flips the top bit (so NaN and values past 2^64 give 0).
FLOAT_TO_INT = {
    "int64": ("static inline int64_t tb_f2int64(double x) { return (x >= -9223372036854775808.0 && "
              "x < 9223372036854775808.0) ? (int64_t)x : INT64_MIN; }"),
    "int32": ("static inline int32_t tb_f2int32(double x) { return (x > -2147483649.0 && x < 2147483648.0) "
              "? (int32_t)x : INT32_MIN; }"),
    "uint64": ("static inline uint64_t tb_f2uint64(double x) { return x < 9223372036854775808.0 ? "
               "(uint64_t)tb_f2int64(x) : ((uint64_t)tb_f2int64(x - 9223372036854775808.0) ^ "
               "0x8000000000000000ULL); }"),
}


def replace_subexpression(e: Expr, old: Expr, new: Expr) -> Expr:
    """*e* with each subexpression structurally equal to *old* replaced by *new* (*e* itself
    when there is none)."""
    target = hash(old)

    class _Replace(ExprMutator):
        def __call__(self, x: Expr) -> Expr:
            if hash(x) == target and structural_equal(x, old):
                return new
            return super().__call__(x)
    return _Replace()(e)


#: Integer types an index computes in 64 bits (see :meth:`CExprSource.index`).
_WIDENED = ("int8", "int16", "int32", "uint8", "uint16", "uint32")


def wide_buffer(buf: Buffer) -> bool:
    """Whether indices into *buf* are computed in 64 bits: unless it has a constant size below 2^31."""
    size = arith.value_of(buf.size)
    return not (isinstance(size, int) and size < 2**31)


def _may_trap(divisor: Expr) -> bool:
    """Whether an integer division by *divisor* may trap: by 0, or by -1 (the smallest value's
    quotient overflows); a constant other than these never does."""
    return not (isinstance(divisor, IntImm) and divisor.value not in (0, -1))


def _neg(e: Expr) -> Expr:
    return Sub(FloatImm(e.dtype, 0.0), e) if is_float(e.dtype) else Sub(IntImm(e.dtype, 0), e)
