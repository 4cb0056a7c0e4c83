"""The state of one call of a C kernel, and the checks that report into it.

Every call gets its own context (:class:`CallContext`): the callback into Python and the first
error any thread of the call met. A check that fails (an integer division by zero, an index
computed from data outside its buffer, an allocation that failed, a Python function that
raised) records its code and the check's *site* once, and the kernel goes on with a harmless
value (0, an empty loop) so that no signal is raised and no memory outside a buffer is touched;
after the first error no further Python function is called. When the call returns, the error
becomes the Python exception the checked Python target raises for the same cause.
"""

from __future__ import annotations

import ctypes
from collections.abc import Sequence
from dataclasses import dataclass

from lower.backend.python.runtime import OutOfBoundsError, UnwrittenReadError, unwritten_message
from lower.ir.stmt import Load, Store
from schedule.ir.expr import Call, Expr
from schedule.ir.extern_calls import EXTERN_CALLS
from schedule.ir.functor import distinct_post_order

#: Error codes a context records (0: none).
PYTHON, DIV_ZERO, DIV_OVERFLOW, ALLOC, INDEX, UNWRITTEN, ASSERT = 1, 2, 3, 4, 5, 6, 7

#: ``int32_t callback(tb_ctx_t* ctx, int32_t call, void** ptrs, int64_t* ints, double* floats,
#: double* float_result, int64_t* int_result)``; nonzero when the Python function raised.
CALLBACK = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.c_int32, ctypes.POINTER(ctypes.c_void_p),
                            ctypes.POINTER(ctypes.c_int64), ctypes.POINTER(ctypes.c_double),
                            ctypes.POINTER(ctypes.c_double), ctypes.POINTER(ctypes.c_int64))


class CallContext(ctypes.Structure):
    """``tb_ctx_t``: the C side of one call (the layout of :data:`C_RUNTIME`'s struct)."""

    _fields_ = [("python", CALLBACK), ("status", ctypes.c_int32), ("site", ctypes.c_int32),
                ("detail", ctypes.c_int64 * 3)]


C_RUNTIME = r"""
typedef struct tb_ctx tb_ctx_t;

/* Keep a vector in a register: GCC would otherwise fold each of its uses into an instruction's
   memory operand, loading it again for every use. */
#if defined(__GNUC__) && defined(__x86_64__)
#define TB_IN_REGISTER(v) __asm__("" : "+v"(v))
#elif defined(__GNUC__) && defined(__aarch64__)
#define TB_IN_REGISTER(v) __asm__("" : "+w"(v))
#else
#define TB_IN_REGISTER(v) ((void)0)
#endif
typedef int32_t (*tb_callback_t)(tb_ctx_t*, int32_t, void**, int64_t*, double*, double*, int64_t*);
struct tb_ctx { tb_callback_t python; int32_t status; int32_t site; int64_t detail[3]; };

/* Record the first error of a call (later ones, from any thread, are dropped). */
__attribute__((cold, noinline)) static void tb_fail(tb_ctx_t* c, int32_t code, int32_t site, int64_t a,
                                                    int64_t b, int64_t d) {
  int32_t none = 0;
  if (__atomic_compare_exchange_n(&c->status, &none, -1, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
    c->site = site; c->detail[0] = a; c->detail[1] = b; c->detail[2] = d;
    __atomic_store_n(&c->status, code, __ATOMIC_RELEASE);
  }
}

static inline int tb_failed(tb_ctx_t* c) { return __atomic_load_n(&c->status, __ATOMIC_RELAXED) != 0; }

/* The process's count of SIGINTs (set by the loader, see lower.backend.c.interrupts): a kernel
   whose count moved since it started skips the rest of its outer loops. */
int32_t* tb_interrupt = 0;
static inline int32_t tb_signals(void) { return tb_interrupt ? __atomic_load_n(tb_interrupt, __ATOMIC_RELAXED) : 0; }
static inline int tb_stopped(int32_t start) { return __builtin_expect(tb_signals() != start, 0); }

/* A call of a Python function; none after the call's first error. */
static int32_t tb_call(tb_ctx_t* c, int32_t site, void** p, int64_t* i, double* f, double* fr, int64_t* ir) {
  if (tb_failed(c)) return 1;
  if (c->python(c, site, p, i, f, fr, ir) != 0) { tb_fail(c, 1, site, 0, 0, 0); return 1; }
  return 0;
}

/* count elements of size bytes, 64-byte aligned; NULL (and the error recorded) when the memory
   is not there. A region with a negative extent is empty, as on the Python target. */
static void* tb_alloc(tb_ctx_t* c, int32_t site, int64_t count, size_t size) {
  void* p = NULL;
  size_t bytes = count > 0 ? (size_t)count * size : 0;
  if (count > 0 && (uint64_t)count > SIZE_MAX / size) { tb_fail(c, 4, site, count, (int64_t)size, 0); return NULL; }
  if (posix_memalign(&p, 64, bytes ? bytes : 64) != 0) { tb_fail(c, 4, site, count, (int64_t)size, 0); return NULL; }
  return p;
}

/* A read of an element of warp memory that no thread of the warp wrote: 0, and the error. */
__attribute__((cold, noinline)) static int tb_unwritten(tb_ctx_t* c, int32_t site, int64_t i) {
  tb_fail(c, 6, site, i, 0, 0);
  return 0;
}

/* Whether an index computed from data is in its region, lo <= i < lo + extent (else the error). */
static inline int tb_within(tb_ctx_t* c, int32_t site, int64_t i, int64_t lo, int64_t extent) {
  if (__builtin_expect(i < lo || i >= lo + extent, 0)) { tb_fail(c, 5, site, i, lo, extent); return 0; }
  return 1;
}
"""


