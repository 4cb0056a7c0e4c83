"""``tvm.tir.transform.VerifyMemory``: a function for a GPU target touches memory only inside
thread-bound loops; the same function for a CPU target, or with no target, passes."""

from __future__ import annotations

import pytest

import tebound.tvm as tvm
from tebound.tvm import te


def _with_target(mod, kind):
    return tvm.tir.transform.Apply(lambda f: f.with_attr("target", tvm.target.Target(kind)))(mod)


def _pipeline(bind_middle_only):
    A = te.placeholder((te.var("n"),), name="A")
    B = te.compute(A.shape, lambda i: A[i] * 2.0, name="B")
    C = te.compute(A.shape, lambda i: B[i] + 1.0, name="C")
    s = te.create_schedule([B.op, C.op])
    stages = [C] if bind_middle_only else [B, C]
    for t in stages:
        bx, tx = s[t].split(t.op.axis[0], factor=32)
        s[t].bind(bx, te.thread_axis("blockIdx.x"))
        s[t].bind(tx, te.thread_axis("threadIdx.x"))
    return tvm.lower(s, [A, B, C])


@pytest.mark.parametrize("kind", ["cuda", "vulkan", "rocm"])
def test_a_gpu_function_with_an_unbound_stage_is_refused_naming_its_buffer(kind):
    mod = _pipeline(bind_middle_only=True)
    with pytest.raises(RuntimeError, match="reads or writes 'B' outside every thread-bound loop"):
        tvm.tir.transform.VerifyMemory()(_with_target(mod, kind))


def test_bound_functions_and_cpu_functions_pass_unchanged():
    bound = _with_target(_pipeline(bind_middle_only=False), "cuda")
    assert tvm.tir.transform.VerifyMemory()(bound)["main"].body is bound["main"].body
    unbound = _pipeline(bind_middle_only=True)
    for mod in (_with_target(unbound, "llvm"), unbound):  # a CPU target, and none
        assert tvm.tir.transform.VerifyMemory()(mod)["main"].body is mod["main"].body
