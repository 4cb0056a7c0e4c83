"""TVM's hybrid script tests (v0.13 test_te_hybrid_script), written anew: each script runs on
NumPy arrays as Python (the emulation) and, on tensors, lowers and builds in both modes on the
suite's targets; the built results equal both the emulation and a NumPy computation."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from lower.ir.stmt import AttrStmt, For, ProducerConsumer
from schedule.ir.extern_stmt import Alloc, Attr, Block, Check, ElemLoad, ElemStore, Loop

from .run import random, run

BOTH = pytest.mark.parametrize("exact", [False, True])
# The scripts call the names hybrid script gives them (output_tensor, range kinds, math ...).
# ruff: noqa: F821


@te.hybrid.script
def outer_product(n, m, a, b):
    """A docstring, which the parser skips."""
    c = output_tensor((n, m), a.dtype)
    for i in range(n):
        for j in range(m):
            assert i < n and j < m, "index out of range!"
            c[i, j] = a[i] * b[j]
    return c


@te.hybrid.script
def triangle(a, b):
    """An upper triangle: the inner loop starts at the outer one's variable."""
    c = output_tensor((10, 10), dtype="float32")
    for i in range(10):
        for j in range(i, 10):
            c[i, j] = a[i] * b[j]
    return c


def _check(script, tensors, arrays, exact, expected=None, scalars=()):
    """Build *script* on *tensors*, run it on *arrays*; compare with the emulation (and *expected*)."""
    outs = script(*tensors)
    outs = outs if isinstance(outs, list) else [outs]
    s = te.create_schedule([t.op for t in outs])
    args = [t for t in tensors if isinstance(t, te.Tensor)]
    got = run(s, [*args, *outs], [a for a, t in zip(arrays, tensors) if isinstance(t, te.Tensor)], exact)
    emulated = script(*arrays)
    emulated = list(emulated) if isinstance(emulated, tuple) else [emulated]
    for g, e in zip(got, emulated):
        np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
    if expected is not None:
        for g, e in zip(got, expected if isinstance(expected, list) else [expected]):
            np.testing.assert_allclose(g, e, rtol=1e-5, atol=1e-5)
    return outs, s


@BOTH
def test_outer_product(exact):
    n, m = te.size_var("n"), te.size_var("m")
    a, b = te.placeholder((n,), name="a"), te.placeholder((m,), name="b")
    c = outer_product(n, m, a, b)
    loop = c.op.body
    assert isinstance(loop, Loop) and loop.var.name == "i" and loop.min.value == 0 and loop.extent is n
    inner = loop.body
    assert isinstance(inner, Loop) and inner.var.name == "j" and inner.extent is m
    check, store = inner.body.stmts  # the assert, checked when the operation runs (TVM's AssertStmt)
    assert isinstance(check, Check) and check.message.endswith("index out of range!")
    assert isinstance(store, ElemStore) and store.buffer.name == "outer_product"
    assert isinstance(store.value, te.Mul) and isinstance(store.value.a, ElemLoad)
    assert store.value.a.buffer.name == "a" and store.value.b.buffer.name == "b"
    text = str(lower(te.create_schedule(c.op), [a, b, c], exact=exact))
    assert "outer_product[((i*m) + j)] = (a[i]*b[j])" in text
    av, bv = random((9,), seed=1), random((11,), seed=2)
    got = np.full((9, 11), np.nan, "float32")
    build(te.create_schedule(c.op), [a, b, c], exact=exact)(av, bv, got)
    np.testing.assert_allclose(got, np.outer(av, bv))
    np.testing.assert_allclose(outer_product(9, 11, av, bv), np.outer(av, bv))


