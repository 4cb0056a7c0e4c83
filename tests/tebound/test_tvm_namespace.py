"""tebound.tvm re-exports our objects under TVM's names (no wrappers), and its lower and
build default to TVM's bounds."""

from __future__ import annotations

import os

import numpy as np
import pytest

import lower as ours
import schedule
import tebound.tvm as tvm
from lower import PassContext
from lower.backend.cuda.driver import present_arch
from lower.ir.stmt_functor import ir_transform
from schedule.base.pass_context import tvm_rules
from tebound.tvm import te, tir

from ..lower.test_exact_default import example6


def test_the_names_are_our_objects():
    assert te.compute is schedule.compute and te.create_schedule is schedule.create_schedule
    assert te.hybrid.script is schedule.hybrid.script and te.schedule.AutoInlineInjective is schedule.schedule.AutoInlineInjective
    assert tir.Var is schedule.Var and tir.indexmod is schedule.floormod and tir.ir_builder is schedule.ir_builder
    assert tvm.nd.array is ours.nd.array and tvm.runtime.tensor is ours.nd.array
    assert tvm.target.Target is ours.target.Target and tvm.autotvm.template is __import__("tune").autotvm.template
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + 1, name="B")
    assert isinstance(B, schedule.Tensor) and isinstance(A[0], tir.PrimExpr)


def unmarked(func):
    """The text of *func* without its produce markers, as tvm.lower gives it."""
    return str(ir_transform(func.body, None, lambda n: n.body, ["tir.ProducerConsumer"]))


def test_lower_and_build_default_to_tvms_bounds(monkeypatch):
    monkeypatch.delenv("TEBOUND_EXACT", raising=False)
    s, args = example6()
    document, exact = unmarked(ours.lower(s, args, exact=False)), unmarked(ours.lower(s, args, exact=True))
    with tvm_rules():
        v013 = unmarked(ours.lower(s, args, exact=False))
    # TVM v0.13 keeps B to the fused row (v0.6's rule); the document's TVM computes all of B.
    assert "allocate B[float32 * 4]" in v013 and "allocate B[float32 * 16]" in document
    f = tvm.lower(s, args, name="fused", simple_mode=True)
    assert str(f.body) == v013 and f.name == "fused"
    assert "def fused(A: T.Buffer((4, 4), \"float32\")" in str(f) and "B = T.allocate([4]" in str(f)
    # TVM v0.7+ IR has no produce markers, and v0.8+ no scope attribute: under B's allocation
    # comes C's loop.
    assert isinstance(f["main"].body, tir.Allocate) and isinstance(f["main"].body.body, tir.For)
    assert "produce" not in str(f)
    with PassContext(config={"tebound.exact": True}):
        assert str(tvm.lower(s, args).body) == exact
    monkeypatch.setenv("TEBOUND_EXACT", "1")
    assert str(tvm.lower(s, args).body) == exact
    built = tvm.build(s, args, "llvm", name="fused")
    assert built.lowered.exact is True and built.entry_name == "fused"
    a = np.arange(16, dtype="float32").reshape(4, 4)
    out = tvm.nd.empty((4, 4), "float32", tvm.cpu(0))
    built(a, out)
    np.testing.assert_array_equal(out.numpy(), (a + 2) * 3)
    with pytest.raises(TypeError, match="binds maps tensors to buffers"):
        tvm.lower(s, args, binds={args[0]: None})


def test_binds_of_compact_buffers_stand_for_their_tensors_and_others_are_refused():
    m = te.size_var("m")
    A = te.placeholder((m, 4), name="A")
    B = te.compute((m, 4), lambda i, j: A[i, j] * 2, name="B")
    s = te.create_schedule(B.op)
    Ab, Bb = tvm.tir.decl_buffer(A.shape, A.dtype, name="A"), tvm.tir.decl_buffer(B.shape, B.dtype, name="B")
    plain = tvm.lower(s, [A, B])
    bound = tvm.lower(s, [Ab, Bb], binds={A: Ab, B: Bb})
    tvm.ir.assert_structural_equal(bound, plain)
    a = np.arange(12, dtype="float32").reshape(3, 4)
    for target in ("llvm", "c"):
        out = np.zeros((3, 4), "float32")
        tvm.build(s, [Ab, Bb], target, binds={A: Ab, B: Bb})(a, out)
        np.testing.assert_array_equal(out, a * 2)
    strided = tvm.tir.decl_buffer(A.shape, A.dtype, name="A", strides=[8, 1])
    with pytest.raises(ValueError, match="tensor 'A' the buffer 'A' with another layout \\(strides"):
        tvm.lower(s, [strided, B], binds={A: strided})
    wrong = tvm.tir.decl_buffer((m, 5), A.dtype, name="A5")
    with pytest.raises(ValueError, match="'A5' with another layout \\(its shape or dtype differ"):
        tvm.build(s, [wrong, B], binds={A: wrong})


def test_devices_and_testing():
    assert tvm.device("CUDA", 1).device_type == "cuda" and tvm.device("llvm").device_type == "cpu"
    assert tvm.cuda().exist == (present_arch() is not None) and tvm.cpu().exist
    with pytest.raises(ValueError, match="no device 'tpu'"):
        tvm.device("tpu")
    assert tvm.nd.array(np.ones(3), tvm.cuda(0)).device == tvm.cuda(0)
    tvm.testing.assert_allclose(np.float32([1, 2]), [1, 2 + 1e-8])
    with pytest.raises(AssertionError):
        tvm.testing.assert_allclose([1.0, 2.0], [1.0, 2.0001])
    with pytest.raises(AssertionError):
        tvm.testing.assert_allclose([1.0, 2.0], [[1.0, 2.0]])  # shapes differ
    tmp = tvm.contrib.utils.tempdir()
    path = tmp.relpath("x.txt")
    with open(path, "w") as fh:
        fh.write("x")
    assert tmp.listdir() == ["x.txt"]
    folder = tmp.temp_dir
    tmp.remove()
    assert not os.path.exists(folder)


