"""TVM's ir_builder tests (v0.13 test_tir_ir_builder), written anew: loops, conditions, while
loops, local and shared allocations and thread-bound kernels inside te.extern, built on both
targets (the suite's default target) and in both modes, each compared with NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from schedule.ir.extern_stmt import Alloc, Block, Branch, ElemStore, Loop

from .run import run

BOTH = pytest.mark.parametrize("exact", [False, True])


def test_for_builds_an_allocation_around_a_loop_with_a_nested_loop():
    ib = te.ir_builder.create()
    n = te.size_var("n")
    A = ib.allocate("float32", n, name="A", scope="global")
    with ib.for_range(0, n, name="i") as i:
        A[i] = A[i] + 1
        with ib.for_range(0, 10, name="j") as j:
            A[j] = A[j] + 2
    body = ib.get()
    assert isinstance(body, Alloc) and body.buffer.name == "A"
    loop = body.body
    assert isinstance(loop, Loop) and loop.var.name == "i" and loop.extent is n
    assert isinstance(loop.body, Block) and isinstance(loop.body.stmts[1], Loop)


def test_if_and_else_scopes():
    ib = te.ir_builder.create()
    n = te.size_var("n")
    A = ib.allocate("float32", n, name="A")
    with ib.for_range(0, n, name="i") as i:
        with ib.if_scope(te.truncmod(i, 2) == 0):
            A[i] = A[i] + 1
        with ib.else_scope():
            A[0] = A[i] + 2
    branch = ib.get().body.body
    assert isinstance(branch, Branch) and isinstance(branch.condition, te.EQ)
    assert isinstance(branch.then_case, ElemStore) and isinstance(branch.then_case.index, te.Var)
    assert isinstance(branch.else_case, ElemStore) and branch.else_case.index.value == 0


def _vector_add_cpu(A, B, C):
    ib = te.ir_builder.create()
    Aptr, Bptr, Cptr = ib.buffer_ptr(A), ib.buffer_ptr(B), ib.buffer_ptr(C)
    with ib.for_range(0, A.shape[0], name="i") as i:
        Cptr[i] = Aptr[i] + Bptr[i]
    return ib.get()


def _vector_add_gpu(A, B, C):
    n = A.shape[0]
    max_threads = 32
    ib = te.ir_builder.create()
    bx, tx = te.thread_axis("blockIdx.x"), te.thread_axis("threadIdx.x")
    ib.scope_attr(bx, "thread_extent", te.floordiv(n + max_threads - 1, max_threads))
    ib.scope_attr(tx, "thread_extent", max_threads)
    idx = bx.var * max_threads + tx.var
    Aptr, Bptr, Cptr = ib.buffer_ptr(A), ib.buffer_ptr(B), ib.buffer_ptr(C)
    with ib.if_scope(ib.likely(idx < n)):
        Cptr[idx] = Aptr[idx] + Bptr[idx]
    return ib.get()


@BOTH
@pytest.mark.parametrize("ir", [_vector_add_cpu, _vector_add_gpu], ids=["cpu", "gpu"])
def test_vector_add(ir, exact):
    """TVM's test_cpu (1024 elements) and test_gpu (a symbolic length, 32 threads per block)."""
    n = te.size_var("n") if ir is _vector_add_gpu else 1024
    A, B = te.placeholder((n,), name="A"), te.placeholder((n,), name="B")
    C = te.extern(A.shape, [A, B], lambda ins, outs: ir(ins[0], ins[1], outs[0]), name="vector_add",
                  dtype="float32")
    s = te.create_schedule(C.op)
    rng = np.random.default_rng(0)
    size = 1000 if ir is _vector_add_gpu else 1024
    a, b = rng.uniform(size=size).astype("float32"), rng.uniform(size=size).astype("float32")
    c = np.full(size, np.nan, "float32")
    build(s, [A, B, C], exact=exact)(a, b, c)
    np.testing.assert_allclose(c, a + b)