@BOTH
def test_fanout_keeps_a_local_variable_in_a_one_element_buffer(exact):
    @te.hybrid.script
    def fanout(n, a):
        three = 3.0
        b = output_tensor((a.shape[0] - 3,), a.dtype)
        for i in range(a.shape[0] - 3):
            sigma = 0.0
            for j in range(3):
                sigma += a[i + j]
            sigma = sigma / three
            b[i] = sigma
        return b

    n = te.size_var("n")
    a = te.placeholder((n,), "float32", name="a")
    b = fanout(n, a)
    loop = b.op.body
    assert isinstance(loop, Loop) and te.structural_equal(loop.extent, n - 3)
    local = loop.body
    assert isinstance(local, Alloc) and local.buffer.name == "sigma" and local.buffer.scope == "local"
    steps = local.body
    assert isinstance(steps, Block) and len(steps.stmts) == 4 and isinstance(steps.stmts[1], Loop)
    av = random((10,), seed=3)
    (got,) = run(te.create_schedule(b.op), [a, b], [av], exact)
    np.testing.assert_allclose(got, (av[:-3] + av[1:-2] + av[2:-1]) / 3, rtol=1e-6)
    np.testing.assert_allclose(fanout(10, av), got, rtol=1e-6)


@BOTH
def test_loop_kinds(exact):
    @te.hybrid.script
    def looptype(a, b, c):
        d = output_tensor((16,), "int32")
        e = output_tensor((16,), "int32")
        f = output_tensor((16,), "int32")
        for i in parallel(16):
            d[i] = a[i]
        for j in vectorize(16):
            e[j] = b[j]
        for k in unroll(16):
            f[k] = c[k]
        return d, e, f

    a, b, c = (te.placeholder((16,), name=x, dtype="int32") for x in "abc")
    d, e, f = looptype(a, b, c)
    assert [s.kind for s in d.op.body.stmts] == ["parallel", "vectorize", "unroll"]
    arrays = [random((16,), "int32", seed=k) for k in range(3)]
    _check(looptype, [a, b, c], arrays, exact, expected=arrays)


@BOTH
def test_if(exact):
    @te.hybrid.script
    def if_then_else(a):
        b = output_tensor((10,), "int32")
        c = output_tensor((10,), "int32")
        for i in range(10):
            if i % 2 == 0:
                c[i] = a[i]
            else:
                c[i] = b[i]
        for i in unroll(10):
            b[i] = -1 if i % 2 == 0 else 1
        return b, c

    @te.hybrid.script
    def if_triple_condition(a):
        b = output_tensor((10,), "int32")
        for i in range(10):
            if 0 <= i < 5:
                b[i] = a[i]
            else:
                b[i] = a[i] + 1
        return b

    @te.hybrid.script
    def if_and(a):
        b = output_tensor((10,), "int32")
        for i in range(10):
            if i >= 0 and i < 5:
                b[i] = a[i]
            else:
                b[i] = a[i] + 1
        return b

    a = te.placeholder((10,), dtype="int32", name="a")
    av = random((10,), "int32", seed=4)
    step = np.where(np.arange(10) < 5, av, av + 1)
    # c's odd elements read b before it is written: they are whatever b's storage held, so
    # only the even ones and b are compared (the emulation reads b's zeros there).
    outs = if_then_else(a)
    got = run(te.create_schedule([t.op for t in outs]), [a, *outs], [av], exact)
    np.testing.assert_array_equal(got[0], np.where(np.arange(10) % 2 == 0, -1, 1))
    np.testing.assert_array_equal(got[1][::2], av[::2])
    _check(if_triple_condition, [a], [av], exact, expected=step)
    _check(if_and, [a], [av], exact, expected=step)


