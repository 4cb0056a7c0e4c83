"""The kernels of the differential test: each a schedule whose calls can go wrong in one of the
ways a user's can (a zero or negative divisor or factor, an index from data, a scalar near the
int32 limit, overlapping arrays, a Python function that raises), with a strategy for its
arguments. Arguments are drawn as specs and made into fresh arrays for each target, so that
both targets see the same memory, overlaps included."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from hypothesis import strategies as st

import schedule as te

INT32_EDGES = [2**31 - 1, -(2**31), 2**31, -(2**31) - 1]


@dataclass(frozen=True)
class Array:
    """A fresh array of *values*; with *base*, a view ``base[start:start + len(values)]`` of a
    buffer shared with the other arguments naming the same base."""

    values: tuple
    dtype: str
    shape: tuple[int, ...]
    base: str | None = None
    start: int = 0


@dataclass(frozen=True)
class Kernel:
    name: str
    make: Callable[[], tuple[te.Schedule, list[Any]]]  # the schedule and build's arguments
    args: Callable[[st.DataObject], list[Any]]  # Array specs and scalars


def materialize(specs: list[Any]) -> list[Any]:
    """The call's values: arrays made anew from *specs* (views of shared buffers where they say)."""
    sizes: dict[str, tuple[int, str]] = {}
    for s in specs:
        if isinstance(s, Array) and s.base is not None:
            end = s.start + int(np.prod(s.shape))
            size, dtype = sizes.get(s.base, (0, s.dtype))
            sizes[s.base] = (max(size, end), dtype)
    bases = {k: np.zeros(n, dtype) for k, (n, dtype) in sizes.items()}
    out: list[Any] = []
    for s in specs:
        if not isinstance(s, Array):
            out.append(s)
            continue
        if s.base is None:
            if s.dtype == "bool-bytes":  # a bool array whose bytes may be any value, as a view makes it
                out.append(np.array(s.values, "uint8").view(bool).reshape(s.shape))
                continue
            out.append(np.array(s.values, s.dtype).reshape(s.shape))
            continue
        n = int(np.prod(s.shape))
        view = bases[s.base][s.start:s.start + n].reshape(s.shape)
        view[...] = np.array(s.values, s.dtype).reshape(s.shape)  # later views overwrite earlier ones
        out.append(view)
    return out


def _ints(draw: st.DataObject, n: int, lo: int = -50, hi: int = 50) -> tuple:
    return tuple(draw.draw(st.lists(st.integers(lo, hi), min_size=n, max_size=n)))


def _floats(draw: st.DataObject, n: int) -> tuple:
    values = st.one_of(st.floats(-8, 8, width=32), st.sampled_from([0.0, -0.0, 1.0, -1.0]))
    return tuple(draw.draw(st.lists(values, min_size=n, max_size=n)))


def _divisors(draw: st.DataObject, n: int) -> tuple:
    """Divisors, -1 among them; a 0 at one place in one draw of four."""
    values = draw.draw(st.lists(st.sampled_from([-1, 1, 2, -3, 7, 5]), min_size=n, max_size=n))
    if draw.draw(st.integers(0, 3)) == 0:
        values[draw.draw(st.integers(0, n - 1))] = 0
    return tuple(values)


# -- the kernels --------------------------------------------------------------------------------

def _division(op: str, vectorize: bool) -> Kernel:
    """Division by data (vectorized or not) and by a scalar, in two statements: an element's
    errors come in one order on both targets."""
    def make():
        A = te.placeholder((16,), "int32", name="A")
        D = te.placeholder((16,), "int32", name="D")
        k = te.var("k")
        fn = {"floordiv": te.floordiv, "floormod": te.floormod, "truncdiv": te.truncdiv, "truncmod": te.truncmod}[op]
        by_data = te.compute((16,), lambda i: fn(A[i], D[i]), name="by_data")
        B = te.compute((16,), lambda i: by_data[i] - fn(A[i], k), name="B")
        s = te.create_schedule(B.op)
        if vectorize:
            s[by_data].vectorize(s[by_data].split(by_data.op.axis[0], 8)[1])
        return s, [A, D, B, k]

    def args(draw):
        a = _ints(draw, 16)
        if draw.draw(st.booleans()):  # the one quotient that overflows
            a = (-(2**31),) + a[1:]
        k = draw.draw(st.sampled_from([0, -1, 3, -7, 3, -7, *INT32_EDGES]))
        return [Array(a, "int32", (16,)), Array(_divisors(draw, 16), "int32", (16,)),
                Array(_ints(draw, 16), "int32", (16,)), k]
    return Kernel(f"{op}{'-vectorized' if vectorize else ''}", make, args)


