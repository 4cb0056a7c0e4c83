"""Storage sharing (TVM's StorageRewrite, test_storage_share and its neighbours, written anew):
buffers of disjoint lifetimes share storage, in-place stages fold into their producer's; what
is reached by pointers or has another type keeps its own; every case builds equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import LoweringError, build, lower

BOTH = pytest.mark.parametrize("exact", [False, True])


def _chain(n_stages: int, read=lambda P, i, j: P[i, j]):
    m, l = te.var("m"), te.var("l")
    A = te.placeholder((m, l), name="A")
    B = A
    for t in range(n_stages):
        B = te.compute((m, l), (lambda P, c: lambda i, j: read(P, i, j) + c)(B, t + 1), name=f"A{t}")
    return A, B


@BOTH
def test_storage_share(exact):
    A, B = _chain(5)
    s = te.create_schedule(B.op)
    text = str(lower(s, [A, B], exact=exact))
    assert text.count("allocate ") == 1  # four intermediates, each in place on the one before
    a = np.arange(12, dtype="float32").reshape(3, 4)
    b = np.full((3, 4), np.nan, "float32")
    build(s, [A, B], exact=exact)(a, b)
    np.testing.assert_array_equal(b, a + 15)


@BOTH
def test_a_shifted_read_is_not_in_place_but_later_stages_reuse(exact):
    """A1 reads A0 one row up, so it cannot overwrite A0; A2 may take A0's storage."""
    m, l = 6, 4
    A = te.placeholder((m, l), name="A")
    A0 = te.compute((m, l), lambda i, j: A[i, j] + 1, name="A0")
    A1 = te.compute((m, l), lambda i, j: te.if_then_else(i > 0, A0[te.max(i - 1, 0), j], A0[i, j]) * 2, name="A1")
    A2 = te.compute((m, l), lambda i, j: A1[i, j] + 3, name="A2")
    A3 = te.compute((m, l), lambda i, j: A2[i, j] * A1[i, j], name="A3")
    s = te.create_schedule(A3.op)
    text = str(lower(s, [A, A3], exact=exact))
    # Exact mode computes only the 5 rows of A0 that A1 reads: A2's 6 rows do not fit there.
    assert text.count("allocate ") == (3 if exact else 2) and ("allocate A2" in text) == exact
    a = np.arange(24, dtype="float32").reshape(m, l)
    out = np.full((m, l), np.nan, "float32")
    build(s, [A, A3], exact=exact)(a, out)
    a0 = a + 1
    a1 = np.concatenate([a0[:1], a0[:-1]]) * 2
    np.testing.assert_array_equal(out, (a1 + 3) * a1)


@BOTH
def test_other_types_and_pointers_keep_their_storage(exact):
    n = 8
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: (A[i] * 2).astype("int32"), name="B")
    C = te.compute((n,), lambda i: B[i] + 1, name="C")
    te.register_func("test_share.copy", lambda x, y: np.copyto(y, x), override=True)
    D = te.extern((n,), [C], lambda ins, outs: te.call_packed("test_share.copy", ins[0], outs[0]),
                  name="D", dtype="int32")
    E = te.compute((n,), lambda i: D[i] * 3, name="E")
    s = te.create_schedule(E.op)
    text = str(lower(s, [A, E], exact=exact))
    # B and C are int32 and C is passed to a call: B in place into C is refused, D keeps its own.
    assert {"allocate B", "allocate C", "allocate D"} <= {line.split("[")[0] for line in text.splitlines()}
    a = np.arange(n, dtype="float32")
    e = np.full(n, -1, "int32")
    build(s, [A, E], exact=exact)(a, e)
    np.testing.assert_array_equal(e, ((a * 2).astype("int32") + 1) * 3)


