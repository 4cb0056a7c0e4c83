"""``tvm.script``: functions written in TVMScript with ``@T.prim_func`` and ``@I.ir_module``
read into functions that build and compute NumPy's numbers; text outside the subset is a
``SyntaxError`` naming its line, column and construct."""

from __future__ import annotations

import numpy as np
import pytest

import tebound.tvm as tvm
from tebound.tvm.script import from_source
from tebound.tvm.script import ir as I  # noqa: N812 - TVM's spelling
from tebound.tvm.script import tir as T  # noqa: N812 - TVM's spelling

N = 6


@T.prim_func
def scale_rows(a: T.handle, b: T.handle):
    T.func_attr({"global_symbol": "scale_rows", "tir.noalias": True})
    A = T.match_buffer(a, (N, 4), "float32")
    B = T.match_buffer(b, (N, 4), "float32")
    for i, j in T.grid(N, 4):
        B[i, j] = A[i, j] * T.float32(3) + 1.0


@I.ir_module
class Prefix:
    @T.prim_func
    def main(A: T.Buffer((16,), "float32"), B: T.Buffer((16,), "float32")):
        acc = T.allocate([1], "float32", "local")
        acc_1 = T.Buffer((1,), data=acc, scope="local")
        for i in T.serial(16):
            acc_1[0] = T.float32(0)
            for k in range(i + 1):
                acc_1[0] = acc_1[0] + A[k]
            B[i] = acc_1[0]


def test_a_decorated_function_reads_python_values_around_it_and_builds():
    assert isinstance(scale_rows, tvm.tir.PrimFunc) and scale_rows.name == "scale_rows"
    a = np.random.default_rng(0).uniform(-1, 1, (N, 4)).astype("float32")
    b = np.full((N, 4), np.nan, "float32")
    tvm.build(scale_rows, target="llvm")(a, b)
    np.testing.assert_allclose(b, a * 3 + 1, rtol=1e-6)
    # Printed again with the buffers' names, the handles matched as written.
    text = scale_rows.script()
    assert "def scale_rows(A: T.Buffer((6, 4), \"float32\"), B: T.Buffer((6, 4), \"float32\")):" in text
    assert 'T.func_attr({"global_symbol": "scale_rows", "tir.noalias": T.bool(True)})' in text


def test_an_ir_module_of_one_function_builds_and_prints_as_a_module():
    assert isinstance(Prefix, tvm.IRModule) and list(Prefix) == ["main"]
    a = np.random.default_rng(1).uniform(-1, 1, 16).astype("float32")
    b = np.full(16, np.nan, "float32")
    tvm.build(Prefix, target="llvm")(a, b)
    np.testing.assert_allclose(b, np.cumsum(a), rtol=1e-5, atol=1e-6)
    assert str(Prefix).startswith("# from tvm.script import ir as I\n# from tvm.script import tir as T\n\n"
                                  "@I.ir_module\nclass Module:\n    @T.prim_func\n    def main(")
    assert '        acc = T.allocate([1], "float32", "local")' in str(Prefix)


def test_printed_text_reads_back_through_tvm_script():
    A = tvm.te.placeholder((8,), name="A")
    B = tvm.te.compute((8,), lambda i: tvm.te.exp(A[i]) - 1, name="B")
    s = tvm.te.create_schedule(B.op)
    mod = tvm.lower(s, [A, B])
    again = from_source(mod.script())
    tvm.ir.assert_structural_equal(again["main"], mod["main"])
    a = np.linspace(-1, 1, 8).astype("float32")
    b = np.full(8, np.nan, "float32")
    tvm.build(again, target="llvm")(a, b)
    np.testing.assert_allclose(b, np.exp(a) - 1, rtol=1e-6, atol=1e-7)


def test_older_subscript_buffers_typed_constants_lets_and_slices_read():
    f = from_source('''
        @T.prim_func
        def main(A: T.Buffer[(8,), "int32"], B: T.Buffer[(8,), "int32"]):
            for i in T.vectorized(8):
                B[i] = T.Select(A[i] > 0, A[i], T.int32(0)) + T.truncmod(A[i], 3)
            x = T.int32(5)
            B[0:2] = T.Broadcast(x, 2)
    ''')
    a = np.arange(-4, 4, dtype="int32")
    b = np.zeros(8, "int32")
    tvm.build(f, target="llvm")(a, b)
    expected = np.where(a > 0, a, 0) + np.fmod(a, 3)
    expected[0:2] = 5
    np.testing.assert_array_equal(b, expected)


@pytest.mark.parametrize("text, message", [
    ("@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    try:\n        pass\n    finally:\n        pass",
     r"line 3, column 5: Try statements are not part of TVMScript's non-block subset"),
    ("@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    A[0] = B[0]",
     r"line 3, column 12: name 'B' is not defined"),
    ("@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    with T.block(\"root\"):\n        A[0] = 1.0",
     r"line 3, column 5: T.block is not a scope TVMScript's non-block subset reads"),
    ("@T.prim_func\ndef main(a):\n    T.evaluate(0)", r"line 2, column 10: the parameter 'a' needs a type"),
    ("@T.prim_func\ndef main(n: T.int32):\n    A = T.match_buffer(n, (4,))", r"T.match_buffer matches a T.handle parameter"),
    ("@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    A[0] = A[0] ** 2",
     r"line 3, column 12: the operator Pow is not part of TVMScript"),
    ("@T.prim_func\ndef main(A: T.Buffer((4,), \"float32\")):\n    for i in [1, 2]:\n        A[i] = 0.0",
     r"line 3, column 5: a loop iterates over range"),
    ("def main(:\n    pass", r"not Python"),
    ("x = 1", r"no @T.prim_func function or @I.ir_module class"),
])
def test_text_outside_the_subset_is_a_syntax_error_naming_line_column_and_construct(text, message):
    with pytest.raises(SyntaxError, match=message) as info:
        from_source(text)
    assert info.value.lineno is None or info.value.lineno >= 1