@BOTH
def test_bind_threads(exact):
    """TVM's test_bind: one thread per element, a local accumulator per thread, and a kernel
    whose blocks and threads come from max_num_threads and ceil_div."""
    @te.hybrid.script
    def vec_add(a, b):
        c = output_tensor((1000,), "float32")
        for tx in bind("threadIdx.x", 1000):
            c[tx] = a[tx] + b[tx]
        return c

    @te.hybrid.script
    def row_sum(a):
        c = output_tensor((a.shape[0],), a.dtype)
        total = allocate((1,), a.dtype, "local")
        len_i = a.shape[0]
        len_j = a.shape[1]
        for i in bind("threadIdx.x", len_i):
            total[0] = 0.0
            for k in const_range(len_j):
                total[0] += a[i, k]
            c[i] = total[0]
        return c

    @te.hybrid.script
    def max_threads(a):
        b = output_tensor(a.shape, a.dtype)
        n = a.shape[0]
        m = max_num_threads(True)
        for i in bind("threadIdx.x", m):
            for j in bind("blockIdx.x", ceil_div(n, m)):
                if i * m + j < n:
                    b[i * m + j] = a[i * m + j] + a[i * m + j]
        return b

    a, b = te.placeholder((1000,), name="a"), te.placeholder((1000,), name="b")
    av, bv = random((1000,), seed=5), random((1000,), seed=6)
    c, _ = _check(vec_add, [a, b], [av, bv], exact, expected=av + bv)
    assert isinstance(c[0].op.body, Attr) and c[0].op.body.key == "thread_extent"
    m = te.placeholder((8, 4), name="m")
    mv = random((8, 4), seed=7)
    _check(row_sum, [m], [mv], exact, expected=mv.sum(axis=1))
    # TVM's script indexes with i * m + j, so it writes only the first ceil(n / m) elements of
    # each stretch of m: those are compared (with the emulation too), the others stay unwritten.
    big = te.placeholder((5000,), name="big")
    bigv = random((5000,), seed=8)
    out = max_threads(big)
    (got,) = run(te.create_schedule(out.op), [big, out], [bigv], exact)
    written = np.array([i * 1024 + j for i in range(1024) for j in range(5) if i * 1024 + j < 5000])
    np.testing.assert_allclose(got[written], 2 * bigv[written])
    np.testing.assert_allclose(got[written], max_threads(bigv)[written])
    assert np.isnan(np.delete(got, written)).all()


@BOTH
def test_math_intrinsics(exact):
    @te.hybrid.script
    def intrin_real(a):
        b = output_tensor((8,), "float32")
        b[0] = sqrt(a[0])
        b[1] = log(a[1])
        b[2] = exp(a[2])
        b[3] = sigmoid(a[3])
        b[4] = power(a[4], a[5])
        b[5] = tanh(a[5])
        b[6] = min(a[4], a[5])
        b[7] = max(a[5], a[6])
        return b

    @te.hybrid.script
    def intrin_int(a):
        b = output_tensor((2,), "int32")
        b[0] = popcount(a[0])
        b[1] = popcount(a[1])
        return b

    a = te.placeholder((8,), name="a")
    av = np.arange(2, 10).astype("float32")
    expected = np.array([np.sqrt(2), np.log(3), np.exp(4), 1 / (1 + np.exp(-5)), 6.0 ** 7, np.tanh(7), 6, 8],
                        "float32")
    _check(intrin_real, [a], [av], exact, expected=expected)
    ai = te.placeholder((2,), dtype="int32", name="ai")
    aiv = np.array([114514, -1], "int32")
    _check(intrin_int, [ai], [aiv], exact, expected=np.array([bin(114514).count("1"), 32], "int32"))


@BOTH
def test_loops_that_do_not_start_at_zero(exact):
    @te.hybrid.script
    def blur(a):
        b = output_tensor((30, 30), "float32")
        for i in range(2, 32):
            for j in range(2, 32):
                s = 0.0
                for di in range(3):
                    for dj in range(3):
                        s += a[i - di, j - dj]
                b[i - 2, j - 2] = s / 9.0
        return b

    a = te.placeholder((32, 32), "float32", "a")
    av = random((32, 32), seed=9)
    box = sum(av[2 - di:32 - di, 2 - dj:32 - dj] for di in range(3) for dj in range(3)) / 9
    _check(blur, [a], [av], exact, expected=box)
    x, y = te.placeholder((10,), name="x"), te.placeholder((10,), name="y")
    xv, yv = random((10,), seed=10), random((10,), seed=11)
    (c,) = [triangle(x, y)]
    (got,) = run(te.create_schedule(c.op), [x, y, c], [xv, yv], exact)
    upper = np.triu(np.ones((10, 10), bool))
    np.testing.assert_allclose(got[upper], np.outer(xv, yv)[upper])