def checked_division(kind: str, dtype: str, ctype: str, plain: str) -> tuple[str, str]:
    """The name and C text of *kind* (``div``, ``mod``, ``floordiv``, ``floormod``) of *dtype*
    that records a zero divisor (and, for signed division, the one quotient that overflows)
    instead of trapping; *plain* is the unchecked function or operator it falls back on."""
    name = f"tb_{kind}_{dtype}_checked"
    signed = not dtype.startswith("uint")
    apply = f"{plain}(a, b)" if plain.startswith("tb_") else f"a {plain} b"
    lines = [f"static inline {ctype} {name}(tb_ctx_t* c, int32_t site, {ctype} a, {ctype} b) {{",
             f"  if (__builtin_expect(b == 0, 0)) {{ tb_fail(c, {DIV_ZERO}, site, 0, 0, 0); return 0; }}"]
    if signed:
        low = {"int8": "INT8_MIN", "int16": "INT16_MIN", "int32": "INT32_MIN", "int64": "INT64_MIN"}[dtype]
        if kind in ("div", "floordiv"):
            lines.append(f"  if (__builtin_expect(b == -1 && a == {low}, 0)) {{ "
                         f"tb_fail(c, {DIV_OVERFLOW}, site, 0, 0, 0); return 0; }}")
        else:  # a remainder by -1 is 0 (x86 traps on INT_MIN % -1)
            lines.append("  if (b == -1) return 0;")
    lines += [f"  return {apply};", "}"]
    return name, "\n".join(lines)


@dataclass(frozen=True)
class Site:
    """What a check guards, for its error message: the C site's kind and a description."""

    kind: str
    text: str


def failure(ctx: CallContext, sites: Sequence[Site]) -> BaseException:
    """The exception for the error *ctx* recorded (not PYTHON, whose exception is kept aside)."""
    code, site = ctx.status, sites[ctx.site] if 0 <= ctx.site < len(sites) else Site("", "")
    a, b, d = ctx.detail[0], ctx.detail[1], ctx.detail[2]
    if code == DIV_ZERO:
        return ZeroDivisionError(f"integer division or modulo by zero in {site.text}")
    if code == DIV_OVERFLOW:
        return OverflowError(f"integer overflow: the quotient of the smallest {site.kind} by -1 in {site.text} "
                             f"does not fit {site.kind}")
    if code == ALLOC:
        return MemoryError(f"cannot allocate buffer '{site.text}': {a} elements of {b} bytes "
                           f"({a * b} bytes)")
    if code == INDEX:
        return OutOfBoundsError(f"out-of-bounds {site.kind} of {site.text}: index {a}, computed from data, is "
                                f"outside the realized region [{b}, {b + d})")
    if code == UNWRITTEN:
        return UnwrittenReadError(unwritten_message(site.text, a, site.kind))
    if code == ASSERT:
        return AssertionError(site.text)
    return RuntimeError(f"the kernel failed with code {code}")


def needs_guard(access: Load | Store) -> bool:
    """Whether an access is checked while the kernel runs: its index is computed from data, or
    written by the user (see :class:`~lower.ir.stmt.Load`)."""
    return (access.checked or access.buffer.scope in ("warp", "shared")
            or any(from_data(e) for e in (*access.checks, access.index)))


def from_data(index: Expr) -> bool:
    """Whether *index* depends on data (a value loaded, or returned by a Python function):
    nothing before the run bounds it."""
    return any(isinstance(x, Load) or (isinstance(x, Call) and (x.name in ("tvm_call_packed", "tvm_call_trace_packed")
                                                                 or x.name in EXTERN_CALLS))
               for x in distinct_post_order(index))
