"""``tvm.tir.transform``'s TVM-faithful passes, driven the way TVM's own pass tests drive them
(``tvm.testing.CompareBeforeAfter``, TVMScript before and after), on scenarios written anew:
Simplify with its options, RemoveNoOp, HoistIfThenElse, UnrollLoop's fresh copies and
VectorizeLoop; where the result can run, it computes NumPy's numbers."""

# TVMScript is read, not run: a loop variable or a let may go unused on purpose.
# ruff: noqa: F841, B007

from __future__ import annotations

import numpy as np
import pytest

import tebound.tvm as tvm
from lower import LoweringError
from tebound.tvm.script import tir as T  # noqa: N812 - TVM's spelling


def simplify_with(**options):
    def transform(mod):
        with tvm.transform.PassContext(config={"tir.Simplify": options}):
            return tvm.tir.transform.Simplify()(mod)
    return transform


class TestAnInnerTestTheOuterOneDecides(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.Simplify()

    def before(A: T.Buffer((8,), "int32")):
        for i in range(8):
            if i < 3:
                if i < 5:
                    A[i] = 1
                else:
                    A[i] = 2

    def expected(A: T.Buffer((8,), "int32")):
        for i in range(8):
            if i < 3:
                A[i] = 1


class TestTheElseBranchKnowsTheNegation(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.Simplify()

    def before(A: T.Buffer((8,), "int32"), n: T.int32):
        for i in range(8):
            if i != n:
                A[i] = 1
            elif i == n:
                A[i] = 2

    def expected(A: T.Buffer((8,), "int32"), n: T.int32):
        for i in range(8):
            if i != n:
                A[i] = 1
            else:
                A[i] = 2


class TestStoringTheValueJustReadIsDropped(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.Simplify()

    def before(A: T.Buffer((4,), "float32")):
        A[2] = A[2] + (T.float32(3) - T.float32(3))

    def expected(A: T.Buffer((4,), "float32")):
        T.evaluate(0)


class TestAKnownComparisonDecidesAnOffsetOne(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.Simplify()

    def before(A: T.Buffer((1,), "bool"), i: T.int32, j: T.int32):
        if i < j:
            A[0] = i < j + 1

    def expected(A: T.Buffer((1,), "bool"), i: T.int32, j: T.int32):
        if i < j:
            A[0] = True


class TestAChainOfComparisonsNeedsTheTransitiveOption(tvm.testing.CompareBeforeAfter):
    def transform(self):
        return simplify_with(transitively_prove_inequalities=True)

    def before(A: T.Buffer((1,), "bool"), i: T.int32, j: T.int32, k: T.int32):
        if i < j and j <= k:
            A[0] = i < k

    def expected(A: T.Buffer((1,), "bool"), i: T.int32, j: T.int32, k: T.int32):
        if i < j and j <= k:
            A[0] = True


class TestWithoutTheTransitiveOptionTheChainStays(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.Simplify()

    def before(A: T.Buffer((1,), "bool"), i: T.int32, j: T.int32, k: T.int32):
        if i < j and j <= k:
            A[0] = i < k

    expected = before


class TestEachSideOfAnAndKnowsTheOther(tvm.testing.CompareBeforeAfter):
    def transform(self):
        return simplify_with(apply_constraints_to_boolean_branches=True)

    def before(A: T.Buffer((1,), "bool"), n: T.int32):
        A[0] = n < 5 and n < 10

    def expected(A: T.Buffer((1,), "bool"), n: T.int32):
        A[0] = n < 5


class TestAnOrOfAndsBecomesAnAndOfOrs(tvm.testing.CompareBeforeAfter):
    def transform(self):
        return simplify_with(convert_boolean_to_and_of_ors=True)

    def before(A: T.Buffer((1,), "bool"), a: T.int32, b: T.int32):
        A[0] = (a == 5 and b < 10) or (a == 5 and b > 10)

    def expected(A: T.Buffer((1,), "bool"), a: T.int32, b: T.int32):
        A[0] = a == 5 and b != 10


class TestAConditionOnMemoryIsNotKnownAfterAStore(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.Simplify()

    def before(A: T.Buffer((1,), "int32"), n: T.int32):
        if A[0] == n:
            A[0] = A[0] + 1
            if A[0] == n:
                A[0] = 7

    expected = before


class TestEmptyLoopsBranchesAndUnusedLetsGo(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.RemoveNoOp()

    def before(A: T.Buffer((4,), "int32"), n: T.int32):
        for i in range(4):
            T.evaluate(0)
        for i in range(0):
            A[i] = 1
        if n < 2:
            T.evaluate(0)
        else:
            A[0] = 5
        x: T.int32 = n + 1
        A[1] = A[1]
        A[2] = n

    def expected(A: T.Buffer((4,), "int32"), n: T.int32):
        if not n < 2:
            A[0] = 5
        A[2] = n


class TestAnExternalCallKeepsItsEffect(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.RemoveNoOp()

    def before(A: T.Buffer((4,), "int32")):
        x: T.int32 = T.call_extern("int32", "side_effect")
        A[0] = 1

    def expected(A: T.Buffer((4,), "int32")):
        T.call_extern("int32", "side_effect")
        A[0] = 1


class TestAnInvariantTestLeavesTheLoopsWithBothBranches(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.HoistIfThenElse()

    def before(A: T.Buffer((16,), "float32"), n: T.int32):
        for i in range(4):
            for j in range(4):
                if n < 3:
                    A[i * 4 + j] = T.float32(1)
                else:
                    A[i * 4 + j] = T.float32(2)

    def expected(A: T.Buffer((16,), "float32"), n: T.int32):
        if n < 3:
            for i, j in T.grid(4, 4):
                A[i * 4 + j] = T.float32(1)
        else:
            for i, j in T.grid(4, 4):
                A[i * 4 + j] = T.float32(2)


class TestATestUsingTheLoopStays(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.HoistIfThenElse()

    def before(A: T.Buffer((16,), "float32")):
        for i in range(4):
            for j in range(4):
                if i < 3:
                    A[i * 4 + j] = T.float32(1)

    def expected(A: T.Buffer((16,), "float32")):
        for i in range(4):
            if i < 3:
                for j in range(4):
                    A[i * 4 + j] = T.float32(1)


class TestUnrolledCopiesAllocateFreshBuffers(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.UnrollLoop()

    def before(A: T.Buffer((2,), "float32")):
        for i in T.unroll(2):
            tmp = T.allocate([1], "float32", "local")
            tmp_1 = T.Buffer((1,), data=tmp, scope="local")
            tmp_1[0] = T.float32(i)
            A[i] = tmp_1[0]

    def expected(A: T.Buffer((2,), "float32")):
        with T.allocate([1], "float32", "local") as t0:
            t0_1 = T.Buffer((1,), data=t0, scope="local")
            t0_1[0] = T.Cast("float32", 0)  # substituted, not folded, as TVM's unrolling does
            A[0] = t0_1[0]
        t1 = T.allocate([1], "float32", "local")
        t1_1 = T.Buffer((1,), data=t1, scope="local")
        t1_1[0] = T.Cast("float32", 1)
        A[1] = t1_1[0]


class TestAVectorizedLoopIsOneVectorStore(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.VectorizeLoop()

    def before(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(2):
            for j in T.vectorized(4):
                B[i * 4 + j] = A[i * 4 + j] * T.float32(2)

    def expected(A: T.Buffer((8,), "float32"), B: T.Buffer((8,), "float32")):
        for i in range(2):
            B[i * 4:i * 4 + 4] = A[i * 4:i * 4 + 4] * T.Broadcast(T.float32(2), 4)


class TestABranchOnTheLaneStaysALoopOverTheLanes(tvm.testing.CompareBeforeAfter):
    transform = tvm.tir.transform.VectorizeLoop()

    def before(A: T.Buffer((4,), "float32")):
        for j in T.vectorized(4):
            if j < 2:
                A[j] = T.float32(1)

    def expected(A: T.Buffer((4,), "float32")):
        for j_s in range(4):
            if j_s < 2:
                A[j_s] = T.float32(1)


@pytest.mark.parametrize("select", [False, True])
def test_a_vectorized_function_builds_and_computes_numpys_numbers(select):
    A = tvm.te.placeholder((16,), name="A")
    if select:  # a condition on the lanes: kept as a loop over them
        B = tvm.te.compute((16,), lambda i: tvm.te.if_then_else(A[i] > 0, A[i] * 3, A[i] - 1), name="B")
    else:
        B = tvm.te.compute((16,), lambda i: A[i] * 3 - 1, name="B")
    s = tvm.te.create_schedule(B.op)
    _, inner = s[B].split(B.op.axis[0], factor=4)
    s[B].vectorize(inner)
    mod = tvm.tir.transform.VectorizeLoop()(tvm.lower(s, [A, B]))
    text = mod.script()
    assert "T.vectorized" not in text
    assert ("for i_outer, i_inner_s in T.grid(4, 4):" in text) is select
    assert ("A_1[i_outer * 4:i_outer * 4 + 4]" in text) is not select
    a = np.linspace(-2, 2, 16).astype("float32")
    expected = np.where(a > 0, a * 3, a - 1) if select else a * 3 - 1
    for target in ("llvm", "c"):
        b = np.full(16, np.nan, "float32")
        tvm.build(mod, target=target)(a, b)
        np.testing.assert_allclose(b, expected, rtol=1e-6)


def test_disabled_vectorization_leaves_serial_loops():
    f = tvm.script.from_source('''
        @T.prim_func
        def main(A: T.Buffer((4,), "float32")):
            for j in T.vectorized(4):
                A[j] = T.float32(1)
    ''')
    out = tvm.tir.transform.VectorizeLoop(enable_vectorize=False)(f)
    assert out.body.kind == tvm.tir.ForKind.SERIAL
    with tvm.transform.PassContext(config={"tir.disable_vectorize": True}):
        assert tvm.tir.transform.VectorizeLoop()(f).body.kind == tvm.tir.ForKind.SERIAL


def test_a_while_inside_a_vectorized_loop_is_refused_by_name():
    f = tvm.script.from_source('''
        @T.prim_func
        def main(A: T.Buffer((4,), "int32")):
            for j in T.vectorized(4):
                while A[j] < 3:
                    A[j] = A[j] + 1
    ''')
    with pytest.raises(LoweringError, match="while loop inside a vectorized loop"):
        tvm.tir.transform.VectorizeLoop()(f)


def test_simplify_options_are_checked_by_name():
    with pytest.raises(ValueError, match="'tir.Simplify' has no option 'prove_everything'"):
        tvm.transform.PassContext(config={"tir.Simplify": {"prove_everything": True}})


def test_a_loop_is_partitioned_around_an_equality_and_computes_the_same():
    A = tvm.te.placeholder((10,), name="A")
    B = tvm.te.compute((10,), lambda i: tvm.te.if_then_else(tvm.tir.likely(i == 3), A[i] * 100, A[i]), name="B")
    s = tvm.te.create_schedule(B.op)
    mod = tvm.lower(s, [A, B])
    with tvm.transform.PassContext(config={"tir.LoopPartition": {"partition_const_loop": True}}):
        mod = tvm.transform.Sequential([tvm.tir.transform.LoopPartition(), tvm.tir.transform.Simplify()])(mod)
    text = mod.script()
    assert "if_then_else" not in text and "for i in range(3):" in text and "for i_1 in range(6):" in text
    assert "B_1[3] = A_1[3] * T.float32(100)" in text
    a = np.arange(10, dtype="float32")
    b = np.full(10, np.nan, "float32")
    tvm.build(mod, target="llvm")(a, b)
    np.testing.assert_array_equal(b, np.where(np.arange(10) == 3, a * 100, a))


def test_loop_annotations_print_read_back_and_pragmas_become_attributes():
    f = tvm.script.from_source('''
        @T.prim_func
        def main(A: T.Buffer((8,), "float32")):
            for i in T.serial(8, annotations={"pragma_auto_unroll_max_step": 16, "key": "value"}):
                A[i] = T.float32(1)
    ''')
    text = f.script()
    assert 'for i in T.serial(8, annotations={"pragma_auto_unroll_max_step": 16, "key": "value"}):' in text
    tvm.ir.assert_structural_equal(tvm.script.from_source(text), f)
    lowered = tvm.tir.transform.LowerOpaqueBlock()(f)
    attr = lowered.body
    assert attr.attr_key == "pragma_auto_unroll_max_step" and attr.node is attr.body.loop_var
    assert attr.body.annotations == (("key", "value"),)
    a = np.zeros(8, "float32")
    tvm.build(lowered, target="llvm")(a)
    np.testing.assert_array_equal(a, np.ones(8))


DOUBLE_BUFFERED = '''
@T.prim_func
def main(A: T.Buffer((12, 8), "float32"), B: T.Buffer((12,), "float32")):
    for i in range(12):
        cache = T.decl_buffer((8,), "float32")
        with T.attr(cache.data, "double_buffer_scope", 1):
            for j in range(8):
                cache[j] = A[i, j] * 2.0
        B[i] = 0.0
        for j in range(8):
            B[i] = B[i] + cache[j]
'''


@pytest.mark.parametrize("split", [1, 2, 4])
def test_a_double_buffer_fills_one_half_while_the_other_is_read_and_computes_the_same(split):
    f = tvm.script.from_source(DOUBLE_BUFFERED)
    with tvm.transform.PassContext(config={"tir.InjectDoubleBuffer": {"split_loop": split}}):
        g = tvm.transform.Sequential([tvm.tir.transform.InjectDoubleBuffer(), tvm.tir.transform.Simplify()])(f)
    text = g.script()
    assert "T.allocate([16]" in text and text.count('"double_buffer_write", 1)') == split
    assert "double_buffer_scope" not in text
    assert f"for i_outer in range({11 // split}):" in text
    a = np.arange(96, dtype="float32").reshape(12, 8)
    for target in ("c", "python"):
        b = np.full(12, np.nan, "float32")
        tvm.build(g, target=target)(a, b)
        np.testing.assert_allclose(b, (a * 2).sum(axis=1))


def test_double_buffering_outside_a_loop_or_with_an_odd_split_is_refused():
    outside = tvm.script.from_source('''
        @T.prim_func
        def main(A: T.Buffer((8,), "float32")):
            cache = T.decl_buffer((8,), "float32")
            with T.attr(cache.data, "double_buffer_scope", 1):
                for j in range(8):
                    cache[j] = A[j]
            A[0] = cache[1]
    ''')
    with pytest.raises(ValueError, match="double_buffer_scope of 'cache' is not inside a loop"):
        tvm.tir.transform.InjectDoubleBuffer()(outside)
    with tvm.transform.PassContext(config={"tir.InjectDoubleBuffer": {"split_loop": 3}}):
        with pytest.raises(ValueError, match="split_loop is 1 or a multiple of 2, got 3"):
            tvm.tir.transform.InjectDoubleBuffer()(tvm.script.from_source(DOUBLE_BUFFERED))
