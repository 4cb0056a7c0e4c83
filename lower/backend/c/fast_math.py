"""Fast math in the generated C: ``exp``, ``log``, ``tanh``, ``sigmoid`` and ``erf`` of float32
as polynomials, each written once and emitted both for scalars and for GCC vectors (libm's
functions stay scalar without ``-ffast-math``, and gcc does not if-convert their range
checks, so vector loops call the vector versions).

- exp: 2^n p(r), n the integer nearest x / ln 2, r = x - n ln 2 in two parts (Cody and Waite),
  p Cephes' degree-7 polynomial; 2^n applied in two halves so results near the float maximum
  and the subnormal ones come out right, and overflow and underflow happen in that product.
- log: x = 2^e m with m in [sqrt(1/2), sqrt(2)), log(m) = f - f^2/2 + f^3 P(f), f = m - 1;
  subnormal inputs are scaled by 2^23 first.
- tanh: |x| + |x|^3 P(x^2) below 0.625, 1 - 2 / (exp(2|x|) + 1) above, with the sign of x.
- sigmoid: 1 / (1 + e) for x >= 0, e / (1 + e) below, e = exp(-|x|): no overflow either side;
  in double precision (exp by a degree-11 Taylor polynomial), rounded once to float.
- erf: x + x P(x^2) below 1, 1 - exp(-x^2) Q(1/x - 0.625) up to 4 (Q fits erfc(x) exp(x^2)), 1 above.

The polynomials of log, tanh and erf are least-squares fits of the relative error (iteratively
reweighted towards minimax) made for this module. The maximum errors from the correctly rounded
result, measured by ``tests/lower/test_fast_math.py`` over every sign and exponent and on dense
grids, scalar and vector alike, are in :data:`MAX_ULPS`; inf, nan, signed zeros and subnormals
follow C's functions.
"""

from __future__ import annotations

import math

#: The functions, as ``te.fast_<name>`` calls them.
FAST_FUNCTIONS = ("exp", "log", "tanh", "sigmoid", "erf")
#: Measured maximum distance in ulps from the correctly rounded result, by function.
MAX_ULPS = {"exp": 1, "log": 1, "tanh": 1, "sigmoid": 1, "erf": 1}

_BITCAST = """static inline int32_t tb_f2i(float x) { int32_t i; __builtin_memcpy(&i, &x, 4); return i; }
static inline float tb_i2f(int32_t i) { float x; __builtin_memcpy(&x, &i, 4); return x; }"""
_SIGN, _MAGNITUDE = "(-2147483647 - 1)", "2147483647"
_NAN = '__builtin_nanf("")'


class _Form:
    """How a function body reads on one float (*lanes* 1) or on a GCC vector of *lanes*, of
    32 bits (float32) or 64 (double, for sigmoid's intermediate values): constants,
    selections by a condition mask, bit casts and conversions."""

    def __init__(self, lanes: int, width: int = 32) -> None:
        self.lanes, self.width = lanes, width
        self.scalar = "float" if width == 32 else "double"
        self.F = self.scalar if lanes == 1 else f"tb_float{width}x{lanes}"
        self.I = f"int{width}_t" if lanes == 1 else f"tb_int{width}x{lanes}"

    def wide(self) -> _Form:
        """The same lanes in double precision."""
        return _Form(self.lanes, 64)

    def name(self, func: str) -> str:
        return f"tb_fast_{func}f" + ("" if self.lanes == 1 else f"_x{self.lanes}")

    def k(self, value: str) -> str:
        return value if self.lanes == 1 else f"({self.F}){{{', '.join([value] * self.lanes)}}}"

    def sel(self, mask: str, a: str, b: str) -> str:
        if self.lanes == 1:
            return f"({mask} ? {a} : {b})"
        return f"(({self.F})((({self.I})({a}) & ({mask})) | (({self.I})({b}) & ~({mask}))))"

    def seli(self, mask: str, a: str, b: str) -> str:
        return f"({mask} ? {a} : {b})" if self.lanes == 1 else f"((({a}) & ({mask})) | (({b}) & ~({mask})))"

    def bits(self, x: str) -> str:
        helper = "tb_f2i" if self.width == 32 else "tb_d2l"
        return f"{helper}({x})" if self.lanes == 1 else f"(({self.I})({x}))"

    def flt(self, i: str) -> str:
        helper = "tb_i2f" if self.width == 32 else "tb_l2d"
        return f"{helper}({i})" if self.lanes == 1 else f"(({self.F})({i}))"

    def to_int(self, x: str) -> str:
        return f"((int32_t)({x}))" if self.lanes == 1 else f"__builtin_convertvector({x}, {self.I})"

    def to_float(self, i: str) -> str:
        """*i* (an integer, or a float of another width) converted to this form's floats."""
        return f"(({self.scalar})({i}))" if self.lanes == 1 else f"__builtin_convertvector({i}, {self.F})"

    def abs(self, x: str) -> str:
        return self.flt(f"{self.bits(x)} & {_MAGNITUDE}")

    def with_sign_of(self, value: str, x: str) -> str:
        return self.flt(f"{self.bits(value)} | ({self.bits(x)} & {_SIGN})")

    def types(self, with_float: bool) -> list[tuple[str, str]]:
        """The definitions its casts need: the bit-cast helpers of one lane, or the vector
        types (the float one only *with_float*: float32 vectors are the caller's)."""
        if self.lanes == 1:
            return [("tb_f2i", _BITCAST)] if self.width == 32 else [("tb_d2l", _BITCAST64)]
        attrs = f"__attribute__((vector_size({self.width // 8 * self.lanes}), aligned({self.width // 8})))"
        out = [(self.I, f"typedef int{self.width}_t {self.I} {attrs};")]
        if with_float:
            out.append((self.F, f"typedef {self.scalar} {self.F} {attrs};"))
        return out