def test_vector_add_prints_the_kernel_as_tvm_lowers_it():
    n = te.size_var("n")
    A, B = te.placeholder((n,), name="A"), te.placeholder((n,), name="B")
    C = te.extern(A.shape, [A, B], lambda ins, outs: _vector_add_gpu(ins[0], ins[1], outs[0]),
                  name="vector_add", dtype="float32")
    text = str(lower(te.create_schedule(C.op), [A, B, C]))
    # A symbolic launch extent is at least 1, as TVM's scope_attr makes it.
    assert "// attr [iter_var(blockIdx.x, , blockIdx.x)] thread_extent = max(1, floordiv((n + 31), 32))" in text
    assert "if (likely((((blockIdx.x*32) + threadIdx.x) < n))) {" in text
    assert ("vector_add[((blockIdx.x*32) + threadIdx.x)] = (A[((blockIdx.x*32) + threadIdx.x)] + "
            "B[((blockIdx.x*32) + threadIdx.x)])") in text


@BOTH
def test_while_vectorize(exact):
    """A while loop around a vectorized loop that accumulates into the output."""
    n, num_iter = 64, 10

    def ir(A, B, C):
        ib = te.ir_builder.create()
        A, B, C = ib.buffer_ptr(A), ib.buffer_ptr(B), ib.buffer_ptr(C)
        i = ib.allocate("int32", (1,), name="i", scope="local")
        i[0] = 0
        with ib.for_range(0, n) as j:
            C[j] = 0.0
        with ib.while_loop(i[0] < num_iter):
            with ib.for_range(0, n, kind="vectorize") as j:
                C[j] += A[j] + B[j]
            i[0] += 1
        return ib.get()

    A, B = te.placeholder((n,), name="A"), te.placeholder((n,), name="B")
    C = te.extern((n,), [A, B], lambda ins, outs: ir(ins[0], ins[1], outs[0]), name="while_vectorize",
                  dtype="float32")
    s = te.create_schedule(C.op)
    rng = np.random.default_rng(1)
    a, b = rng.uniform(size=n).astype("float32"), rng.uniform(size=n).astype("float32")
    c = np.full(n, np.nan, "float32")
    build(s, [A, B, C], exact=exact)(a, b, c)
    np.testing.assert_allclose(c, num_iter * (a + b), rtol=1e-5, atol=1e-5)


def _collatz_steps(n: int) -> int:
    steps = 0
    while n > 1:
        n = 3 * n + 1 if n % 2 else n >> 1
        steps += 1
    return steps


@BOTH
def test_while_collatz(exact):
    """A while loop with a condition inside, in every iteration of a parallel loop; the local
    allocations inside the parallel loop are each iteration's own."""
    n = 30

    def ir(C):
        ib = te.ir_builder.create()
        Cp = ib.buffer_ptr(C)
        with ib.for_range(0, C.shape[0], name="i", kind="parallel") as i:
            steps = ib.allocate("int32", (1,), name="i", scope="local")
            a = ib.allocate("int32", (1,), name="a", scope="local")
            steps[0] = 0
            a[0] = i
            with ib.while_loop(a[0] > 1):
                with ib.if_scope(te.floormod(a[0], 2) == 1):
                    a[0] = 3 * a[0] + 1
                with ib.else_scope():
                    a[0] = a[0] >> 1
                steps[0] += 1
            Cp[i] = steps[0]
        return ib.get()

    C = te.extern((n,), [], lambda ins, outs: ir(outs[0]), name="collatz", dtype="int32")
    s = te.create_schedule(C.op)
    (c,) = run(s, [C], [], exact)
    np.testing.assert_array_equal(c, [_collatz_steps(i) for i in range(n)])


def _mandel_reference(n: int, t: int) -> np.ndarray:
    pixels = np.zeros((2 * n, n))
    c = np.array([-0.8, np.cos(t) * 0.2])
    for i in range(2 * n):
        for j in range(n):
            z = np.array([i / n - 1, j / n - 0.5]) * 2
            iterations = 0
            while np.linalg.norm(z) < 20 and iterations < 50:
                z = np.array([z[0] ** 2 - z[1] ** 2, z[1] * z[0] * 2]) + c
                iterations += 1
            pixels[i, j] = 1 - iterations * 0.02
    return pixels


