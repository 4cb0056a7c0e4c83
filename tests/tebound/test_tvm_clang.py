"""tvm.contrib.clang.create_llvm as TVM's tensorize tutorial uses it: C++ code whose extern "C"
function a tensorized loop calls through call_extern, on both targets, against NumPy."""

from __future__ import annotations

import shutil

import numpy as np
import pytest

import lower
import tebound.tvm as tvm
from tebound.tvm import te
from tebound.tvm.contrib import clang

pytestmark = pytest.mark.skipif(not any(shutil.which(c) for c in ("c++", "g++", "clang++")),
                                reason="no C++ compiler on this machine")

CODE = """
extern "C" int scaled_gemv(float *cc, const float *aa, const float *bb, int m, int l, int stride, double k) {
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < l; ++j)
      cc[i] += static_cast<float>(k) * aa[j] * bb[i * stride + j];
  return 0;
}
"""


def _gemv_intrin(m, l):  # noqa: E741
    a = te.placeholder((l,), name="a")
    b = te.placeholder((m, l), name="b")
    k = te.reduce_axis((0, l), name="k")
    c = te.compute((m,), lambda i: te.sum(a[k] * b[i, k] * 2.0, axis=k), name="c")
    Ab = tvm.tir.decl_buffer(a.shape, a.dtype, name="A", offset_factor=1, strides=[1])
    Bb = tvm.tir.decl_buffer(b.shape, b.dtype, name="B", offset_factor=1, strides=[te.var("s1"), 1])
    Cb = tvm.tir.decl_buffer(c.shape, c.dtype, name="C", offset_factor=1, strides=[1])

    def intrin_func(ins, outs):
        ib = tvm.tir.ir_builder.create()
        aa, bb = ins
        cc = outs[0]
        ib.emit(tvm.tir.call_extern("int32", "scaled_gemv", cc.access_ptr("w"), aa.access_ptr("r"),
                                    bb.access_ptr("r"), m, l, bb.strides[0], tvm.tir.const(2.0, "float64")))
        return ib.get()

    return te.decl_tensor_intrin(c.op, intrin_func, binds={a: Ab, b: Bb, c: Cb})


@pytest.mark.parametrize("target", ["python", "c"])
def test_a_tensorized_loop_calls_the_compiled_function(tmp_path, target):
    source = clang.create_llvm(CODE, output=str(tmp_path / "code.ll"))
    assert (tmp_path / "code.ll").read_text() == source
    N, M, L, factor = 8, 32, 16, 8
    A = te.placeholder((N, L), name="A")
    B = te.placeholder((M, L), name="B")
    k = te.reduce_axis((0, L), name="k")
    C = te.compute((N, M), lambda i, j: te.sum(A[i, k] * B[j, k] * 2.0, axis=k), name="C")
    s = te.create_schedule(C.op)
    x, y = C.op.axis
    yo, yi = s[C].split(y, factor=factor)
    s[C].reorder(x, yo, yi, s[C].op.reduce_axis[0])
    s[C].tensorize(yi, _gemv_intrin(factor, L))
    s[C].pragma(x, "import_llvm", source)
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((N, L)).astype("float32"), rng.standard_normal((M, L)).astype("float32")
    c = np.zeros((N, M), "float32")  # the function accumulates into its output, as TVM's tutorial's
    lower.build(s, [A, B, C], target=target)(a, b, c)
    np.testing.assert_allclose(c, 2 * a @ b.T, rtol=1e-5, atol=1e-5)


def test_code_that_does_not_compile_and_types_ctypes_cannot_pass():
    with pytest.raises(RuntimeError, match="does not compile"):
        clang.create_llvm('extern "C" int broken( { }')
    with pytest.raises(ValueError, match="use pointers, int"):
        clang.create_llvm('struct S { int x; }; extern "C" int takes_struct(struct S s) { return s.x; }')
