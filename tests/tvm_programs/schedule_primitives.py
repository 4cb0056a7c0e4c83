"""The schedule primitives one at a time, as a TVM user tries them (after TVM's
schedule_primitives): each schedule is printed and run against NumPy."""

import numpy as np
import tvm
from tvm import te

m, n = 24, 20
rng = np.random.default_rng(0)
a_np = rng.random((m, n), dtype="float32")
b_np = rng.random((m, n), dtype="float32")


def check(s, args, expected, inputs):
    print(tvm.lower(s, args, simple_mode=True))
    f = tvm.build(s, args)
    out = tvm.nd.array(np.zeros(expected.shape, dtype="float32"))
    f(*inputs, out)
    tvm.testing.assert_allclose(out.numpy(), expected, rtol=1e-5)


A = te.placeholder((m, n), name="A")
B = te.compute((m, n), lambda i, j: A[i, j] * 2, name="B")

s = te.create_schedule(B.op)
xo, xi = s[B].split(B.op.axis[0], factor=32)
check(s, [A, B], a_np * 2, [a_np])

s = te.create_schedule(B.op)
bx, tx = s[B].split(B.op.axis[0], nparts=5)
check(s, [A, B], a_np * 2, [a_np])

s = te.create_schedule(B.op)
xo, yo, xi, yi = s[B].tile(B.op.axis[0], B.op.axis[1], x_factor=10, y_factor=5)
check(s, [A, B], a_np * 2, [a_np])

s = te.create_schedule(B.op)
xo, yo, xi, yi = s[B].tile(B.op.axis[0], B.op.axis[1], x_factor=10, y_factor=5)
fused = s[B].fuse(xi, yi)
check(s, [A, B], a_np * 2, [a_np])

s = te.create_schedule(B.op)
xo, yo, xi, yi = s[B].tile(B.op.axis[0], B.op.axis[1], x_factor=10, y_factor=5)
s[B].reorder(xi, yo, xo, yi)
check(s, [A, B], a_np * 2, [a_np])

s = te.create_schedule(B.op)
bx, tx = s[B].split(B.op.axis[0], factor=8)
s[B].bind(bx, te.thread_axis("blockIdx.x"))
s[B].bind(tx, te.thread_axis("threadIdx.x"))
check(s, [A, B], a_np * 2, [a_np])

C = te.compute((m, n), lambda i, j: A[i, j] + 1, name="C")
D = te.compute((m, n), lambda i, j: C[i, j] * 2, name="D")
s = te.create_schedule(D.op)
s[C].compute_at(s[D], D.op.axis[1])
check(s, [A, D], (a_np + 1) * 2, [a_np])

s = te.create_schedule(D.op)
s[C].compute_inline()
check(s, [A, D], (a_np + 1) * 2, [a_np])

s = te.create_schedule(D.op)
s[C].compute_at(s[D], D.op.axis[1])
s[C].compute_root()
check(s, [A, D], (a_np + 1) * 2, [a_np])