def _mandel(ib, i, j, pixels, n, t):
    z = ib.allocate("float32", (2,), name="z", scope="local")
    tmp = ib.allocate("float32", (1,), name="tmp", scope="local")
    iterations = ib.allocate("int32", (1,), name="iterations", scope="local")
    z[0] = (i / float(n) - 1) * 2
    z[1] = (j / float(n) - 0.5) * 2
    iterations[0] = 0
    c = [-0.8, float(np.cos(t)) * 0.2]
    with ib.while_loop(te.all(te.sqrt(z[0] * z[0] + z[1] * z[1]) < 20, iterations[0] < 50)):
        tmp[0] = z[0]
        z[0] = z[0] * z[0] - z[1] * z[1] + c[0]
        z[1] = z[1] * tmp[0] * 2 + c[1]
        iterations[0] += 1
    pixels[i, j] = 1 - iterations[0] * 0.02


@BOTH
@pytest.mark.parametrize("kind", ["cpu", "gpu"])
def test_while_mandel(kind, exact):
    """The Mandelbrot-like iteration of TVM's test, on a smaller image (TVM draws 320 x 160), as
    a parallel loop nest and as a kernel with 16 x 16 threads per block."""
    n, t = 24, 300

    def ir(C):
        ib = te.ir_builder.create()
        ny, nx = C.shape
        Cp = ib.buffer_ptr(C)
        if kind == "cpu":
            with ib.for_range(0, ny, name="i", kind="parallel") as i:
                with ib.for_range(0, nx, name="j") as j:
                    _mandel(ib, i, j, Cp, n, t)
            return ib.get()
        bx, tx = te.thread_axis("blockIdx.x"), te.thread_axis("threadIdx.x")
        by, ty = te.thread_axis("blockIdx.y"), te.thread_axis("threadIdx.y")
        ib.scope_attr(bx, "thread_extent", te.floordiv(nx + 15, 16))
        ib.scope_attr(tx, "thread_extent", 16)
        ib.scope_attr(by, "thread_extent", te.floordiv(ny + 15, 16))
        ib.scope_attr(ty, "thread_extent", 16)
        tidx, tidy = bx * 16 + tx, by * 16 + ty
        with ib.if_scope(te.all(tidx < nx, tidy < ny)):
            _mandel(ib, tidy, tidx, Cp, n, t)
        return ib.get()

    C = te.extern((2 * n, n), [], lambda ins, outs: ir(outs[0]), name="mandel_ir", dtype="float32")
    s = te.create_schedule(C.op)
    c = np.full((2 * n, n), np.nan, "float32")
    build(s, [C], exact=exact)(c)
    np.testing.assert_allclose(c, _mandel_reference(n, t), rtol=1e-5, atol=1e-5)


@BOTH
@pytest.mark.parametrize("kind", ["cpu", "gpu"])
def test_while_binary_search(kind, exact):
    """np.searchsorted as a while loop per element: a parallel loop, or one thread per element."""
    n = 256

    def search(ib, i, Aptr, Bptr, Cptr):
        lo = ib.allocate("int32", (1,), name="lo", scope="local")
        hi = ib.allocate("int32", (1,), name="hi", scope="local")
        lo[0] = 0
        hi[0] = n
        v = Bptr[i]
        with ib.while_loop(lo[0] < hi[0]):
            mid = lo[0] + (hi[0] - lo[0] >> 1)
            with ib.if_scope(Aptr[mid] < v):
                lo[0] = mid + 1
            with ib.else_scope():
                hi[0] = mid
        Cptr[i] = lo[0]

    def ir(A, B, C):
        ib = te.ir_builder.create()
        Aptr, Bptr, Cptr = ib.buffer_ptr(A), ib.buffer_ptr(B), ib.buffer_ptr(C)
        if kind == "cpu":
            with ib.for_range(0, n, name="i", kind="parallel") as i:
                search(ib, i, Aptr, Bptr, Cptr)
            return ib.get()
        bx, tx = te.thread_axis("blockIdx.x"), te.thread_axis("threadIdx.x")
        ib.scope_attr(bx, "thread_extent", te.floordiv(n + 31, 32))
        ib.scope_attr(tx, "thread_extent", 32)
        tid = bx * 32 + tx
        with ib.if_scope(tid < n):
            search(ib, tid, Aptr, Bptr, Cptr)
        return ib.get()

    A, B = te.placeholder((n,), name="A"), te.placeholder((n,), name="B")
    C = te.extern(A.shape, [A, B], lambda ins, outs: ir(ins[0], ins[1], outs[0]), name="searchsorted_ir",
                  dtype="int32")
    s = te.create_schedule(C.op)
    rng = np.random.default_rng(2)
    a, b = np.sort(rng.uniform(size=n).astype("float32")), rng.uniform(size=n).astype("float32")
    c = np.full(n, -1, "int32")
    build(s, [A, B, C], exact=exact)(a, b, c)
    np.testing.assert_array_equal(c, np.searchsorted(a, b))


