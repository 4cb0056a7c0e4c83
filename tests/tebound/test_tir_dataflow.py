"""Known buffer values in ``Simplify`` (``propagate_knowns_*``) and overwritten stores in
``RemoveNoOp`` (``use_dataflow_analysis``), on scenarios written anew: each pins what the pass
proves, and random programs check that what it proves is true (the program before and after
computes the same arrays)."""

# TVMScript is read, not run: a loop variable may go unused on purpose.
# ruff: noqa: F841, B007

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import tebound.tvm as tvm
from tebound.tvm.script import tir as T  # noqa: N812 - TVM's spelling

PROVE = {"propagate_knowns_to_prove_conditional": True}
EVERYWHERE = {"propagate_knowns_to_simplify_expressions": True}


def simplify_with(**options):
    def transform(mod):
        with tvm.transform.PassContext(config={"tir.Simplify": options}):
            return tvm.tir.transform.Simplify()(mod)
    return transform


def remove_no_op_with_dataflow(mod):
    with tvm.transform.PassContext(config={"tir.RemoveNoOp": {"use_dataflow_analysis": True}}):
        return tvm.tir.transform.RemoveNoOp()(mod)


class Proving(tvm.testing.CompareBeforeAfter):
    """Simplify proving conditions with known buffer values."""

    def transform(self):
        return simplify_with(**PROVE)


class RemovingWithDataflow(tvm.testing.CompareBeforeAfter):
    """RemoveNoOp with its dataflow analysis."""

    def transform(self):
        return remove_no_op_with_dataflow