def _horner(var: str, result: str, coefficients: tuple[str, ...], d: _Form) -> list[str]:
    """Statements leaving sum(c_i var^i) in a new variable *result*."""
    lines = [f"{d.F} {result} = {d.k(coefficients[-1] + 'f')};"]
    lines += [f"{result} = {result} * {var} + {c}f;" for c in reversed(coefficients[:-1])]
    return lines


_LOG = ("0.333333313", "-0.250008225", "0.200012267", "-0.166233569", "0.142017618", "-0.131601945",
        "0.127615497", "-0.0763442963")
_TANH = ("-0.333332807", "0.133314416", "-0.0537397116", "0.0206390787", "-0.00570497848")
_ERF_SMALL = ("0.128379166", "-0.37612626", "0.112835854", "-0.026853811", "0.00518832775", "-0.000801019254",
              "7.85385782e-05")
_ERFCX = ("0.305952996", "0.382283777", "-0.172393501", "0.0437656194", "0.023258362", "-0.0469092987",
          "0.0446610413", "-0.027239576", "-0.00709264027", "0.0270192958")
_EXP = ("1.0f", "1.0f", "5.0000001201e-1", "1.6666665459e-1", "4.1665795894e-2", "8.3334519073e-3",
        "1.3981999507e-3", "1.9875691500e-4")


def _exp(d: _Form) -> list[str]:
    # Clamped to [-104, 89] so that NaN passes through the comparisons; below -104 the result
    # rounds to 0 and above 88.72 the product overflows to inf without a check of its own. n is
    # rounded to nearest by adding 1.5 * 2^23, whose bits then hold n as an integer.
    F = d.F
    return [
        f"{F} xc = {d.sel('x < -104.0f', d.k('-104.0f'), 'x')};",
        f"xc = {d.sel('xc > 89.0f', d.k('89.0f'), 'xc')};",
        f"{F} t = xc * 1.44269504088896341f + 12582912.0f;",
        f"{d.I} e = {d.bits('t')} - 1262485504;",
        f"{F} n = t - 12582912.0f;",
        f"{F} r = xc - n * 0.693359375f;",
        "r = r + n * 2.12194440e-4f;",
        *_horner("r", "p", tuple(c.removesuffix("f") for c in _EXP[2:]), d),
        "p = p * r * r + r + 1.0f;",
        f"{d.I} e1 = e >> 1, e2 = e - e1;",
        f"return p * {d.flt('(e1 + 127) << 23')} * {d.flt('(e2 + 127) << 23')};",
    ]


def _log(d: _Form) -> list[str]:
    F = d.F
    return [
        f"{d.I} sub = x < 1.17549435e-38f;",
        f"{d.I} b = {d.bits(d.sel('sub', 'x * 8388608.0f', 'x'))};",
        f"{d.I} e = ((b >> 23) & 255) - 126 - {d.seli('sub', '23', '0')};",
        f"{F} m = {d.flt('(b & 8388607) | 1056964608')};",  # the mantissa in [0.5, 1)
        f"{d.I} small = m < 0.707106781f;",
        f"m = {d.sel('small', 'm + m', 'm')};",
        f"e = e - {d.seli('small', '1', '0')};",
        f"{F} f = m - 1.0f;",
        f"{F} z = f * f;",
        *_horner("f", "p", _LOG, d),
        f"{F} ef = {d.to_float('e')};",
        f"{F} y = f * z * p;",
        "y = y - ef * 2.12194440e-4f;",
        "y = y - 0.5f * z;",
        "y = y + f + ef * 0.693359375f;",
        f"y = {d.sel('x < 0.0f', d.k(_NAN), 'y')};",
        f"y = {d.sel('x == 0.0f', d.k('-__builtin_inff()'), 'y')};",
        f"y = {d.sel('x == __builtin_inff()', 'x', 'y')};",
        f"return {d.sel('x != x', 'x', 'y')};",
    ]