@BOTH
def test_shared_buffers_of_a_kernel_share_with_barriers_between(exact):
    n = 64
    A = te.placeholder((n,), name="A")
    S1 = te.compute((n,), lambda i: A[i] + 1, name="S1")
    S2 = te.compute((n,), lambda i: S1[(i + 1) % n] * 2, name="S2")
    S3 = te.compute((n,), lambda i: S2[(i + 3) % n] - 1, name="S3")
    C = te.compute((n,), lambda i: S3[(i + 5) % n], name="C")
    s = te.create_schedule(C.op)
    tx = te.thread_axis("threadIdx.x")
    bx = te.thread_axis("blockIdx.x")
    xo, xi = s[C].split(C.op.axis[0], nparts=1)
    s[C].bind(xo, bx)
    s[C].bind(xi, tx)
    for T in (S1, S2, S3):
        s[T].set_scope("shared")
        s[T].compute_at(s[C], xo)
        s[T].bind(T.op.axis[0], tx)
    text = str(lower(s, [A, C], exact=exact))
    assert text.count("allocate ") == 2  # S3 takes S1's storage once S2 has read it
    assert text.count('tvm_storage_sync("shared")') >= 3
    a = np.arange(n, dtype="float32")
    c = np.full(n, np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    i = np.arange(n)
    s1 = a + 1
    s2 = s1[(i + 1) % n] * 2
    s3 = s2[(i + 3) % n] - 1
    np.testing.assert_array_equal(c, s3[(i + 5) % n])


@pytest.mark.parametrize("max_bits", [639, 640])
def test_a_scope_with_registered_capacity_refuses_what_exceeds_it(max_bits):
    """TVM's test_exceed_mem: 40 float16 elements need 640 bits of 'local.L0A'."""
    te.register_func("tvm.info.mem.local.L0A", lambda: te.MemoryInfo(16, 32, max_bits), override=True)
    A = te.placeholder((40,), name="A", dtype="float16")
    B = te.compute((40,), lambda i: A[i] * 2, name="B")
    s = te.create_schedule(B.op)
    s.cache_read(A, "local.L0A", [B])
    if max_bits < 640:
        with pytest.raises(LoweringError, match=r"Allocation exceed bound of memory tag local\.L0A: buffer 'A\.local\.L0A' "
                                                r"needs 640 bits, the scope holds 639"):
            lower(s, [A, B])
        return
    a = np.arange(40, dtype="float16")
    b = np.full(40, np.nan, "float16")
    build(s, [A, B])(a, b)
    np.testing.assert_array_equal(b, a * 2)


@BOTH
def test_a_stage_recomputed_at_each_outer_iteration_is_not_folded_in_place(exact):
    """Faithful mode recomputes all of B at each iteration of C's outer loop: folded into A0's
    storage, the second iteration would read back B's values as A0's."""
    A = te.placeholder((4, 4), name="A")
    A0 = te.compute((4, 4), lambda i, j: A[i, j] * 2, name="A0")
    B = te.compute((4, 4), lambda i, j: A0[i, j] + 2, name="B")
    C = te.compute((4, 4), lambda i, j: B[i, j] * 3, name="C")
    s = te.create_schedule(C.op)
    outer, _ = s[C].split(s[C].fuse(*C.op.axis), 4)
    s[B].compute_at(s[C], outer)
    assert str(lower(s, [A, C], exact=exact)).count("allocate ") == 2
    a = np.arange(16, dtype="float32").reshape(4, 4)
    c = np.full((4, 4), np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_array_equal(c, (a * 2 + 2) * 3)


@BOTH
def test_a_shared_stage_every_thread_repeats_is_not_folded_in_place(exact):
    n = 8
    A = te.placeholder((n,), name="A")
    S1 = te.compute((n,), lambda i: A[i] + 1, name="S1")
    S2 = te.compute((n,), lambda i: S1[i] * 2, name="S2")
    C = te.compute((n,), lambda i: S2[(i + 1) % n], name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], nparts=1)
    s[C].bind(xo, te.thread_axis("blockIdx.x"))
    s[C].bind(xi, te.thread_axis("threadIdx.x"))
    for T in (S1, S2):  # computed whole by every thread
        s[T].set_scope("shared")
        s[T].compute_at(s[C], xo)
    assert str(lower(s, [A, C], exact=exact)).count("allocate ") == 2
    a = np.arange(n, dtype="float32")
    c = np.full(n, np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_array_equal(c, np.roll((a + 1) * 2, -1))


def test_an_allocation_nothing_uses_goes_and_the_rest_still_computes():
    import tebound.tvm as tvm

    f = tvm.script.from_source('''
        @T.prim_func
        def main(A: T.Buffer((8,), "float32"), D: T.Buffer((8,), "float32")):
            B = T.decl_buffer((8,), "float32")
            spare = T.decl_buffer((8,), "float32")
            marked = T.decl_buffer((8,), "float32")
            with T.attr(marked.data, "double_buffer_scope", 1):
                for i in range(8):
                    B[i] = A[i] * 2.0
            for i in range(8):
                D[i] = B[i] + 1.0
    ''')
    assert f.script().count("T.allocate") == 3
    out = tvm.tir.transform.StorageRewrite()(f)
    text = out.script()
    assert text.count("T.allocate") == 2 and "spare" not in text and "marked" in text
    a, d = np.arange(8, dtype="float32"), np.zeros(8, "float32")
    tvm.build(out, target="c")(a, d)
    np.testing.assert_array_equal(d, a * 2 + 1)
