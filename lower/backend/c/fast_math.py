"""Fast math in the generated C: ``fast_exp`` as a polynomial, on scalars and on GCC vectors
(libm's ``expf`` stays scalar without ``-ffast-math``, and gcc does not if-convert the scalar
function's range checks, so vector loops call the vector version).

exp(x) = 2^n * p(r), n the integer nearest x / ln 2, r = x - n ln 2 in two parts (Cody and
Waite), |r| <= ln 2 / 2, p Cephes' degree-7 polynomial for expf. 2^n is applied in two
halves, so results near the float maximum and the subnormal ones below 2^-126 come out
right. Measured over 2^22 inputs spread over every sign and exponent and over every multiple
of 2^-10 in [-104, 89] (``tests/lower/test_fast_math.py``, which allows 2): at most 1 ulp
from the correctly rounded exp; inf above ln(FLT_MAX), 0 below -104, nan for nan.
"""

from __future__ import annotations

#: The C function ``tb_fast_expf``.
FAST_EXPF = """static inline float tb_fast_expf(float x) {
  const float hi = 88.72283935546875f, lo = -104.0f;
  float xc = x > hi ? hi : (x < lo ? lo : x);
  xc = x != x ? 0.0f : xc;
  float n = __builtin_floorf(xc * 1.44269504088896341f + 0.5f);
  float r = xc - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  int32_t e = (int32_t)n;
  int32_t e1 = e >> 1, e2 = e - e1;
  int32_t b1 = (e1 + 127) << 23, b2 = (e2 + 127) << 23;
  float s1, s2;
  __builtin_memcpy(&s1, &b1, 4);
  __builtin_memcpy(&s2, &b2, 4);
  float y = p * s1 * s2;
  y = x > hi ? __builtin_inff() : (x < lo ? 0.0f : y);
  return x != x ? x : y;
}"""


def fast_expf_vector(lanes: int) -> tuple[str, str]:
    """The name and C text of ``fast_exp`` on a vector of *lanes* float32: the same steps as
    :data:`FAST_EXPF`, its conditions as lane masks."""
    vf, vi = f"tb_float32x{lanes}", f"tb_int32x{lanes}"
    name = f"tb_fast_expf_x{lanes}"

    def b(c: str) -> str:
        return "(" + vf + "){" + ", ".join([c] * lanes) + "}"

    text = f"""typedef int32_t {vi} __attribute__((vector_size({4 * lanes}), aligned(4)));
static inline {vf} {name}({vf} x) {{
  const {vf} hi = {b("88.72283935546875f")}, lo = {b("-104.0f")};
  {vi} over = x > hi, under = x < lo, nan = x != x;
  {vf} xc = ({vf})((({vi})x & ~over) | (({vi})hi & over));
  xc = ({vf})((({vi})xc & ~under) | (({vi})lo & under));
  xc = ({vf})(({vi})xc & ~nan);
  {vf} t = xc * 1.44269504088896341f + 0.5f;
  {vf} n = __builtin_convertvector(__builtin_convertvector(t, {vi}), {vf});
  n = n - ({vf})((n > t) & ({vi})({b("1.0f")}));
  {vf} r = xc - n * 0.693359375f;
  r = r + n * 2.12194440e-4f;
  {vf} p = {b("1.9875691500e-4f")};
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  {vi} e = __builtin_convertvector(n, {vi});
  {vi} e1 = e >> 1, e2 = e - e1;
  {vf} y = p * ({vf})((e1 + 127) << 23) * ({vf})((e2 + 127) << 23);
  y = ({vf})((({vi})y & ~over) | (({vi}){b("__builtin_inff()")} & over));
  y = ({vf})(({vi})y & ~under);
  y = ({vf})((({vi})y & ~nan) | (({vi})x & nan));
  return y;
}}"""
    return name, text