def _tanh(d: _Form) -> list[str]:
    F = d.F
    return [
        f"{F} a = {d.abs('x')};",
        f"{F} z = x * x;",
        *_horner("z", "p", _TANH, d),
        f"{F} small = a + a * z * p;",
        f"{F} large = 1.0f - 2.0f / ({d.name('exp')}(a + a) + 1.0f);",
        f"return {d.with_sign_of(d.sel('a < 0.625f', 'small', 'large'), 'x')};",
    ]


def _sigmoid(d: _Form) -> list[str]:
    # In double precision: e = exp(-|x|) by 2^n p(r) (r = -|x| - n ln 2 in two parts, p the
    # Taylor polynomial of degree 11, 1e-14 relative on |r| <= ln 2 / 2), then 1 / (1 + e) or
    # e / (1 + e), rounded once to float. |x| is clamped at 104, beyond which the result
    # rounds to 0 or 1; NaN passes through the comparisons.
    w = d.wide()
    D = w.F
    lines = [
        f"{D} xd = {w.to_float('x')};",
        f"{D} a = {w.sel('xd < 0.0', '0.0 - xd', 'xd')};",
        f"a = {w.sel('a > 104.0', w.k('104.0'), 'a')};",
        f"{D} t = a * -1.4426950408889634 + 6755399441055744.0;",
        f"{w.I} bits = {w.bits('t')} - 4843621399236968448;",  # n, from the bits of 1.5 * 2^52 + n
        f"{D} n = t - 6755399441055744.0;",
        f"{D} r = (0.0 - a) - n * 0.6931471803691238;",
        "r = r - n * 1.9082149292705877e-10;",
        f"{D} p = {w.k(repr(1 / math.factorial(11)))};",
    ]
    lines += [f"p = p * r + {1 / math.factorial(k)!r};" for k in range(10, -1, -1)]
    lines += [
        f"{D} e = p * {w.flt('(bits + 1023) << 52')};",
        f"return {d.to_float(w.sel('xd < 0.0', 'e', w.k('1.0')) + ' / (1.0 + e)')};",
    ]
    return lines


def _erf(d: _Form) -> list[str]:
    F = d.F
    return [
        f"{F} a = {d.abs('x')};",
        f"{F} z = x * x;",
        *_horner("z", "p", _ERF_SMALL, d),
        f"{F} ac = {d.sel('a > 4.0f', d.k('4.0f'), 'a')};",
        f"{F} s = 1.0f / ac - 0.625f;",
        *_horner("s", "q", _ERFCX, d),
        f"{F} large = 1.0f - {d.name('exp')}(0.0f - ac * ac) * q;",
        f"return {d.sel('a < 1.0f', 'x + x * p', d.with_sign_of('large', 'x'))};",
    ]


_BODIES = {"exp": _exp, "log": _log, "tanh": _tanh, "sigmoid": _sigmoid, "erf": _erf}
_USES_EXP = ("tanh", "erf")
_BITCAST64 = """static inline int64_t tb_d2l(double x) { int64_t i; __builtin_memcpy(&i, &x, 8); return i; }
static inline double tb_l2d(int64_t i) { double x; __builtin_memcpy(&x, &i, 8); return x; }"""


def fast_function(func: str, lanes: int = 1) -> tuple[str, list[tuple[str, str]]]:
    """The C name of ``fast_<func>`` on a float32 (*lanes* 1) or a vector of *lanes*, and the
    definitions it needs, dependencies first, as (name, text) pairs for the source's helpers
    (the float vector type is the caller's)."""
    d = _Form(lanes)
    needs = d.types(with_float=False)
    if func in _USES_EXP:
        needs += fast_function("exp", lanes)[1]
    if func == "sigmoid":
        needs += d.wide().types(with_float=True)
    body = "\n".join("  " + line for line in _BODIES[func](d))
    # Exact float arithmetic even under build(..., fast_math=True): the range reductions would
    # not survive reassociation, nor the handling of inf and NaN a finite-math assumption.
    needs.append((d.name(func), f"static inline __attribute__((optimize(\"no-fast-math\"))) {d.F} "
                                f"{d.name(func)}({d.F} x) {{\n{body}\n}}"))
    return d.name(func), needs
