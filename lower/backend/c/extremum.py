"""A float32 ``max`` or ``min`` reduction over a contiguous row, by vectors, with the serial
loop's exact result.

The reduction ``acc = max(acc, x[base + k])`` is one chain of dependent compares, one element
at a time: a fifth of a softmax's time. Its order matters only where the result's bits depend
on which of several equal or unordered elements wins: a NaN (whose payload and position
decide) or a zero (``-0.0`` and ``0.0`` compare equal). Elsewhere the maximum of a set of
floats is the one value whatever the order. So the row is reduced by vectors first
(:func:`helper`), and where it held a NaN or came to a zero, the serial loop runs as written.
"""

from __future__ import annotations

from dataclasses import dataclass

from bound import simplify
from lower.ir.stmt import For, ForKind, Load, Store
from schedule import arith
from schedule.ir.expr import Expr, IntImm, Max, Min
from schedule.ir.functor import distinct_post_order, free_vars, substitute


@dataclass(frozen=True)
class Extremum:
    """A loop reducing a contiguous row into one held element: *kind* (``max``/``min``), the
    accumulator's store, the row's load and its first index."""

    kind: str
    store: Store
    row: Load
    first: Expr


def plan_extremum(s: For, registers: dict) -> Extremum | None:
    """The reduction *s* is, if it is a serial loop whose body is ``acc = max(acc, row[i])`` (or
    ``min``, either operand order) with ``acc`` a float32 element held in a variable
    (*registers*: buffer to lanes) and ``row``'s index stepping by 1 with the loop variable."""
    body = s.body
    if s.kind != ForKind.SERIAL or not isinstance(body, Store) or body.buffer.dtype != "float32":
        return None
    if registers.get(body.buffer) != 1 or not isinstance(body.value, (Max, Min)):
        return None
    v = s.loop_var
    if v in free_vars([body.index]):
        return None
    a, b = body.value.a, body.value.b
    acc = next((x for x in (a, b) if _same_element(x, body)), None)
    row = b if acc is a else a if acc is b else None
    if acc is None or not isinstance(row, Load) or row.buffer is body.buffer or row.dtype != "float32" \
            or row.buffer in registers or any(isinstance(x, Load) for x in distinct_post_order(row.index)):
        return None  # (an index read from data is checked element by element)
    step = simplify(arith.sub(substitute(row.index, {v: arith.add(v, IntImm(v.dtype, 1))}), row.index))
    if arith.value_of(step) != 1:
        return None
    first = simplify(substitute(row.index, {v: s.min}))
    return Extremum("max" if isinstance(body.value, Max) else "min", body, row, first)


def _same_element(e: Expr, store: Store) -> bool:
    return isinstance(e, Load) and e.buffer is store.buffer and arith.value_of(
        simplify(arith.sub(e.index, store.index))) == 0


def helper(kind: str) -> tuple[str, str]:
    """The C helper reducing a row for *kind*, and its name."""
    name = f"tb_{kind}_run_float32"
    better = ">" if kind == "max" else "<"
    text = f"""/* The {kind} of *acc and p[0..n) by vectors, into *acc; 0 (and *acc unchanged) where a
   NaN or a zero result makes the serial loop's order matter: the caller then runs that loop. */
static int {name}(float* acc, const float* p, int64_t n) {{
  typedef float tb_v8 __attribute__((vector_size(32), aligned(4)));
  typedef int32_t tb_i8 __attribute__((vector_size(32)));
  const float a = *acc;
  int32_t abits;
  memcpy(&abits, &a, 4);
  if ((abits & 0x7fffffff) > 0x7f800000) return 0;
  tb_v8 m0 = {{a, a, a, a, a, a, a, a}}, m1 = m0;
  tb_i8 nan = {{0}};
  const tb_i8 magnitude = (tb_i8){{0}} + 0x7fffffff, inf = (tb_i8){{0}} + 0x7f800000;
  int64_t i = 0;
  for (; i + 16 <= n; i += 16) {{
    const tb_v8 x0 = *(const tb_v8*)&p[i], x1 = *(const tb_v8*)&p[i + 8];
    nan |= (((tb_i8)x0 & magnitude) > inf) | (((tb_i8)x1 & magnitude) > inf);
    const tb_i8 w0 = x0 {better} m0, w1 = x1 {better} m1;
    m0 = (tb_v8)(((tb_i8)x0 & w0) | ((tb_i8)m0 & ~w0));
    m1 = (tb_v8)(((tb_i8)x1 & w1) | ((tb_i8)m1 & ~w1));
  }}
  float r = a;
  for (int k = 0; k < 8; ++k) {{
    if (nan[k]) return 0;
    if (m0[k] {better} r) r = m0[k];
    if (m1[k] {better} r) r = m1[k];
  }}
  for (; i < n; ++i) {{
    const float x = p[i];
    int32_t bits;
    memcpy(&bits, &x, 4);
    if ((bits & 0x7fffffff) > 0x7f800000) return 0;
    if (x {better} r) r = x;
  }}
  if (r == 0.0f) return 0;
  *acc = r;
  return 1;
}}"""
    return name, text
