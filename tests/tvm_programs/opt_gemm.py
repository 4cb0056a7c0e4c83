"""A matmul scheduled step by step as a TVM user does (after TVM's opt_gemm): blocking,
vectorization, loop permutation, array packing, a write cache and parallel rows."""

import numpy as np
import tvm
import tvm.testing
from tvm import te

M = K = N = 64
bn = 16
target = "llvm"
dev = tvm.device(target, 0)
a = tvm.nd.array(np.random.rand(M, K).astype("float32"), dev)
b = tvm.nd.array(np.random.rand(K, N).astype("float32"), dev)
answer = np.dot(a.numpy(), b.numpy())

k = te.reduce_axis((0, K), "k")
A = te.placeholder((M, K), name="A")
B = te.placeholder((K, N), name="B")
C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * B[k, n], axis=k), name="C")


def run(s, args):
    func = tvm.build(s, args, target=target, name="mmult")
    c = tvm.nd.array(np.zeros((M, N), dtype="float32"), dev)
    func(a, b, c)
    tvm.testing.assert_allclose(c.numpy(), answer, rtol=1e-5)


s = te.create_schedule(C.op)
run(s, [A, B, C])

s = te.create_schedule(C.op)
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
(kaxis,) = s[C].op.reduce_axis
ko, ki = s[C].split(kaxis, factor=4)
s[C].reorder(mo, no, ko, ki, mi, ni)
s[C].vectorize(ni)
run(s, [A, B, C])

packedB = te.compute((N // bn, K, bn), lambda x, y, z: B[y, x * bn + z], name="packedB")
C = te.compute((M, N), lambda m, n: te.sum(A[m, k] * packedB[n // bn, k, tvm.tir.indexmod(n, bn)], axis=k),
               name="C")
s = te.create_schedule(C.op)
CC = s.cache_write(C, "global")
mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], bn, bn)
s[CC].compute_at(s[C], no)
mc, nc = s[CC].op.axis
(kaxis,) = s[CC].op.reduce_axis
ko, ki = s[CC].split(kaxis, factor=4)
s[CC].reorder(ko, mc, ki, nc)
s[CC].vectorize(nc)
s[CC].unroll(ki)
x, y, z = s[packedB].op.axis
s[packedB].vectorize(z)
s[packedB].parallel(x)
s[C].parallel(mo)
print(tvm.lower(s, [A, B, C], simple_mode=True))
run(s, [A, B, C])
