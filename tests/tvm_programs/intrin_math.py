"""Math intrinsics as TVM's intrin_math tutorial uses them: te.exp, a direct extern call of
expf, and a lowering rule registered for the target that rewrites exp into that call."""

import numpy as np
import tvm
import tvm.testing
from tvm import te

n = te.var("n")
A = te.placeholder((n,), name="A")
B = te.compute(A.shape, lambda i: te.exp(A[i]), name="B")
s = te.create_schedule(B.op)
f = tvm.build(s, [A, B], "llvm")
a = tvm.nd.array(np.random.uniform(-2, 2, size=50).astype("float32"))
b = tvm.nd.array(np.zeros(50, dtype="float32"))
f(a, b)
tvm.testing.assert_allclose(b.numpy(), np.exp(a.numpy()), rtol=1e-5)

C = te.compute(A.shape, lambda i: tvm.tir.call_pure_extern("float32", "expf", A[i]), name="C")
s = te.create_schedule(C.op)
f = tvm.build(s, [A, C], "llvm")
c = tvm.nd.array(np.zeros(50, dtype="float32"))
f(a, c)
tvm.testing.assert_allclose(c.numpy(), np.exp(a.numpy()), rtol=1e-5)

calls = []


def my_exp_rule(op):
    calls.append(op)
    return tvm.tir.call_pure_extern("float32", "expf", op.args[0])


tvm.ir.register_intrin_lowering("tir.exp", target="llvm", f=my_exp_rule, level=99)
s = te.create_schedule(B.op)
f = tvm.build(s, [A, B], "llvm")
assert calls, "the rule registered for llvm was not applied"
b = tvm.nd.array(np.zeros(50, dtype="float32"))
f(a, b)
tvm.testing.assert_allclose(b.numpy(), np.exp(a.numpy()), rtol=1e-5)
