"""Lowered functions as TVMScript, in the forms TVM v0.13's printer gives: parameters as
``T.Buffer`` annotations, flat views declared where all their uses are, ``T.grid`` for
perfect nests, concise scoping for the last statement of a body, ``launch_thread`` and
``env_thread``; each text reads back to an equal function that computes NumPy's numbers."""

from __future__ import annotations

import sys
import textwrap
import warnings

import numpy as np
import pytest

import tebound.tvm as tvm
from lower.build import build_lowered
from lower.ir.script.function import function_script
from lower.ir.stmt import (
    Allocate,
    AssertStmt,
    AttrStmt,
    Buffer,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    Load,
    SeqStmt,
    Store,
    While,
)
from lower.ir.structural_equal import first_difference
from lower.lower import LoweredFunc
from lower.tvmscript import from_source
from schedule.ir import arith
from schedule.ir.expr import Broadcast, Call, Ramp, StringImm, Var
from tebound.tvm import te


def dedent(text: str) -> str:
    return textwrap.dedent(text).strip("\n")


def body_lines(text: str) -> str:
    """The body of a printed function after its attributes, dedented."""
    return dedent("\n".join(text.split("\n")[5:]))


def reads_back(func: LoweredFunc, text: str) -> LoweredFunc:
    """The function *text* reads as: equal to *func*, printing *text* again."""
    again = from_source(text)
    assert first_difference(func, again) is None
    assert function_script(again, func.name) == text
    return again


def vector_add():
    A = te.placeholder((1024,), name="A")
    B = te.placeholder((1024,), name="B")
    C = te.compute((1024,), lambda i: A[i] + B[i], name="C")
    return te.create_schedule(C.op), [A, B, C]


def test_the_tutorials_vector_add_prints_as_tvm_v013_prints_its_module():
    s, args = vector_add()
    mod = tvm.lower(s, args, simple_mode=True)
    assert str(mod) == mod.script() == dedent('''
        # from tvm.script import ir as I
        # from tvm.script import tir as T

        @I.ir_module
        class Module:
            @T.prim_func
            def main(A: T.Buffer((1024,), "float32"), B: T.Buffer((1024,), "float32"), C: T.Buffer((1024,), "float32")):
                T.func_attr({"from_legacy_te_schedule": T.bool(True), "global_symbol": "main", "tir.noalias": T.bool(True)})
                for i in range(1024):
                    C_1 = T.Buffer((1024,), data=C.data)
                    A_1 = T.Buffer((1024,), data=A.data)
                    B_1 = T.Buffer((1024,), data=B.data)
                    C_1[i] = A_1[i] + B_1[i]''')
    # The module's function alone, and the legacy text of its body.
    assert mod["main"].script().startswith("# from tvm.script import tir as T\n\n@T.prim_func\ndef main(A: ")
    assert str(mod["main"].body).startswith("for (i, 0, 1024) {\n  C[i] = (A[i] + B[i])")


def test_show_prints_the_script(capsys):
    s, args = vector_add()
    mod = tvm.lower(s, args)
    mod.show()
    assert capsys.readouterr().out == mod.script() + "\n"


def test_a_perfect_nest_is_a_grid_and_each_view_is_declared_in_the_innermost_body_using_it():
    M = 128
    A = te.placeholder((M, M), name="A")
    B = te.placeholder((M, M), name="B")
    k = te.reduce_axis((0, M), name="k")
    C = te.compute((M, M), lambda x, y: te.sum(A[x, k] * B[k, y], axis=k), name="C")
    s = te.create_schedule(C.op)
    f = tvm.lower(s, [A, B, C])["main"]
    text = f.script()
    assert text == dedent('''
        # from tvm.script import tir as T

        @T.prim_func
        def main(A: T.Buffer((128, 128), "float32"), B: T.Buffer((128, 128), "float32"), C: T.Buffer((128, 128), "float32")):
            T.func_attr({"from_legacy_te_schedule": T.bool(True), "global_symbol": "main", "tir.noalias": T.bool(True)})
            for x, y in T.grid(128, 128):
                C_1 = T.Buffer((16384,), data=C.data)
                C_1[x * 128 + y] = T.float32(0)
                for k in range(128):
                    A_1 = T.Buffer((16384,), data=A.data)
                    B_1 = T.Buffer((16384,), data=B.data)
                    C_1[x * 128 + y] = C_1[x * 128 + y] + A_1[x * 128 + k] * B_1[k * 128 + y]''')
    g = reads_back(f, text)
    a, b = np.random.default_rng(1).uniform(-1, 1, (2, M, M)).astype("float32")
    c = np.full((M, M), np.nan, "float32")
    build_lowered(g, "c")(a, b, c)
    np.testing.assert_allclose(c, a @ b, rtol=1e-5, atol=1e-5)