def _gather() -> Kernel:
    def make():
        L = te.var("L")
        I = te.placeholder((6,), "int32", name="I")
        A = te.placeholder((L,), name="A")
        s_ = te.var("s")
        B = te.compute((6,), lambda i: A[I[i] * s_ + 1], name="B")
        return te.create_schedule(B.op), [I, A, B, s_]

    def args(draw):
        length = draw.draw(st.integers(1, 12))
        index = _ints(draw, 6, -1, 5)
        scale = draw.draw(st.sampled_from([0, 1, 1, 2, 2, -1, 70000, *INT32_EDGES]))
        return [Array(index, "int32", (6,)), Array(_floats(draw, length), "float32", (length,)),
                Array(_floats(draw, 6), "float32", (6,)), scale]
    return Kernel("gather", make, args)


def _symbolic_split() -> Kernel:
    def make():
        n, m = te.var("n"), te.var("m")
        A = te.placeholder((n,), name="A")
        B = te.compute((n,), lambda i: A[i] * 2 + 1, name="B")
        s = te.create_schedule(B.op)
        xo, _ = s[B].split(B.op.axis[0], factor=m)
        s[B].parallel(xo)
        return s, [A, B, m]

    def args(draw):
        n = draw.draw(st.integers(0, 9))
        # 2^31 - 1 itself runs 2^31 inner iterations (a while on C, forever on Python): its
        # bound's arithmetic is tested on C alone (test_call_arguments)
        m = draw.draw(st.sampled_from([0, -3, 1, 4, 7, *INT32_EDGES[1:]]))
        return [Array(_floats(draw, n), "float32", (n,)), Array(_floats(draw, n), "float32", (n,)), m]
    return Kernel("symbolic-split", make, args)


def _symbolic_reads() -> Kernel:
    def make():
        n, m = te.var("n"), te.var("m")
        A = te.placeholder((n,), name="A")
        B = te.compute((m,), lambda i: A[i] + A[i + 2], name="B")
        return te.create_schedule(B.op), [A, B]

    def args(draw):
        n, m = draw.draw(st.integers(0, 8)), draw.draw(st.integers(0, 8))
        return [Array(_floats(draw, n), "float32", (n,)), Array(_floats(draw, m), "float32", (m,))]
    return Kernel("symbolic-reads", make, args)


def _reduction() -> Kernel:
    def make():
        n = te.var("n")
        A = te.placeholder((4,), name="A")
        k = te.reduce_axis((0, n), name="k")
        B = te.compute((4,), lambda i: te.sum(A[i] * k.var.astype("float32"), axis=k), name="B")
        return te.create_schedule(B.op), [A, B, n]

    def args(draw):
        n = draw.draw(st.sampled_from([-5, -1, 0, 1, 3, 7, 2**31, -(2**31) - 1]))
        return [Array(_floats(draw, 4), "float32", (4,)), Array(_floats(draw, 4), "float32", (4,)), n]
    return Kernel("reduction", make, args)


def _elementwise(schedule: str) -> Kernel:
    def make():
        A = te.placeholder((4, 8), name="A")
        B = te.compute((4, 8), lambda i, j: A[i, j] * 2 + 1, name="B")
        s = te.create_schedule(B.op)
        if schedule == "fused":
            xo, xi = s[B].split(s[B].fuse(*B.op.axis), 8)
            s[B].parallel(xo)
            s[B].vectorize(xi)
        elif schedule == "cached":
            s.cache_write(B, "local")
        return s, [A, B]

    def args(draw):
        how = draw.draw(st.sampled_from(["apart", "same", "shifted", "apart"]))
        a, b = _floats(draw, 32), _floats(draw, 32)
        if how == "apart":
            return [Array(a, "float32", (4, 8)), Array(b, "float32", (4, 8))]
        shift = 0 if how == "same" else draw.draw(st.integers(1, 8))
        return [Array(a, "float32", (4, 8), "x", 0), Array(a, "float32", (4, 8), "x", shift)]
    return Kernel(f"elementwise-{schedule}", make, args)


def _transpose() -> Kernel:
    def make():
        A = te.placeholder((4, 4), name="A")
        B = te.compute((4, 4), lambda i, j: A[j, i] + 1, name="B")
        return te.create_schedule(B.op), [A, B]

    def args(draw):
        a = _floats(draw, 16)
        if draw.draw(st.booleans()):
            return [Array(a, "float32", (4, 4), "x"), Array(a, "float32", (4, 4), "x")]
        return [Array(a, "float32", (4, 4)), Array(_floats(draw, 16), "float32", (4, 4))]
    return Kernel("transpose", make, args)