def test_post_order_visit_sees_every_node_after_its_children():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] * 2, name="B")
    s = te.create_schedule(B.op)
    s[B].split(B.op.axis[0], factor=4)
    body = tvm.lower(s, [A, B]).body
    seen = []
    tir.stmt_functor.post_order_visit(body, seen.append)
    kinds = [type(x).__name__ for x in seen]
    assert kinds[-1] == type(body).__name__ and kinds.count("For") == 2
    fors = [x for x in seen if isinstance(x, tir.For)]
    assert fors[0].loop_var.name.endswith("inner") and fors[1].loop_var.name.endswith("outer")
    assert any(isinstance(x, tir.Mul) for x in seen) and seen.index(fors[0]) > max(
        k for k, x in enumerate(seen) if isinstance(x, tir.Mul))


def test_cblas_matmul_refuses_operands_that_do_not_multiply():
    A = te.placeholder((4, 5), name="A")
    with pytest.raises(ValueError, match=r"the inner dimensions differ \(5 and 4\)"):
        tvm.contrib.cblas.matmul(A, te.placeholder((4, 3), name="B"))
    with pytest.raises(ValueError, match="operands are matrices"):
        tvm.contrib.cblas.matmul(A, te.placeholder((5,), name="v"))
    C = tvm.contrib.cblas.matmul(A, te.placeholder((3, 5), name="B"), transb=True)
    assert [int(d.value) for d in C.shape] == [4, 3]


@pytest.mark.parametrize("target", ["c", "python"])
def test_a_packed_function_gets_ndarrays_as_tvm_passes_them(target, monkeypatch):
    """TVM's extern_op tutorial: the registered function reads ``x.numpy()`` and writes with
    ``tvm.nd.array(...).copyto(y)``; the result lands in the output."""
    from schedule.base import packed

    monkeypatch.setattr(packed, "_FUNCS", dict(packed._FUNCS))
    seen = []

    @tvm.register_func("tests.addone_ndarray")
    def addone(x, y):
        seen.append((type(x), type(y)))
        tvm.nd.array(x.numpy() + 1).copyto(y)

    n = 10
    A = te.placeholder((n,), name="A")
    B = te.extern(A.shape, [A], lambda ins, outs: tvm.tir.call_packed("tests.addone_ndarray", ins[0], outs[0]),
                  name="B")
    f = tvm.build(te.create_schedule(B.op), [A, B], target)
    a = np.arange(n, dtype="float32")
    b = np.zeros(n, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, a + 1)
    assert seen == [(tvm.nd.NDArray, tvm.nd.NDArray)]


def test_op_attributes_and_effect_kinds_are_kept():
    from schedule.ir.extern_calls import op_attr

    tvm.ir.register_op_attr("tir.tests_mylog", "TCallEffectKind", tvm.tir.CallEffectKind.Pure)
    assert op_attr("tir.tests_mylog", "TCallEffectKind") == tvm.tir.CallEffectKind.Pure == 1
    tvm.ir.register_op_attr("tir.tests_mylog", "TCallEffectKind", tvm.tir.CallEffectKind.Opaque, level=5)
    assert op_attr("tests_mylog", "TCallEffectKind") == 1  # the lower level does not replace it
    assert tvm.tir.call_intrin("float32", "tir.tests_mylog", 1.0).op.same_as(tvm.ir.Op.get("tir.tests_mylog"))


def test_tvm_statement_classes_match_an_ir_builder_body_and_build_the_lowered_kind():
    ib = tir.ir_builder.create()
    n = te.size_var("n")
    A = ib.allocate("float32", n, name="A", scope="global")
    with ib.for_range(0, n, name="i") as i:
        with ib.if_scope(tir.truncmod(i, 2) == 0):
            A[i] = A[i] + 1
        with ib.else_scope():
            A[0] = A[i] + 2
        with ib.for_range(0, 10, name="j") as j:
            A[j] = A[j] * 2
    body = ib.get()
    assert isinstance(body, tir.Allocate) and not isinstance(body, tir.IfThenElse)
    loop = body.body
    assert isinstance(loop, tir.For) and isinstance(loop.body, tir.SeqStmt) and isinstance(loop.body[1], tir.For)
    branch = loop.body[0]
    assert isinstance(branch, tir.IfThenElse) and isinstance(branch.condition, tir.EQ)
    assert isinstance(branch.then_case, tir.BufferStore) and branch.then_case.indices[0] is loop.var
    assert [x.value for x in branch.else_case.indices] == [0]
    assert isinstance(branch.else_case.value.a, tir.BufferLoad)
    assert not isinstance(branch.else_case.value.a, tir.BufferStore)
    # The constructors build the lowered statements, which lowering's passes take.
    x = te.var("x")
    seq = tir.SeqStmt([tir.Evaluate(0), tir.Evaluate(1)])
    assert isinstance(tir.LetStmt(x, 1, seq), tir.LetStmt) and isinstance(seq, tir.SeqStmt)
    assert type(tir.IfThenElse(x > 0, seq, None)).__module__ == "lower.ir.stmt"
