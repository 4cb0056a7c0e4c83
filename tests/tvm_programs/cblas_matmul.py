"""A library GEMM called from a schedule (after TVM's test_cblas and extern_op), with a
compute stage fused after it; transposes in both operands."""

import numpy as np
import tvm
import tvm.testing
from tvm import te
from tvm.contrib import cblas

n, l, m = 48, 32, 40
A = te.placeholder((n, l), name="A")
B = te.placeholder((l, m), name="B")
C = cblas.matmul(A, B)
D = te.compute(C.shape, lambda i, j: C[i, j] + 1, name="D")
s = te.create_schedule(D.op)
f = tvm.build(s, [A, B, D], "llvm")
a = tvm.nd.array(np.random.uniform(size=(n, l)).astype(A.dtype))
b = tvm.nd.array(np.random.uniform(size=(l, m)).astype(B.dtype))
d = tvm.nd.array(np.zeros((n, m), dtype=D.dtype))
f(a, b, d)
tvm.testing.assert_allclose(d.numpy(), np.dot(a.numpy(), b.numpy()) + 1, rtol=1e-5)

At = te.placeholder((l, n), name="At")
Bt = te.placeholder((m, l), name="Bt")
Ct = cblas.matmul(At, Bt, transa=True, transb=True)
s = te.create_schedule(Ct.op)
f = tvm.build(s, [At, Bt, Ct], "llvm")
at, bt = a.numpy().T.copy(), b.numpy().T.copy()
c = tvm.nd.array(np.zeros((n, m), dtype="float32"))
f(at, bt, c)
tvm.testing.assert_allclose(c.numpy(), at.T @ bt.T, rtol=1e-5)