def _float_math() -> Kernel:
    def make():
        A, B = te.placeholder((8,), name="A"), te.placeholder((8,), name="B")
        # The Python target computes floats in double precision and rounds them where it stores
        # them: nothing here may overflow float32 on the way (exp(160)) or floor a quotient that
        # rounds across an integer; test_float_rounding checks those at their IEEE edges.
        C = te.compute((8,), lambda i: A[i] / B[i] + te.log(A[i]) - te.sqrt(B[i]), name="C")
        s = te.create_schedule(C.op)
        s[C].vectorize(s[C].split(C.op.axis[0], 4)[1])
        return s, [A, B, C]

    def args(draw):
        return [Array(_floats(draw, 8), "float32", (8,)), Array(_floats(draw, 8), "float32", (8,)),
                Array(_floats(draw, 8), "float32", (8,))]
    return Kernel("float-math", make, args)


def _calls_python(fail_on: str) -> Kernel:
    def make():
        A = te.placeholder((6,), name="A")
        B = te.compute((6,), lambda i: te.call_extern("float32", f"differential.{fail_on}", A[i], i), name="B")
        return te.create_schedule(B.op), [A, B]

    def args(draw):
        return [Array(_floats(draw, 6), "float32", (6,)), Array(_floats(draw, 6), "float32", (6,))]
    return Kernel(f"calls-python-{fail_on}", make, args)


def _negative_raises(x: float, i: int) -> float:
    if x < -4:
        raise ArithmeticError(f"element {i} is {x}")
    return x * 3


def _returns(x: float, i: int) -> Any:
    return None if x < -6 else (float("nan") if x > 7 else x)


_SPECIAL = [float("nan"), float("inf"), float("-inf"), 3e9, -3e9, 1e20, -1e20, 2.0**63, -(2.0**63), 2.0**31,
            -0.5, 300.7, -1.0, 0.0]


def _special_floats(draw: st.DataObject, n: int) -> tuple:
    """Floats with NaN, infinities and values past every integer type's range among them."""
    return tuple(draw.draw(st.sampled_from(_SPECIAL) | st.floats(-1e3, 1e3)) for _ in range(n))


def _min_max() -> Kernel:
    """max and min (scalar, vector and a max reduction) with NaN operands: NaN propagates."""
    def make():
        A, B = te.placeholder((8,), name="A"), te.placeholder((8,), name="B")
        C = te.compute((8,), lambda i: te.max(A[i], B[i]) + te.min(B[i], A[i]), name="C")
        k = te.reduce_axis((0, 8), name="k")
        R = te.compute((1,), lambda i: te.max(A[k], axis=k), name="R")
        s = te.create_schedule([C.op, R.op])
        s[C].vectorize(s[C].split(C.op.axis[0], 4)[1])
        return s, [A, B, C, R]

    def args(draw):
        return [Array(_special_floats(draw, 8), "float32", (8,)), Array(_special_floats(draw, 8), "float32", (8,)),
                Array((0.0,) * 8, "float32", (8,)), Array((0.0,), "float32", (1,))]
    return Kernel("min-max-nan", make, args)


def _cast(dtype: str) -> Kernel:
    """A float64 cast to an integer type, NaN, infinities and values out of range included."""
    def make():
        A = te.placeholder((6,), name="A", dtype="float64")
        C = te.compute((6,), lambda i: A[i].astype(dtype), name="C")
        return te.create_schedule(C.op), [A, C]

    def args(draw):
        return [Array(_special_floats(draw, 6), "float64", (6,)), Array((0,) * 6, dtype, (6,))]
    return Kernel(f"cast-{dtype}", make, args)


def _bool_bytes() -> Kernel:
    """A bool array whose bytes are not all 0 or 1: any nonzero byte is true."""
    def make():
        A = te.placeholder((6,), name="A", dtype="bool")
        C = te.compute((6,), lambda i: A[i].astype("int32") * 10 + te.if_then_else(A[i], 1, 2), name="C")
        return te.create_schedule(C.op), [A, C]

    def args(draw):
        return [Array(tuple(draw.draw(st.integers(0, 255)) for _ in range(6)), "bool-bytes", (6,)),
                Array((0,) * 6, "int32", (6,))]
    return Kernel("bool-bytes", make, args)


def _unsigned() -> Kernel:
    """uint32 arithmetic that wraps around before a division."""
    def make():
        A, B = te.placeholder((6,), name="A", dtype="uint32"), te.placeholder((6,), name="B", dtype="uint32")
        two = te.const(2, "uint32")
        C = te.compute((6,), lambda i: te.floordiv(A[i] - B[i], two) + A[i] * B[i], name="C")
        return te.create_schedule(C.op), [A, B, C]

    def args(draw):
        u32 = lambda: tuple(draw.draw(st.integers(0, 2**32 - 1) | st.integers(0, 9)) for _ in range(6))  # noqa: E731
        return [Array(u32(), "uint32", (6,)), Array(u32(), "uint32", (6,)), Array((0,) * 6, "uint32", (6,))]
    return Kernel("uint32-wrap", make, args)