def test_a_decorated_function_without_source_is_refused_with_the_way_out():
    namespace = {"T": T}
    exec("def f(A: T.Buffer((4,), 'float32')):\n    A[0] = 1.0", namespace)  # noqa: S102 - no source file
    with pytest.raises(ValueError, match=r"source of 'f' is not available .* tvm.script.from_source\(text\)"):
        T.prim_func(namespace["f"])
    with pytest.raises(TypeError, match="T.prim_func decorates a function"):
        T.prim_func(3)
    with pytest.raises(TypeError, match="from_source: TVMScript text"):
        from_source(b"bytes")


POINTED = '''
@T.prim_func
def main(p: T.handle("float32"), start: T.int32, step: T.int32):
    q: T.handle("float32") = p
    first = start
    A = T.decl_buffer((8,), "float32", data=q, elem_offset=first, strides=[step])
    A[3] = A[2] + 1.0
'''


def test_a_buffer_over_a_pointer_variable_reads_prints_back_and_keeps_its_lets():
    f = from_source(POINTED)
    text = f.script()
    assert "p: T.handle" in text and "q: T.handle = p" in text
    assert "T.Buffer((8,), data=q, elem_offset=first, strides=(step,))" in text
    again = from_source(text)
    tvm.ir.assert_structural_equal(again, f)
    # The lets name where the buffer lives: Simplify keeps them, as TVM's does.
    out = tvm.tir.transform.Simplify()(f)
    tvm.ir.assert_structural_equal(out, f)
    # Another place is another buffer.
    other = from_source(POINTED.replace("elem_offset=first", "elem_offset=start"))
    assert not tvm.ir.structural_equal(other, f)


@pytest.mark.parametrize("target", ["c", "python"])
def test_a_buffer_over_a_pointer_variable_is_refused_at_build_naming_both(target):
    with pytest.raises(tvm.error.TVMError, match=r"buffer 'A' is declared over the pointer variable 'q'.*T.match_buffer"):
        tvm.build(from_source(POINTED), target=target)


@I.ir_module
class Strided:
    @T.prim_func
    def fused_multiply_add(A: T.handle, B: T.handle, C: T.handle, D: T.handle):
        T.func_attr({"global_symbol": "fma", "tir.noalias": True})
        n = T.int32()
        stride_a = T.int32()
        stride_b = T.int32()
        offset = T.int32()
        A_1 = T.match_buffer(A, [n, 3], strides=[stride_a, 1], elem_offset=0, align=64, offset_factor=1)
        B_1 = T.match_buffer(B, [n, 3], strides=[stride_b, 1], elem_offset=offset)
        C_1 = T.match_buffer(C, [n, 3], strides=[3, 1])
        D_1 = T.match_buffer(D, [n * 3], strides=[1])
        for i, j in T.grid(n, 3):
            D_1[i * stride_a + j + offset] = A_1[i, j] * B_1[i, j] + C_1[i * stride_b // 3, j]


def test_argument_buffers_with_strides_and_offsets_are_compact_arrays_named_by_their_symbol():
    """A stride or offset variable takes the compact array's value, as a call of TVM's binds it
    from the (compact) array it is given; the function is called by its global symbol."""
    f = tvm.build(Strided, target="llvm")
    assert f.entry_name == "fma"
    rng = np.random.default_rng(2)
    a, b, c = (rng.uniform(-1, 1, (5, 3)).astype("float32") for _ in range(3))
    d = np.full(15, np.nan, "float32")
    f["fma"](a, b, c, d)
    np.testing.assert_allclose(d, (a * b + c).ravel(), rtol=1e-6)


@pytest.mark.parametrize("declared, message", [
    ("strides=[4, 1]", r"its stride 0 is 4, where a compact array has 3"),
    ("strides=[n, 1]", r"its stride 0 is n, where a compact array has 3"),
    ("elem_offset=2", r"its elem_offset is 2, where a compact array has 0"),
    ("strides=[1]", r"strides are a list of one per dimension"),
])
def test_an_argument_buffer_of_another_layout_is_refused_naming_it(declared, message):
    text = ("@T.prim_func\ndef main(a: T.handle):\n    n = T.int32()\n"
            f"    A = T.match_buffer(a, [n, 3], {declared})\n    A[0, 0] = 1.0\n")
    with pytest.raises(SyntaxError, match=rf"argument buffer 'A': {message}"):
        from_source(text)


@T.prim_func
def doubled_with_a_fact(A: T.Buffer((4, 4), "int32"), B: T.Buffer((14,), "int32")):
    A_1 = T.Buffer((16,), "int32", data=A.data)
    for i, j in T.grid(4, 4):
        T.assume(i < 3 or j < 2 or A_1[i * 4 + j] == 0)
    for i in range(14):
        B[i] = A_1[i] * 2


def test_assume_is_a_fact_that_computes_nothing():
    """The assumed condition is false for the array given (A[3, 3] is 15): still nothing
    checks it, as TVM removes ``T.assume`` before code generation."""
    assert "T.assume(" in doubled_with_a_fact.script()
    f = tvm.build(doubled_with_a_fact, target="llvm")
    assert "assume" not in f.get_source()
    a = np.arange(16, dtype="int32").reshape(4, 4)
    b = np.full(14, -1, "int32")
    f(a, b)
    np.testing.assert_array_equal(b, a.ravel()[:14] * 2)