@BOTH
def test_allocate(exact):
    @te.hybrid.script
    def blur2d(a):
        b = output_tensor((30, 30), "float32")
        for i in range(30):
            ha = allocate((3, 30), "float32")
            for j in range(3):
                for k in range(30):
                    ha[j, k] = a[i + j, k] + a[i + j, k + 1] + a[i + j, k + 2]
            for j in range(30):
                b[i, j] = (ha[0, j] + ha[1, j] + ha[2, j]) / 9.0
        return b

    @te.hybrid.script
    def share_vec_add(a, b):
        c = output_tensor((256,), "float32")
        shared = allocate((256,), "float32", "shared")
        for i in bind("threadIdx.x", 256):
            shared[i] = a[i]
        local = allocate((256,), "float32", "local")
        for i in bind("threadIdx.x", 256):
            local[i] = b[i]
        for i in bind("threadIdx.x", 256):
            c[i] = shared[i] + local[i]
        return c

    a = te.placeholder((32, 32), "float32", "a")
    av = random((32, 32), seed=12)
    box = sum(av[di:30 + di, dj:30 + dj] for di in range(3) for dj in range(3)) / 9
    _check(blur2d, [a], [av], exact, expected=box)
    x, y = te.placeholder((256,), name="x"), te.placeholder((256,), name="y")
    xv, yv = random((256,), seed=13), random((256,), seed=14)
    _check(share_vec_add, [x, y], [xv, yv], exact, expected=xv + yv)


@BOTH
def test_upstream_and_downstream_computes(exact):
    @te.hybrid.script
    def scale_by_index(a):
        b = output_tensor((20,), "float32")
        for i in range(20):
            b[i] = a[i] * i
        return b

    a, b = te.placeholder((20,), name="a"), te.placeholder((20,), name="b")
    c = te.compute((20,), lambda x: a[x] + b[x], name="c")
    d = scale_by_index(c)
    s = te.create_schedule([c.op, d.op])
    av, bv = random((20,), seed=15), random((20,), seed=16)
    (got,) = run(s, [a, b, d], [av, bv], exact)
    np.testing.assert_allclose(got, (av + bv) * np.arange(20))
    e = scale_by_index(a)
    f = te.compute((20,), lambda x: e[x] + 1.0, name="f")
    (got,) = run(te.create_schedule(f.op), [a, f], [av], exact)
    np.testing.assert_allclose(got, av * np.arange(20) + 1)


@BOTH
def test_constant_parameter_and_captured_values(exact):
    @te.hybrid.script
    def add_something(a, b):
        c = output_tensor((11,), "int32")
        for i in range(11):
            c[i] = a[i] + b
        return c

    a = te.placeholder((11,), dtype="int32", name="a")
    c = add_something(a, te.const(11, "int32"))
    av = np.arange(11).astype("int32")
    (got,) = run(te.create_schedule(c.op), [a, c], [av], exact)
    np.testing.assert_array_equal(got, add_something(av, 11))
    np.testing.assert_array_equal(got, av + 11)

    n = 8
    constant_tuple = (10, n)
    constant_list = [[1, 2], [3, n]]
    const_value = 1

    @te.hybrid.script
    def add_captured(a):
        c = output_tensor((constant_tuple[1],), "int32")
        for i in range(constant_tuple[1]):
            c[i] = a[i] + constant_list[1][const_value]
        return c

    x = te.placeholder((n,), dtype="int32", name="x")
    _check(add_captured, [x], [av[:n]], exact, expected=av[:n] + n)