class TestAStoredValueDecidesALaterBranch(Proving):
    def before(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
        A[2] = 7
        if A[2] > 5:
            B[0] = 1
        else:
            B[0] = 2

    def expected(A: T.Buffer((4,), "int32"), B: T.Buffer((4,), "int32")):
        A[2] = 7
        B[0] = 1


class TestALoopsValuesInTermsOfThePositionDecideAnotherLoopsBranch(Proving):
    def before(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in T.serial(4, 12):
            A[i] = i * 2
        for j in T.serial(4, 12):
            if A[j] == j * 2:
                B[j] = 1

    def expected(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in T.serial(4, 12):
            A[i] = i * 2
        for j in T.serial(4, 12):
            B[j] = 1


class TestOnlyThePositionsWrittenAreKnown(Proving):
    def before(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(8):
            A[i] = 0
        for j in range(16):
            if A[j] == 0:
                B[j] = 1
        for k in range(16):
            if k < 8:
                if A[k] == 0:
                    B[k] = 2

    def expected(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(8):
            A[i] = 0
        for j in range(16):
            if A[j] == 0:
                B[j] = 1
        for k in range(16):
            if k < 8:
                B[k] = 2


class TestAValueALaterIterationMayHaveChangedIsNotUsed(Proving):
    def before(A: T.Buffer((4,), "int32")):
        A[0] = 3
        for i in range(4):
            if A[0] == 3:
                A[0] = i

    expected = before


class TestZeroPaddingSurvivesASumOverNeighbours(Proving):
    """Zeros outside [2, 10) of A make zeros outside [2, 12) of the sums of three neighbours."""

    def before(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(16):
            T.evaluate(T.assume((2 <= i and i < 10) or A[i] == 0))
        for i in range(16):
            B[i] = 0
            for k in range(3):
                if k <= i:
                    B[i] = B[i] + A[i - k]
        for i in range(16):
            if i < 2 or 12 <= i:
                if B[i] == 0:
                    B[i] = 5

    def expected(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(16):
            T.evaluate(T.assume((2 <= i and i < 10) or A[i] == 0))
        for i in range(16):
            B[i] = 0
            for k in range(3):
                if k <= i:
                    B[i] = B[i] + A[i - k]
        for i in range(16):
            if i < 2 or 12 <= i:
                B[i] = 5


class TestAnAssumptionHoldsAfterItOnlyInItsScope(Proving):
    def before(A: T.Buffer((2,), "int32"), n: T.int32, m: T.int32):
        if m > 0:
            T.evaluate(T.assume(n < 0))
            if n < 0:
                A[0] = 1
        if n < 0:
            A[1] = 1

    def expected(A: T.Buffer((2,), "int32"), n: T.int32, m: T.int32):
        if 0 < m:
            T.evaluate(T.assume(n < 0))
            A[0] = 1
        if n < 0:
            A[1] = 1


class TestKnownValuesSimplifyStoredValuesOnRequest(tvm.testing.CompareBeforeAfter):
    def transform(self):
        return simplify_with(**EVERYWHERE)

    def before(A: T.Buffer((2,), "int32")):
        A[0] = 6
        A[1] = A[0] * 2 + 1

    def expected(A: T.Buffer((2,), "int32")):
        A[0] = 6
        A[1] = 13


class TestWithoutTheOptionsNothingIsPropagated(tvm.testing.CompareBeforeAfter):
    def transform(self):
        return simplify_with()

    def before(A: T.Buffer((2,), "int32")):
        A[0] = 6
        if A[0] == 6:
            A[1] = A[0]

    expected = before


class TestALoopAnotherOneOverwritesUnreadGoes(RemovingWithDataflow):
    def before(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(2, 10):
            B[i] = 5
        for i in range(16):
            A[i] = 1
        for k in range(16):
            B[k] = A[k]

    def expected(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(16):
            A[i] = 1
        for k in range(16):
            B[k] = A[k]


class TestALoopWhoseValuesAreReadBeforeTheOverwriteStays(RemovingWithDataflow):
    def before(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(16):
            B[i] = 5
        for k in range(15):
            B[k] = B[k + 1] + A[k]

    expected = before


class TestAStoreTheNextStoreReadsStays(RemovingWithDataflow):
    def before(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        for i in range(16):
            B[i] = 5
            B[i] = B[i] * A[i]

    expected = before


class TestAStoreOfTheValueAlreadyThereGoesButOnlyOneOfTwo(RemovingWithDataflow):
    def before(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        B[3] = 9
        A[0] = B[1]
        B[3] = 9

    def expected(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
        A[0] = B[1]
        B[3] = 9


class TestAnOverwrittenStoresCallStillRuns(RemovingWithDataflow):
    def before(A: T.Buffer((4,), "int32")):
        for i in range(4):
            A[i] = T.call_extern("draw", dtype="int32")
            A[i] = 0

    def expected(A: T.Buffer((4,), "int32")):
        for i in range(4):
            T.evaluate(T.call_extern("draw", dtype="int32"))
            A[i] = 0


# ----------------------------------------------------------------------------- random programs

_VALUES = ["{c}", "i", "i + {c}", "A[i] + {c}", "B[i]", "A[i] * B[i]"]


@st.composite
def _statement(draw, depth=0):
    c = draw(st.integers(0, 3))
    k, k2 = draw(st.integers(0, 15)), draw(st.integers(0, 15))
    kind = draw(st.sampled_from(["fill", "scalar", "branch", "loop_branch", "nested", "accumulate"]))
    lo = draw(st.integers(0, 8))
    hi = draw(st.integers(lo, 16))
    value = draw(st.sampled_from(_VALUES)).format(c=c)
    guard = draw(st.sampled_from(["", f"i < {k}", "i % 2 == 0"]))
    target = draw(st.sampled_from(["A", "B"]))
    if kind == "fill":
        body = f"{target}[i] = {value}"
        body = f"if {guard}:\n        {body}" if guard else body
        return f"for i in T.serial({lo}, {hi}):\n    {body}"
    if kind == "scalar":
        return f"{target}[{k}] = {draw(st.sampled_from(['{c}', 'A[{k2}] + {c}', 'B[{k}] - 1'])).format(c=c, k=k, k2=k2)}"
    if kind == "branch":
        op = draw(st.sampled_from(["==", "!=", "<"]))
        return f"if A[{k}] {op} {c}:\n    B[{k2}] = {c + 1}\nelse:\n    A[{k2}] = {c}"
    if kind == "loop_branch":
        op = draw(st.sampled_from(["==", "!=", "<"]))
        return (f"for i in T.serial({lo}, {hi}):\n    if {target}[i] {op} {value}:\n        B[i] = {c}\n"
                f"    else:\n        A[i] = B[i] + 1")
    if kind == "nested":
        return f"for i in range(4):\n    for j in range(4):\n        {target}[i * 4 + j] = {value.replace('[i]', '[i * 4 + j]')}"
    return (f"for i in T.serial({lo}, {hi}):\n    B[i] = {c}\n    for j in range(3):\n        if j <= i:\n"
            f"            B[i] = B[i] + A[i - j]")


def _indent(text: str, by: str) -> str:
    return "\n".join(by + line for line in text.splitlines())


@st.composite
def _program(draw):
    statements = draw(st.lists(_statement(), min_size=1, max_size=6))
    body = "\n".join(_indent(s, "    ") for s in statements)
    return ('@T.prim_func\ndef main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):\n' + body + "\n")


def _run(mod, a, b):
    a, b = a.copy(), b.copy()
    tvm.build(mod, target="python")(a, b)
    return a, b


@settings(max_examples=150, deadline=None)
@given(_program(), st.integers(0, 2**31 - 1))
def test_what_the_analyses_prove_is_true_of_random_programs(text, seed):
    f = tvm.script.from_source(text)
    with tvm.transform.PassContext(config={"tir.Simplify": {**PROVE, **EVERYWHERE},
                                           "tir.RemoveNoOp": {"use_dataflow_analysis": True}}):
        g = tvm.tir.transform.RemoveNoOp()(tvm.tir.transform.Simplify()(f))
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 4, 16).astype("int32"), rng.integers(0, 4, 16).astype("int32")
    want, got = _run(f, a, b), _run(g, a, b)
    np.testing.assert_array_equal(got[0], want[0], err_msg=text)
    np.testing.assert_array_equal(got[1], want[1], err_msg=text)


def test_the_proved_program_builds_in_c_and_computes_the_same():
    f = tvm.script.from_source('''
        @T.prim_func
        def main(A: T.Buffer((16,), "int32"), B: T.Buffer((16,), "int32")):
            for i in range(16):
                A[i] = i * 3
            for i in range(16):
                if A[i] < 50:
                    B[i] = A[i] + 1
                else:
                    B[i] = 0
    ''')
    g = simplify_with(**PROVE)(f)
    assert "if" not in g.script() and "B_1[i] = 0" not in g.script()
    a, b = np.zeros(16, "int32"), np.full(16, -1, "int32")
    tvm.build(g, target="c")(a, b)
    np.testing.assert_array_equal(a, np.arange(16) * 3)
    np.testing.assert_array_equal(b, np.arange(16) * 3 + 1)


def test_a_deep_sequence_of_stores_is_analysed_at_the_default_recursion_limit():
    body = "\n".join("    A[0] = A[0] + 1" for _ in range(1000))
    f = tvm.script.from_source('@T.prim_func\ndef main(A: T.Buffer((1,), "int32")):\n    A[0] = 0\n'
                               + body + "\n    if A[0] == 1000:\n        A[0] = 7\n")
    g = simplify_with(**PROVE)(f)
    a = np.zeros(1, "int32")
    tvm.build(g, target="python")(a)
    assert a[0] == 7
    assert "if" not in g.script()
