"""TIR passes one at a time, as TVM's tests drive them: ir_transform on an ir_builder body
(TVM's test_tir_stmt_functor_ir_transform, written anew), and UnrollLoop, LoopPartition,
Simplify and RemoveNoOp applied to a lowered module under PassContext options."""

import tvm
from tvm import te


def test_ir_transform():
    ib = tvm.tir.ir_builder.create()
    n = te.var("n")
    with ib.for_range(0, n, name="i") as i:
        with ib.for_range(0, 10, name="j") as j:
            inner = tvm.tir.call_extern("int32", "TestA", i * 3 + j)
            ib.emit(tvm.tir.call_extern("int32", "TestB", inner))
            ib.emit(tvm.tir.call_extern("int32", "TestC", inner))
    extern = tvm.ir.Op.get("tir.call_extern")
    seen = []

    def preorder(op):
        seen.append(op)
        if op.op.same_as(extern) and op.args[0].value == "TestC":
            return tvm.tir.const(42, "int32")  # replaces the call; its arguments are not visited
        return None

    def postorder(op):
        assert isinstance(op, tvm.tir.Call)
        if op.op.same_as(extern) and op.args[0].value == "TestA":
            return tvm.tir.call_extern("int32", "TestB", op.args[1] + 1)
        return op

    body = tvm.tir.stmt_functor.ir_transform(ib.get(), preorder, postorder, ["tir.Call"])
    first, second = tvm.tir.stmt_list(body.body.body)
    assert first.value.args[0].value == "TestB" and first.value.args[1].args[0].value == "TestB"
    assert second.value.value == 42
    # only calls were offered: TestB, TestA under it, TestC (and not TestA under TestC)
    assert [c.args[0].value for c in seen] == ["TestB", "TestA", "TestC"]


def loops(stmt):
    found = []
    tvm.tir.stmt_functor.post_order_visit(stmt, lambda x: found.append(x) if isinstance(x, tvm.tir.For) else None)
    return found


def test_unroll_loop_thresholds():
    a = te.placeholder((8,), name="A")
    b = te.compute((8,), lambda i: a[i] + 1, name="B")
    mod = tvm.lower(te.create_schedule(b.op), [a, b])
    assert len(loops(mod["main"].body)) == 1
    with tvm.transform.PassContext(config={"tir.UnrollLoop": {"auto_max_step": 8}}):
        assert loops(tvm.tir.transform.UnrollLoop()(mod)["main"].body) == []
    with tvm.transform.PassContext(config={"tir.UnrollLoop": {"auto_max_step": 7}}):
        assert len(loops(tvm.tir.transform.UnrollLoop()(mod)["main"].body)) == 1
    with tvm.transform.PassContext(config={"tir.UnrollLoop": {"auto_max_step": 8, "explicit_unroll": False}}):
        (loop,) = loops(tvm.tir.transform.UnrollLoop()(mod)["main"].body)
        assert loop.kind == tvm.tir.ForKind.UNROLLED


def test_unroll_an_ir_builder_nest():
    """Two iterations of an outer loop (n to n + 2) around an unrolled loop of 8 stores: 16 steps
    unroll it under a limit of 16, not under 15; without explicit unrolling the loop is marked;
    a pragma sets the limit for its part of a sequence only."""
    ib = tvm.tir.ir_builder.create()
    n = te.size_var("n")
    buf = tvm.tir.decl_buffer((n,), "int64")
    ptr = ib.buffer_ptr(buf)
    with ib.for_range(n, n + 2, name="i") as i:
        with ib.for_range(0, 8, name="j", kind="unroll") as j:
            ptr[j + 1] = ptr[i] + 1
    nest = ib.get()
    assert isinstance(nest, tvm.tir.For)
    mod = tvm.IRModule.from_expr(tvm.tir.PrimFunc([buf], nest))
    with tvm.transform.PassContext(config={"tir.UnrollLoop": {"auto_max_step": 16}}):
        body = tvm.tir.transform.UnrollLoop()(mod)["main"].body
        assert not isinstance(body, tvm.tir.For) and len(tvm.tir.stmt_list(body)) == 16
    with tvm.transform.PassContext(config={"tir.UnrollLoop": {"auto_max_step": 15}}):
        assert isinstance(tvm.tir.transform.UnrollLoop()(mod)["main"].body, tvm.tir.For)
    with tvm.transform.PassContext(config={"tir.UnrollLoop": {"auto_max_step": 16, "explicit_unroll": False}}):
        body = tvm.tir.transform.UnrollLoop()(mod)["main"].body
        assert body.kind == tvm.tir.ForKind.UNROLLED
    ib = tvm.tir.ir_builder.create()
    ib.scope_attr(tvm.tir.const(0, "int32"), "pragma_auto_unroll_max_step", 16)
    ib.emit(nest)
    mod = tvm.IRModule.from_expr(tvm.tir.PrimFunc([buf], tvm.tir.SeqStmt([ib.get(), nest])))
    with tvm.transform.PassContext(config={"tir.UnrollLoop": {"auto_max_depth": 8, "explicit_unroll": False}}):
        body = tvm.tir.transform.UnrollLoop()(mod)["main"].body
        assert body[0].kind == tvm.tir.ForKind.UNROLLED and body[1].kind != tvm.tir.ForKind.UNROLLED
        assert body[0].body.kind == tvm.tir.ForKind.UNROLLED and isinstance(body[0].body.body, tvm.tir.BufferStore)


def test_loop_partition_of_a_tail():
    a = te.placeholder((10,), name="A")
    b = te.compute((10,), lambda i: a[i] * 2, name="B")
    s = te.create_schedule(b.op)
    s[b].split(b.op.axis[0], factor=4)
    mod = tvm.lower(s, [a, b])
    assert "likely" in str(mod["main"].body)
    whole = tvm.tir.transform.LoopPartition()(mod)["main"].body  # constant loops stay whole
    assert len(loops(whole)) == 2 and "if (" in str(whole) and "likely" not in str(whole)  # TVM drops the tag
    with tvm.transform.PassContext(config={"tir.LoopPartition": {"partition_const_loop": True}}):
        # TVM's Simplify leaves the loop whose guard it proves false empty; RemoveNoOp drops it
        seq = tvm.transform.Sequential([tvm.tir.transform.LoopPartition(), tvm.tir.transform.Simplify(),
                                        tvm.tir.transform.RemoveNoOp()])
        body = seq(mod)["main"].body
    text = str(body)
    assert "likely" not in text
    # 2 full tiles of 4, then a tail of 2 starting at 8
    assert sorted(int(loop.extent) for loop in loops(body)) == [2, 2, 4]
    assert "(i.inner + 8)" in text


if __name__ == "__main__":
    test_ir_transform()
    test_unroll_loop_thresholds()
    test_unroll_an_ir_builder_nest()
    test_loop_partition_of_a_tail()