@BOTH
def test_outputs_of_one_script_feed_another(exact):
    @te.hybrid.script
    def kernel_a(a):
        b = output_tensor((16,), "int32")
        c = output_tensor((4, 4), "int32")
        for i in range(16):
            b[i] = a[i] + 2
            c[i // 4, i % 4] = a[i] + 1
        return b, c

    @te.hybrid.script
    def kernel_b(b, a):
        c = output_tensor((4, 4), "int32")
        for i in range(4):
            for j in range(4):
                c[i, j] = a[i * 4 + j] * b[i, j]
        return c

    a = te.placeholder((16,), "int32", name="a")
    b, c = kernel_a(a)
    d = kernel_b(c, b)
    av = np.arange(16).astype("int32")
    (got,) = run(te.create_schedule(d.op), [a, d], [av], exact)
    np_b, np_c = kernel_a(av)
    np.testing.assert_array_equal(got, kernel_b(np_c, np_b))
    np.testing.assert_array_equal(got, ((av + 2) * (av + 1)).reshape(4, 4))


@te.hybrid.script
def _fill_and_multiply(a, b):
    for i in range(len(a)):
        a[i] = i + 1.0
    for i in range(len(a)):
        b[i] = i + 1.0
    c = outer_product(10, 10, a, b)  # another script: inlined, its output an allocation here
    d = output_tensor(c.shape, c.dtype)
    for i in range(10):
        for j in range(10):
            d[i, j] = c[i, j] + i * j
    return d


@BOTH
def test_a_script_calls_another(exact):
    """TVM's func_call: the called script's body runs inside the caller; its output tensor is
    one of the caller's allocations, not an output of the operation."""
    a, b = te.placeholder((10,), name="a"), te.placeholder((10,), name="b")
    d = _fill_and_multiply(a, b)
    assert d.op.num_outputs == 1 and "allocate c[float32 * 100]" in str(lower(te.create_schedule(d.op), [a, b, d],
                                                                              exact=exact))
    index = np.arange(1, 11, dtype="float32")
    _check(_fill_and_multiply, [a, b], [np.zeros(10, "float32"), np.zeros(10, "float32")], exact,
           np.outer(index, index) + np.outer(np.arange(10), np.arange(10)))


@BOTH
def test_boolean_conditions(exact):
    @te.hybrid.script
    def foo(a):
        b = output_tensor(a.shape, a.dtype)
        b[0] = 1.2
        for i in range(1, a.shape[0] - 1):
            if a[i] * a[i - 1] < a[i] or a[i] * a[i - 1] < a[i - 1] or i * a[i] == a[i]:
                b[i] = a[i]
            else:
                b[i] = 0.0
        return b

    a = te.placeholder((10,), name="a")
    av = random((10,), seed=17)
    (b,) = [foo(a)]
    (got,) = run(te.create_schedule(b.op), [a, b], [av], exact)
    expected = foo(av)
    np.testing.assert_allclose(got[:-1], expected[:-1], rtol=1e-6)  # the last element is never written


@BOTH
def test_const_range_unrolls_over_python_lists(exact):
    @te.hybrid.script
    def foo(a, b):
        c = output_tensor(a.shape, a.dtype)
        d = output_tensor(a.shape, "int32")
        for i in const_range(2):
            for j in const_range(5):
                c[i, j] = float32(int32(a[i, j]) + b[i, j])
        for i in const_range(len(b)):
            for j in const_range(len(b[0])):
                d[i, j] = int32(a[i, j] + b[i, j])
        return c, d

    @te.hybrid.script
    def goo(a, b):
        c = output_tensor(a.shape, a.dtype)
        len_b = len(b)
        for i in const_range(len_b * 2):
            if i < len_b:
                c[i] = a[i] + b[i]
            else:
                c[i - len_b] = a[i - len_b] + b[i - len_b]
        return c

    @te.hybrid.script
    def hoo(a, b):
        c = output_tensor(a.shape, a.dtype)
        for i in range(a.shape[0]):
            for j in const_range(len(b)):
                d = a[i] * b[j]
                d += a[i] + b[j]
                c[i] = d
        return c

    a = te.placeholder((2, 5), name="a", dtype="float32")
    lst = [[1, 2, 3, 4, 5], [5, 4, 3, 2, 1]]
    av = random((2, 5), seed=18)
    _check(foo, [a, lst], [av, lst], exact, expected=[av + np.array(lst), (av + np.array(lst)).astype("int32")])
    x = te.placeholder((5,), name="x", dtype="int32")
    xv = random((5,), "int32", seed=19)
    row = [1, 2, 3, 4, 5]
    _check(goo, [x, row], [xv, row], exact, expected=xv + np.array(row))
    _check(hoo, [x, row], [xv, row], exact, expected=xv * 5 + xv + 5)


@BOTH
def test_a_list_of_tensors_as_one_argument(exact):
    @te.hybrid.script
    def sum_array(inputs):
        out = output_tensor((10,), inputs[0].dtype)
        n = len(inputs)
        for i in range(10):
            out[i] = 0.0
            for j in const_range(n):
                out[i] += inputs[j][i]
        return out

    inputs = [te.placeholder((10,), name=f"t{k}") for k in range(5)]
    out = sum_array(inputs)
    assert len(out.op.inputs) == 5
    arrays = [random((10,), seed=20 + k) for k in range(5)]
    (got,) = run(te.create_schedule(out.op), [*inputs, out], arrays, exact)
    np.testing.assert_allclose(got, sum(arrays))
    np.testing.assert_allclose(sum_array(arrays), got)


def test_errors_name_the_line_and_what_is_wrong():
    @te.hybrid.script
    def no_return(a):
        b = output_tensor((4,), "float32")
        for i in range(4):
            b[i] = a[i]

    @te.hybrid.script
    def bad_loop(a):
        b = output_tensor((4,), "float32")
        for i in [0, 1, 2, 3]:
            b[i] = a[i]
        return b

    @te.hybrid.script
    def out_of_scope(a):
        b = output_tensor((4,), "float32")
        for i in range(4):
            t = a[i]
            t += 1.0
        b[0] = t
        return b

    @te.hybrid.script
    def int_division(a):
        b = output_tensor((4,), "float32")
        for i in range(4):
            b[i] = a[i / 2]
        return b

    a = te.placeholder((4,), name="a")
    with pytest.raises(te.ScheduleError, match="must return its output tensors"):
        no_return(a)
    with pytest.raises(te.ScheduleError, match=r"line \d+: loops run over range"):
        bad_loop(a)
    with pytest.raises(te.ScheduleError, match="'t' is not defined"):
        out_of_scope(a)
    with pytest.raises(TypeError, match="ambiguous"):
        int_division(a)
    with pytest.raises(TypeError, match="takes 1 arguments, 2 given"):
        no_return(a, a)


@te.hybrid.script
def _checked_sqrt(a):
    b = output_tensor(a.shape, a.dtype)
    for i in parallel(a.shape[0]):
        assert a[i] >= 0.0, "a must be non-negative"
        b[i] = sqrt(a[i])
    return b


@BOTH
def test_a_runtime_assert_raises_where_it_fails(exact):
    """An ``assert`` on data holds or fails when the operation runs: the build checks it, on
    every target with the same AssertionError, naming the script's line and its message."""
    A = te.placeholder((8,), name="A")
    B = _checked_sqrt(A)
    s = te.create_schedule(B.op)
    assert "assert(" in str(lower(s, [A, B], exact=exact))
    f = build(s, [A, B], exact=exact)
    a, b = np.arange(8, dtype="float32"), np.full(8, np.nan, "float32")
    f(a, b)
    np.testing.assert_allclose(b, np.sqrt(a), rtol=1e-6)
    a[5] = -1.0
    with pytest.raises(AssertionError, match=r"hybrid.script '_checked_sqrt', line \d+: a must be non-negative"):
        f(a, b)


@te.hybrid.script
def outer_product_64(a, b):
    c = output_tensor((64, 64), a.dtype)
    for i in range(64):
        for j in range(64):
            c[i, j] = a[i] * b[j]
    return c


def _loops(stmt):
    """The loops from *stmt* down to the first statement that is no loop: (name, kind, extent)."""
    out = []
    while True:
        if isinstance(stmt, (ProducerConsumer, AttrStmt)):
            stmt = stmt.body
        elif isinstance(stmt, For):
            out.append((stmt.loop_var.name, stmt.kind.name, getattr(stmt.extent, "value", None)))
            stmt = stmt.body
        else:
            return out


def _built_outer_product(s, a, b, c, exact):
    av, bv = random((64,), seed=21), random((64,), seed=22)
    (got,) = run(s, [a, b, c], [av, bv], exact)
    np.testing.assert_allclose(got, np.outer(av, bv))
    np.testing.assert_allclose(outer_product_64(av, bv), np.outer(av, bv))


@BOTH
def test_schedule_a_scripts_loops(exact):
    """TVM's test_schedule: a script's loops are its operation's axes; split, reorder,
    parallel, vectorize and fuse rewrite them, and an imperfect split guards the tail."""
    a, b = te.placeholder((64,), name="a"), te.placeholder((64,), name="b")
    c = outer_product_64(a, b)
    assert isinstance(c.op, te.HybridOp) and [iv.var.name for iv in c.op.axis] == ["i", "j"]
    s = te.create_schedule(c.op)
    i, j = c.op.axis
    io, ii = s[c].split(i, 4)
    s[c].parallel(ii)
    jo, ji = s[c].split(j, 4)
    joo, joi = s[c].split(jo, 4)
    s[c].vectorize(ji)
    s[c].reorder(ii, io, joo, joi, ji)
    assert _loops(lower(s, [a, b, c], exact=exact).body) == [
        ("i.inner", "PARALLEL", 4), ("i.outer", "SERIAL", 16), ("j.outer.outer", "SERIAL", 4),
        ("j.outer.inner", "SERIAL", 4), ("j.inner", "VECTORIZED", 4)]
    _built_outer_product(s, a, b, c, exact)

    s = te.create_schedule(c.op)
    s[c].fuse(*c.op.axis)
    assert _loops(lower(s, [a, b, c], exact=exact).body) == [("i.j.fused", "SERIAL", 4096)]
    _built_outer_product(s, a, b, c, exact)

    s = te.create_schedule(c.op)
    s[c].split(c.op.axis[0], 3)  # 64 rows in 22 steps of 3: the last step has one row
    text = str(lower(s, [a, b, c], exact=exact))
    assert _loops(lower(s, [a, b, c], exact=exact).body)[0] == ("i.outer", "SERIAL", 22)
    assert ("for (i.inner, 0, min(3, (64 - (i.outer*3))))" if exact
            else "if (likely((((i.outer*3) + i.inner) < 64)))") in text
    _built_outer_product(s, a, b, c, exact)


@BOTH
def test_bind_a_scripts_loops_to_threads(exact):
    a, b = te.placeholder((64,), name="a"), te.placeholder((64,), name="b")
    c = outer_product_64(a, b)
    s = te.create_schedule(c.op)
    fused = s[c].fuse(*c.op.axis)
    bx, tx = s[c].split(fused, 128)
    s[c].bind(bx, te.thread_axis("blockIdx.x"))
    s[c].bind(tx, te.thread_axis("threadIdx.x"))
    text = str(lower(s, [a, b, c], exact=exact))
    assert "thread_extent = 32" in text and "thread_extent = 128" in text
    _built_outer_product(s, a, b, c, exact)


@BOTH
def test_a_scripts_loop_kinds_are_its_axes_annotations(exact):
    """A loop the script makes parallel stays parallel; split, its pieces are serial, as a
    split of any annotated axis."""
    @te.hybrid.script
    def scale(a):
        b = output_tensor((8, 32), a.dtype)
        for i in parallel(8):
            for j in vectorize(32):
                b[i, j] = a[i, j] * 2.0
        return b

    a = te.placeholder((8, 32), name="a")
    out = scale(a)
    av = random((8, 32), seed=23)
    s = te.create_schedule(out.op)
    assert _loops(lower(s, [a, out], exact=exact).body) == [("i", "PARALLEL", 8), ("j", "VECTORIZED", 32)]
    np.testing.assert_allclose(run(s, [a, out], [av], exact)[0], 2 * av)
    s = te.create_schedule(out.op)
    jo, ji = s[out].split(out.op.axis[1], 8)
    s[out].vectorize(ji)
    assert _loops(lower(s, [a, out], exact=exact).body) == [
        ("i", "PARALLEL", 8), ("j.outer", "SERIAL", 4), ("j.inner", "VECTORIZED", 8)]
    np.testing.assert_allclose(run(s, [a, out], [av], exact)[0], 2 * av)


@BOTH
def test_which_loops_are_axes(exact):
    """The axes are the outer perfectly nested loops whose bounds are known before the nest
    runs: a loop that starts at an enclosing axis, loops side by side, and a non-zero start."""
    @te.hybrid.script
    def two_loops(a):
        c = output_tensor((10,), dtype="float32")
        for i in range(10):
            c[i] = a[i]
        for i in range(5):
            c[i] = c[i] + 1.0
        return c

    @te.hybrid.script
    def shifted(a):
        c = output_tensor((12,), dtype="float32")
        for i in range(2, 14):
            c[i - 2] = a[i] * 3.0
        return c

    x, y = te.placeholder((10,), name="x"), te.placeholder((10,), name="y")
    xv, yv = random((10,), seed=24), random((10,), seed=25)
    tri = triangle(x, y)
    assert [iv.var.name for iv in tri.op.axis] == ["i"]
    s = te.create_schedule(tri.op)
    s[tri].split(tri.op.axis[0], 4)
    (got,) = run(s, [x, y, tri], [xv, yv], exact)
    upper = np.triu(np.ones((10, 10), bool))
    np.testing.assert_allclose(got[upper], np.outer(xv, yv)[upper])
    assert np.isnan(got[~upper]).all()

    both = two_loops(x)
    assert both.op.axis == ()
    (got,) = run(te.create_schedule(both.op), [x, both], [xv], exact)
    np.testing.assert_allclose(got, xv + (np.arange(10) < 5))

    a = te.placeholder((14,), name="a")
    av = random((14,), seed=26)
    sh = shifted(a)
    (i,) = sh.op.axis
    assert (i.dom.min.value, i.dom.extent.value) == (2, 12)
    s = te.create_schedule(sh.op)
    s[sh].split(i, 5)
    np.testing.assert_allclose(run(s, [a, sh], [av], exact)[0], 3 * av[2:])


def test_a_scripts_axis_refuses_what_any_axis_refuses():
    a, b = te.placeholder((64,), name="a"), te.placeholder((64,), name="b")
    c = outer_product_64(a, b)
    other = outer_product_64(a, b)
    s = te.create_schedule(c.op)
    with pytest.raises(te.ScheduleError, match="split"):
        s[c].split(other.op.axis[0], 4)
    with pytest.raises(te.ScheduleError):
        s[c].split(c.op.axis[0], 0)
    assert [iv.var.name for iv in s[c].leaf_iter_vars] == ["i", "j"]
