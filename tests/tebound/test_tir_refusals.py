"""Bad input to the TIR entry points of tebound.tvm (passes, modules, ir_transform, Op) is
refused with a TypeError or ValueError that names what is wrong."""

from __future__ import annotations

import pytest

import tebound.tvm as tvm
from tebound.tvm import te


def _body():
    ib = tvm.tir.ir_builder.create()
    with ib.for_range(0, 4, name="i") as i:
        ib.emit(tvm.tir.call_extern("int32", "f", i))
    return ib.get()


def _module():
    a = te.placeholder((4,), name="A")
    b = te.compute((4,), lambda i: a[i] + 1, name="B")
    return tvm.lower(te.create_schedule(b.op), [a, b])


@pytest.mark.parametrize("bad, error, match", [
    (lambda: tvm.tir.stmt_functor.ir_transform(3, None, None), TypeError, "ir_transform: a statement"),
    (lambda: tvm.tir.stmt_functor.ir_transform(_body(), lambda n: 5, None), TypeError,
     "returned 5 for tir.For"),
    (lambda: tvm.tir.transform.Simplify()(3), TypeError, "Simplify: applies to an IRModule"),
    (lambda: tvm.tir.transform.NarrowDataType(12), ValueError, "8, 16 or 32"),
    (lambda: tvm.transform.Sequential([3]), TypeError, "a list of passes"),
    (lambda: tvm.IRModule({"main": 3}), TypeError, "a function has a body"),
    (lambda: tvm.IRModule()["main"], ValueError, "no function named 'main'"),
    (lambda: _module()["other"], ValueError, "holds one function"),
    (lambda: tvm.tir.PrimFunc([], 3), TypeError, "PrimFunc: a statement"),
    (lambda: tvm.tir.stmt_list(3), TypeError, "stmt_list: a statement"),
    (lambda: tvm.ir.Op.get(""), TypeError, "non-empty str"),
])
def test_bad_input_is_refused_with_a_message(bad, error, match):
    with pytest.raises(error, match=match):
        bad()


def test_a_pass_on_an_ir_builder_body_and_a_prim_func_keeps_the_functions_parameters():
    body = _body()
    func = tvm.tir.PrimFunc([], body).with_attr("global_symbol", "f")
    mod = tvm.tir.transform.Simplify()(tvm.IRModule.from_expr(func))
    assert mod["main"].attrs == {"global_symbol": "f"}
    assert isinstance(mod["main"].body, tvm.tir.For) and int(mod["main"].body.extent) == 4
    assert isinstance(tvm.tir.transform.Simplify()(body), tvm.tir.For)
