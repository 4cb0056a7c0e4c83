"""Vector addition as a TVM user writes it (after TVM's tensor_expr_get_started): symbolic
length, the default schedule, parallel, split + vectorize, and the GPU-style binding."""

import numpy as np
import tvm
import tvm.testing
from tvm import te

tgt = tvm.target.Target(target="llvm", host="llvm")
n = te.var("n")
A = te.placeholder((n,), name="A")
B = te.placeholder((n,), name="B")
C = te.compute(A.shape, lambda i: A[i] + B[i], name="C")
s = te.create_schedule(C.op)
fadd = tvm.build(s, [A, B, C], tgt, name="myadd")
dev = tvm.device(tgt.kind.name, 0)
length = 1000
a = tvm.nd.array(np.random.uniform(size=length).astype(A.dtype), dev)
b = tvm.nd.array(np.random.uniform(size=length).astype(B.dtype), dev)
c = tvm.nd.array(np.zeros(length, dtype=C.dtype), dev)
fadd(a, b, c)
tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
timer = fadd.time_evaluator(fadd.entry_name, dev, number=3)
assert timer(a, b, c).mean > 0

s[C].parallel(C.op.axis[0])
text = str(tvm.lower(s, [A, B, C], simple_mode=True))
assert "parallel" in text, text
fadd_parallel = tvm.build(s, [A, B, C], tgt, name="myadd_parallel")
c.copyfrom(np.zeros(length, dtype=C.dtype))
fadd_parallel(a, b, c)
tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())

s = te.create_schedule(C.op)
outer, inner = s[C].split(C.op.axis[0], factor=4)
s[C].parallel(outer)
s[C].vectorize(inner)
fadd_vector = tvm.build(s, [A, B, C], tgt, name="myadd_vector")
c.copyfrom(np.zeros(length, dtype=C.dtype))
fadd_vector(a, b, c)
tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())

tgt_gpu = tvm.target.Target(target="cuda", host="llvm")
s = te.create_schedule(C.op)
bx, tx = s[C].split(C.op.axis[0], factor=64)
s[C].bind(bx, te.thread_axis("blockIdx.x"))
s[C].bind(tx, te.thread_axis("threadIdx.x"))
fadd = tvm.build(s, [A, B, C], target=tgt_gpu, name="myadd")
dev = tvm.device(tgt_gpu.kind.name, 0)
a = tvm.nd.array(np.random.uniform(size=length).astype(A.dtype), dev)
b = tvm.nd.array(np.random.uniform(size=length).astype(B.dtype), dev)
c = tvm.nd.array(np.zeros(length, dtype=C.dtype), dev)
fadd(a, b, c)
tvm.testing.assert_allclose(c.numpy(), a.numpy() + b.numpy())
dev_module = fadd.imported_modules[0]
assert "__global__ void __launch_bounds__(64) myadd_kernel(" in dev_module.get_source()
assert tvm.cpu(0).exist  # and tvm.cuda(0).exist where a GPU is present