@pytest.mark.parametrize("size", [512, 1024])
def test_dynamic_shared_tree_reduction(size):
    """TVM's test_dyn_shared: a shared buffer of symbolic size, explicit barriers, and a tree
    reduction over one block of n threads."""
    n = te.size_var("n")
    A = te.placeholder((n,), name="A")

    def ir(A, B):
        ib = te.ir_builder.create()
        tx = te.thread_axis("threadIdx.x")
        ib.scope_attr(tx, "thread_extent", n)
        temp = ib.allocate("float32", (n,), name="temp", scope="shared.dyn")
        Aptr, Bptr = ib.buffer_ptr(A), ib.buffer_ptr(B)
        temp[tx] = Aptr[tx]
        depth = te.log2(n.astype("float32"))
        with ib.for_range(0, te.ceil(depth).astype(n.dtype)) as i:
            ib.emit(te.call_intrin("int32", "tvm_storage_sync", "shared"))
            d = n >> (i + 1)
            with ib.if_scope(tx < d):
                temp[tx] += temp[tx + d]
        Bptr[0] = temp[0]
        return ib.get()

    B = te.extern((1,), [A], lambda ins, outs: ir(ins[0], outs[0]), name="reduce", dtype="float32")
    s = te.create_schedule(B.op)
    a = np.random.default_rng(3).uniform(size=size).astype("float32")
    b = np.full(1, np.nan, "float32")
    build(s, [A, B])(a, b)
    np.testing.assert_allclose(b[0], a.sum(dtype="float64"), rtol=1e-4, atol=1e-4)


def test_builder_errors_name_what_is_wrong():
    ib = te.ir_builder.create()
    with pytest.raises(te.ScheduleError, match="kind must be one of"):
        ib.for_range(0, 4, kind="fast")
    with pytest.raises(te.ScheduleError, match="else_scope can only follow an if_scope"):
        ib.else_scope()
    with pytest.raises(ValueError, match="ir_builder.pointer 'p': unknown dtype 'float33'"):
        ib.pointer("float33", name="p")
    with pytest.raises(TypeError, match="must be a boolean"):
        ib.if_scope(te.var("i"))
    x = ib.allocate("float32", (2, 3), name="x")
    with pytest.raises(TypeError, match="the value is int32, the buffer holds float32"):
        x[0] = te.var("k")
    with pytest.raises(TypeError, match="has 2 dimensions; it was indexed with 3"):
        x[0, 1, 2]  # noqa: B018
    with pytest.raises(te.ScheduleError, match="inside a with-scope"):
        with ib.for_range(0, 2):
            ib.get()


def test_extern_rejects_a_body_reaching_a_foreign_buffer():
    other = te.decl_buffer((4,), "float32", "other")
    A = te.placeholder((4,), name="A")

    def ir(ins, outs):
        ib = te.ir_builder.create()
        ib.buffer_ptr(outs[0])[0] = ib.buffer_ptr(other)[0]
        return ib.get()
    with pytest.raises(te.ScheduleError, match="reaches buffer 'other'"):
        te.extern((4,), [A], ir, name="bad")
