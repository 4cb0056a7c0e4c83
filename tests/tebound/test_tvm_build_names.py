"""What a module built from ``tvm.lower``'s result is called, and the names TVM's code
generator files import (``tvm.target.codegen``, ``tvm.relay.backend``)."""

from __future__ import annotations

import numpy as np
import pytest

import tebound.tvm as tvm
from tebound.tvm import te


def _add():
    n = 64
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i], name="C")
    s = te.create_schedule(C.op)
    s[C].vectorize(s[C].split(C.op.axis[0], factor=4)[1])
    return s, [A, B, C]


@pytest.mark.parametrize("target", ["c", "llvm"])
def test_a_lowered_module_keeps_the_name_lower_gave_it(target):
    s, args = _add()
    a, b = np.random.rand(64).astype("float32"), np.random.rand(64).astype("float32")
    named = tvm.build(tvm.lower(s, args, name="vector_add"), target=target)
    assert named.entry_name == "vector_add"
    c = np.zeros(64, "float32")
    named["vector_add"](a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)
    with pytest.raises(AttributeError, match="its function is 'vector_add'"):
        named["default_function"]
    # lower's own default is "main", a schedule's build "default_function", and a name given
    # to build wins over the module's.
    assert tvm.build(tvm.lower(s, args), target=target).entry_name == "main"
    assert tvm.build(s, args, target).entry_name == "default_function"
    renamed = tvm.build(tvm.lower(s, args, name="vector_add"), target=target, name="other")
    c[:] = 0
    renamed["other"](a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_codegen_answers_as_tvm_without_llvm_and_runtime_records_are_accepted():
    assert tvm.target.codegen.llvm_version_major(allow_none=True) is None
    with pytest.raises(RuntimeError, match="no LLVM"):
        tvm.target.codegen.llvm_version_major()
    with pytest.raises(RuntimeError, match="no LLVM"):
        tvm.target.codegen.llvm_lookup_intrinsic_id("llvm.sqrt")
    from tebound.tvm.relay.backend import Executor, Runtime

    runtime = Runtime("crt", {"system-lib": True})
    assert runtime["system-lib"] is True and runtime.name == "crt" and Executor().name == "graph"
    with pytest.raises(TypeError, match="options are a dict"):
        Runtime("cpp", ["system-lib"])
    s, args = _add()
    a, b, c = np.ones(64, "float32"), np.full(64, 2, "float32"), np.zeros(64, "float32")
    tvm.target.codegen.build_module(tvm.lower(s, args, name="f"), "c")["f"](a, b, c)
    np.testing.assert_array_equal(c, 3)
    built = tvm.build(s, args, "llvm", runtime=runtime)
    built(a, b, c)
    np.testing.assert_array_equal(c, 3)
    with pytest.raises(ImportError, match="relay is not part of tebound"):
        tvm.relay.build  # noqa: B018


@pytest.mark.parametrize("target", ["c", "python"])
def test_a_list_or_a_module_of_several_functions_builds_each_under_its_name(target):
    s, args = _add()
    A, B, C = args
    D = te.compute(A.shape, lambda i: A[i] * B[i], name="D")
    s2 = te.create_schedule(D.op)
    add, mul = tvm.lower(s, args, name="fadd"), tvm.lower(s2, [A, B, D], name="fmul")
    a, b = np.random.rand(64).astype("float32"), np.random.rand(64).astype("float32")
    for m in (tvm.build([add, mul], target), tvm.build(tvm.IRModule({"one": add, "two": mul}), target=target)):
        assert m.entry_names == ["fadd", "fmul"] and "fmul" in m
        c, d = np.full(64, np.nan, "float32"), np.full(64, np.nan, "float32")
        m["fadd"](a, b, c)
        m.get_function("fmul")(a, b, d)
        np.testing.assert_allclose(c, a + b, rtol=1e-6)
        np.testing.assert_allclose(d, a * b, rtol=1e-6)
        assert m.time_evaluator("fmul", tvm.cpu(0), number=2)(a, b, d).mean > 0
        with pytest.raises(AttributeError, match=r"its functions are \['fadd', 'fmul'\]"):
            m["fsub"]
        with pytest.raises(TypeError, match="none is 'main'"):
            m(a, b, c)
        with pytest.raises(ValueError, match="export each with"):
            m.export_library("/nonexistent/lib.so")
    with pytest.raises(ValueError, match="two functions are called 'fadd'"):
        tvm.build([add, tvm.lower(s, args, name="fadd")], target)
    with pytest.raises(TypeError, match="not Schedule"):
        tvm.build([add, s], target)


def test_a_dict_of_target_to_module_builds_each_for_its_target():
    s, args = _add()
    A, B, C = args
    D = te.compute(A.shape, lambda i: A[i] - B[i], name="D")
    add, sub = tvm.lower(s, args, name="fadd"), tvm.lower(te.create_schedule(D.op), [A, B, D], name="fsub")
    m = tvm.build({"llvm": tvm.IRModule({"fadd": add}), tvm.target.Target("c"): sub})
    assert m.entry_names == ["fadd", "fsub"]
    a, b = np.random.rand(64).astype("float32"), np.random.rand(64).astype("float32")
    c, d = np.full(64, np.nan, "float32"), np.full(64, np.nan, "float32")
    m["fadd"](a, b, c)
    m["fsub"](a, b, d)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)
    np.testing.assert_allclose(d, a - b, rtol=1e-6)
    single = tvm.build({"llvm": tvm.IRModule({"fsub": sub})})
    assert single.entry_names == ["fsub"]
    with pytest.raises(TypeError, match="maps targets"):
        tvm.build({3: add})
    with pytest.raises(ValueError, match="has no function"):
        tvm.build({})
    with pytest.raises(ValueError, match="two functions are called 'fadd'"):
        tvm.build({"llvm": add, "c": [tvm.lower(s, args, name="fadd")]})