def _shifts() -> Kernel:
    """Shifts by counts read from data, negative and past the width among them."""
    def make():
        A, B = te.placeholder((6,), name="A", dtype="int32"), te.placeholder((6,), name="B", dtype="int32")
        C = te.compute((6,), lambda i: (A[i] << B[i]) + (A[i] >> B[i]), name="C")
        return te.create_schedule(C.op), [A, B, C]

    def args(draw):
        return [Array(_ints(draw, 6, -2**31, 2**31 - 1), "int32", (6,)), Array(_ints(draw, 6, -40, 40), "int32", (6,)),
                Array((0,) * 6, "int32", (6,))]
    return Kernel("shifts", make, args)


def _half_scalar() -> Kernel:
    """A float16 scalar argument."""
    def make():
        A = te.placeholder((6,), name="A", dtype="float16")
        k = te.var("k", "float16")
        C = te.compute((6,), lambda i: A[i] * k + k, name="C")
        return te.create_schedule(C.op), [A, C, k]

    def args(draw):
        return [Array(_floats(draw, 6), "float16", (6,)), Array((0.0,) * 6, "float16", (6,)),
                draw.draw(st.sampled_from([0.5, -2.0, 1.5, 3.0]))]
    return Kernel("float16-scalar", make, args)


def register_functions() -> None:
    """The Python functions the kernels call."""
    te.register_func("differential.raises", _negative_raises, override=True)
    te.register_func("differential.returns", _returns, override=True)


def _stage(kind: str, P: te.Tensor, Q: te.Tensor, k: int, di: int, dj: int) -> te.Tensor:
    """One stage of a random pipeline over 6 x 6 tensors, reading *P* (and *Q*)."""
    if kind == "elementwise":
        return te.compute((6, 6), lambda i, j: P[i, j] * 2 - 1, name=f"T{k}")
    if kind == "stencil":
        inside = lambda i, j: te.all(i + di >= 0, i + di < 6, j + dj >= 0, j + dj < 6)  # noqa: E731
        return te.compute((6, 6), lambda i, j: te.if_then_else(inside(i, j), P[i + di, j + dj], 0.0) + P[i, j],
                          name=f"T{k}")
    if kind == "product":
        return te.compute((6, 6), lambda i, j: P[i, j] * Q[j, i], name=f"T{k}")
    r = te.reduce_axis((0, 6), name=f"r{k}")
    return te.compute((6, 6), lambda i, j: te.sum(P[i, r] * 0.5, axis=r), name=f"T{k}")


def _pipeline(seed: int) -> Kernel:
    """A random chain of stages (element-wise, guarded stencils, products, row sums) and a random
    schedule, from *seed*."""

    def make():
        rng = np.random.default_rng(seed)
        stages = [te.placeholder((6, 6), name="A")]
        for k in range(int(rng.integers(2, 5))):
            P = stages[int(rng.integers(0, len(stages)))]
            Q = stages[int(rng.integers(0, len(stages)))]
            di, dj = (int(x) for x in rng.integers(-1, 2, 2))
            stages.append(_stage(str(rng.choice(["elementwise", "stencil", "product", "reduce"])), P, Q, k, di, dj))
        out = stages[-1]
        s = te.create_schedule(out.op)
        choice = str(rng.choice(["none", "split", "inline", "compute_at"]))
        if choice == "split":
            xo, xi = s[out].split(out.op.axis[1], 4)
            s[out].parallel(out.op.axis[0])
        elif choice == "inline":
            for t in stages[1:-1]:
                if not t.op.reduce_axis and t.op in s.stage_map:
                    s[t].compute_inline()
        elif choice == "compute_at" and len(stages) > 2 and stages[-2] in out.op.input_tensors:
            s[stages[-2]].compute_at(s[out], out.op.axis[0])
        return s, [stages[0], out]

    def args(draw):
        if draw.draw(st.integers(0, 4)) == 0:  # the output over its input
            a = _floats(draw, 36)
            return [Array(a, "float32", (6, 6), "x"), Array(a, "float32", (6, 6), "x")]
        return [Array(_floats(draw, 36), "float32", (6, 6)), Array(_floats(draw, 36), "float32", (6, 6))]
    return Kernel(f"pipeline-{seed}", make, args)


KERNELS: list[Kernel] = [
    *(_division(op, v) for op in ("floordiv", "floormod", "truncdiv", "truncmod") for v in (False, True)),
    _gather(), _symbolic_split(), _symbolic_reads(), _reduction(),
    _elementwise("plain"), _elementwise("fused"), _elementwise("cached"), _transpose(), _float_math(),
    _calls_python("raises"), _calls_python("returns"),
    _min_max(), *(_cast(d) for d in ("int8", "uint8", "int32", "uint32", "int64", "uint64")), _bool_bytes(),
    _unsigned(), _half_scalar(), _shifts(),
    *(_pipeline(seed) for seed in range(8)),
]