def gpu_schedule(shared_thread: bool):
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 2, name="B")
    C = te.compute((64,), lambda i: B[i] + 1, name="C")
    s = te.create_schedule(C.op)
    tx = te.thread_axis("threadIdx.x")
    if shared_thread:  # one thread index in two kernels
        for T in (B, C):
            o, i = s[T].split(T.op.axis[0], factor=16)
            s[T].bind(o, te.thread_axis("blockIdx.x"))
            s[T].bind(i, tx)
    else:
        o, i = s[C].split(C.op.axis[0], factor=16)
        s[C].bind(o, te.thread_axis("blockIdx.x"))
        s[C].bind(i, tx)
        s[B].compute_at(s[C], i)
        s[B].set_scope("local")
    return s, [A, C]


def test_threads_are_launched_where_they_are_used_and_a_local_allocation_carries_its_scope():
    s, args = gpu_schedule(shared_thread=False)
    f = tvm.lower(s, args)["main"]
    text = f.script()
    assert body_lines(text) == dedent('''
            blockIdx_x = T.launch_thread("blockIdx.x", 4)
            B = T.allocate([1], "float32", "local")
            threadIdx_x = T.launch_thread("threadIdx.x", 16)
            B_1 = T.Buffer((1,), data=B, scope="local")
            A_1 = T.Buffer((64,), data=A.data)
            B_1[0] = A_1[blockIdx_x * 16 + threadIdx_x] * T.float32(2)
            C_1 = T.Buffer((64,), data=C.data)
            C_1[blockIdx_x * 16 + threadIdx_x] = B_1[0] + T.float32(1)''')
    g = reads_back(f, text)
    a = np.random.default_rng(2).uniform(-1, 1, 64).astype("float32")
    c = np.full(64, np.nan, "float32")
    with warnings.catch_warnings():  # running GPU semantics on the CPU, said once
        warnings.simplefilter("ignore")
        build_lowered(g, "cuda")(a, c)
    np.testing.assert_array_equal(c, a * 2 + 1)


def test_a_thread_index_used_by_two_kernels_is_an_env_thread_and_a_statement_before_others_is_a_with():
    s, args = gpu_schedule(shared_thread=True)
    f = tvm.lower(s, args)["main"]
    text = f.script()
    assert body_lines(text) == dedent('''
            B = T.allocate([64], "float32", "global")
            threadIdx_x = T.env_thread("threadIdx.x")
            B_1 = T.Buffer((64,), data=B)
            with T.launch_thread("blockIdx.x", 4) as blockIdx_x:
                T.launch_thread(threadIdx_x, 16)
                A_1 = T.Buffer((64,), data=A.data)
                B_1[blockIdx_x * 16 + threadIdx_x] = A_1[blockIdx_x * 16 + threadIdx_x] * T.float32(2)
            blockIdx_x_1 = T.launch_thread("blockIdx.x", 4)
            T.launch_thread(threadIdx_x, 16)
            C_1 = T.Buffer((64,), data=C.data)
            C_1[blockIdx_x_1 * 16 + threadIdx_x] = B_1[blockIdx_x_1 * 16 + threadIdx_x] + T.float32(1)''')
    g = reads_back(f, text)
    a = np.random.default_rng(3).uniform(-1, 1, 64).astype("float32")
    c = np.full(64, np.nan, "float32")
    with warnings.catch_warnings():  # running GPU semantics on the CPU, said once
        warnings.simplefilter("ignore")
        build_lowered(g, "cuda")(a, c)
    np.testing.assert_array_equal(c, a * 2 + 1)


