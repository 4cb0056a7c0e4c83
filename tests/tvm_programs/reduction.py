"""Row sums scheduled as TVM's reduction tutorial does: split of the reduction axis, rfactor,
and the GPU-style binding of rows to blocks and of the factored reduction to threads."""

import numpy as np
import tvm
import tvm.testing
from tvm import te

n, m = 64, 96
A = te.placeholder((n, m), name="A")
k = te.reduce_axis((0, m), "k")
B = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="B")
a = tvm.nd.array(np.random.uniform(size=(n, m)).astype(A.dtype))
expected = np.sum(a.numpy(), axis=1)


def check(s, target="llvm"):
    print(tvm.lower(s, [A, B], simple_mode=True))
    f = tvm.build(s, [A, B], target)
    b = tvm.nd.array(np.zeros(n, dtype=B.dtype))
    f(a, b)
    tvm.testing.assert_allclose(b.numpy(), expected, rtol=1e-4)


s = te.create_schedule(B.op)
check(s)

s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
xo, xi = s[B].split(B.op.axis[0], factor=32)
check(s)

s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
BF = s.rfactor(B, ki)
assert BF.shape[0].value == 16 and BF.shape[1].value == n
check(s)

s = te.create_schedule(B.op)
ko, ki = s[B].split(B.op.reduce_axis[0], factor=16)
BF = s.rfactor(B, ki)
xo, xi = s[B].split(s[B].op.axis[0], factor=32)
s[B].bind(xo, te.thread_axis("blockIdx.x"))
s[B].bind(xi, te.thread_axis("threadIdx.y"))
tx = te.thread_axis("threadIdx.x")
s[B].bind(s[B].op.reduce_axis[0], tx)
s[BF].compute_at(s[B], s[B].op.reduce_axis[0])
s[B].set_store_predicate(tx.var.equal(0))
check(s, tvm.target.Target("cuda"))