def test_a_symbolic_shape_is_matched_from_a_handle_as_tvm_binds_te_arguments():
    n = te.var("n")
    A = te.placeholder((n, 4), name="A")
    B = te.compute((n, 4), lambda i, j: A[i, j] * 3, name="B")
    s = te.create_schedule(B.op)
    s[B].parallel(B.op.axis[0])
    s[B].vectorize(B.op.axis[1])
    f = tvm.lower(s, [A, B])["main"]
    text = f.script()
    assert text.split("\n", 3)[3] == dedent('''
        def main(A: T.handle, B: T.handle):
            T.func_attr({"from_legacy_te_schedule": T.bool(True), "global_symbol": "main", "tir.noalias": T.bool(True)})
            n = T.int32()
            A_1 = T.match_buffer(A, (n, 4), buffer_type="auto")
            B_1 = T.match_buffer(B, (n, 4), buffer_type="auto")
            for i in T.parallel(n):
                for j in T.vectorized(4):
                    B_2 = T.Buffer((n * 4,), data=B_1.data, buffer_type="auto")
                    A_2 = T.Buffer((n * 4,), data=A_1.data, buffer_type="auto")
                    B_2[i * 4 + j] = A_2[i * 4 + j] * T.float32(3)''')
    g = reads_back(f, text)
    a = np.arange(20, dtype="float32").reshape(5, 4)
    b = np.full((5, 4), np.nan, "float32")
    build_lowered(g, "c")(a, b)
    np.testing.assert_array_equal(b, a * 3)


def hand_built(body_of, n: int = 8) -> LoweredFunc:
    """A function of one argument tensor A (n float32) whose body *body_of(A's buffer)* makes."""
    A = te.placeholder((n,), name="A")
    buf = Buffer("A", "float32", (arith.const(n),), "global", A)
    return LoweredFunc([A], {A: buf}, body_of(buf), exact=False)


def test_lets_asserts_branches_whiles_and_vectors_print_and_read_back():
    i, v = Var("i"), Var("v", "float32")

    def body(A):
        tmp = Buffer("tmp", "float32", (arith.const(4),), "local")
        count = Buffer("count", "int32", (arith.const(1),), "local")
        vector = Store(A, Broadcast(arith.const(1.5, "float32"), 4), Ramp(arith.const(0), arith.const(1), 4))
        fill = For(i, arith.const(4), arith.const(4), ForKind.SERIAL,
                   IfThenElse(arith.lt(i, 6), Store(A, Load(A, i), i), Store(A, arith.const(0.0, "float32"), i)))
        loop = SeqStmt((Store(count, arith.const(0, "int32"), arith.const(0)),
                        While(arith.lt(Load(count, arith.const(0)), 3),
                              Store(count, arith.add(Load(count, arith.const(0)), 1), arith.const(0)))))
        counted = AttrStmt(count, "storage_scope", StringImm("local"), Allocate(count, loop))
        scratch = AttrStmt(tmp, "storage_scope", StringImm("local"), Allocate(tmp, Evaluate(arith.const(0))))
        let = LetStmt(v, Load(A, arith.const(5)), Store(A, arith.mul(v, 2.0), arith.const(7)))
        check = AssertStmt(arith.gt(Load(A, arith.const(0)), -100.0), "A[0] is \"sane\"")
        return SeqStmt((vector, fill, scratch, counted, let, check))

    f = hand_built(body)
    text = function_script(f)
    assert body_lines(text) == dedent('''
            A_1 = T.Buffer((8,), data=A.data)
            A_1[0:4] = T.Broadcast(T.float32(1.5), 4)
            for i in range(4, 8):
                if i < 6:
                    A_1[i] = A_1[i]
                else:
                    A_1[i] = T.float32(0)
            with T.allocate([4], "float32", "local") as tmp:
                T.evaluate(0)
            with T.allocate([1], "int32", "local") as count:
                count_1 = T.Buffer((1,), "int32", data=count, scope="local")
                count_1[0] = 0
                while count_1[0] < 3:
                    count_1[0] = count_1[0] + 1
            with T.LetStmt(A_1[5]) as v:
                A_1[7] = v * T.float32(2)
            assert A_1[0] > T.float32(-100), "A[0] is \\"sane\\""''')
    g = reads_back(f, text)
    for target in ("python", "c"):  # the vector store runs as a loop over its lanes
        a = np.arange(8, dtype="float32")
        build_lowered(g, target)(a)
        np.testing.assert_array_equal(a, [1.5, 1.5, 1.5, 1.5, 4, 5, 0, 10])


def test_a_let_that_ends_its_body_prints_flat_with_its_type():
    v = Var("v", "float32")
    f = hand_built(lambda A: LetStmt(v, Load(A, arith.const(1)), Store(A, arith.add(v, v), arith.const(0))), n=2)
    text = function_script(f)
    assert text.endswith('''    v: T.float32 = A_1[1]\n    A_1[0] = v + v''')
    g = reads_back(f, text)
    a = np.array([0, 3], "float32")
    build_lowered(g, "c")(a)
    np.testing.assert_array_equal(a, [6, 3])


def test_a_call_keeps_its_spelling_and_an_extern_its_type():
    f = hand_built(lambda A: Store(A, Call("float32", "call_pure_extern", (StringImm("expf"), Load(A, arith.const(0)))),
                                   arith.const(0)), n=1)
    assert 'A_1[0] = T.call_pure_extern("float32", "expf", A_1[0])' in function_script(f)
    reads_back(f, function_script(f))


def test_a_thousand_nested_loops_print_at_the_default_recursion_limit():
    body = Evaluate(arith.const(0))
    variables = [Var(f"i{k}") for k in range(1000)]
    for k, var in enumerate(variables):
        body = For(var, arith.const(0), arith.const(1 + k % 2), ForKind.SERIAL if k % 2 else ForKind.PARALLEL, body)
    f = hand_built(lambda A: body, n=1)
    assert sys.getrecursionlimit() <= 1000
    lines = function_script(f).split("\n")
    assert lines[5] == "    for i999 in range(2):" and lines[6] == "        for i998 in T.parallel(1):"
    assert lines[-1] == " " * 4 * 1001 + "T.evaluate(0)"


def test_an_expression_a_thousand_nodes_deep_prints_and_reads_back():
    def body(A):
        value = Load(A, arith.const(0))
        for k in range(1000):
            value = arith.add(value, Load(A, arith.const(1 + k % 3)))
        return Store(A, arith.mul(value, 0.5), arith.const(0))
    f = hand_built(body, n=4)
    text = function_script(f)
    assert text.count("A_1[") == 1 + 1000 + 1
    g = reads_back(f, text)
    a, b = np.ones(4, "float32"), np.ones(4, "float32")
    build_lowered(f, "python")(a)
    build_lowered(g, "python")(b)
    assert a[0] == b[0] == 500.5


def test_parentheses_nested_past_pythons_parser_are_refused_by_name():
    def body(A):
        value = Load(A, arith.const(0))
        for _ in range(300):  # each product of a sum nests one more pair of parentheses
            value = arith.mul(arith.add(value, 1.0), 0.5)
        return Store(A, value, arith.const(0))
    text = function_script(hand_built(body, n=1))
    assert text.count("(") > 300
    with pytest.raises(SyntaxError, match="nests parentheses deeper than Python's parser reads"):
        from_source(text)


def test_our_lower_keeps_the_legacy_text_and_offers_tvmscript():
    from lower import lower as our_lower

    s, args = vector_add()
    f = our_lower(s, args)
    assert str(f).startswith("produce C {\n  for (i, 0, 1024) {")
    assert f.script() == tvm.lower(s, args)["main"].script()  # produce markers have no TVMScript


def test_a_free_variable_of_a_loops_extent_is_declared_before_the_loop_and_reads_back():
    n = te.var("n")
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    outer, inner = s[B].split(B.op.axis[0], factor=n)  # n is no argument: a free variable
    text = tvm.lower(s, [A, B]).script()
    lines = text.splitlines()
    declared = next(k for k, line in enumerate(lines) if line.strip() == "n = T.int32()")
    header = next(k for k, line in enumerate(lines) if line.lstrip().startswith("for ") and "n" in line)
    assert declared < header
    assert lines[declared].index("n") == lines[header].index("for")  # the same frame
    again = from_source(text)
    assert again.script() == text
    tvm.ir.assert_structural_equal(again["main"], tvm.lower(s, [A, B]), map_free_vars=True)
