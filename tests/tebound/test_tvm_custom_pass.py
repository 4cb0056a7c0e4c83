"""Custom passes as TVM users write them: ``tir.transform.prim_func_pass`` and ``Apply`` over
whole functions, and ``PassContext(config={"tir.add_lower_pass": [(phase, pass)]})`` running
them in ``tvm.lower`` and ``tvm.build``; the built function computes NumPy's numbers."""

from __future__ import annotations

import numpy as np
import pytest

import tebound.tvm as tvm
from tebound.tvm import te, tir


def _add(n=64):
    a, b = te.placeholder((n,), name="a"), te.placeholder((n,), name="b")
    c = te.compute((n,), lambda i: a[i] + b[i], name="c")
    return te.create_schedule(c.op), [a, b, c]


def _split_by_8(f, mod, ctx):
    """The tutorial's pass: each loop of a multiple of 8 iterations split, its inner part vectorized."""
    def post(op):
        if isinstance(op, tir.For) and isinstance(op.extent, tir.IntImm) and op.extent.value % 8 == 0:
            lo, li = te.var(op.loop_var.name + ".outer"), te.var(op.loop_var.name + ".inner")
            body = tir.stmt_functor.substitute(op.body, {op.loop_var: lo * 8 + li})
            body = tir.For(li, 0, 8, tir.ForKind.VECTORIZED, body)
            return tir.For(lo, 0, op.extent.value // 8, tir.ForKind.SERIAL, body)
        return None
    return f.with_body(tir.stmt_functor.ir_transform(f.body, None, post, ["tir.For"]))


def test_a_function_pass_added_to_lower_rewrites_what_lower_and_build_give():
    vectorize = tir.transform.prim_func_pass(_split_by_8, opt_level=0)
    assert vectorize.name == "_split_by_8"
    s, args = _add()
    assert "T.vectorized" not in str(tvm.lower(s, args))
    seen = []
    marker = tir.transform.Apply(lambda f: seen.append(f.name) or f)
    with tvm.transform.PassContext(config={"tir.add_lower_pass": [(3, marker), (1, vectorize)]}):
        text = str(tvm.lower(s, args, name="vadd"))
        f = tvm.build(s, args, "llvm")
    assert "for i_outer in range(8):" in text and "for i_inner in T.vectorized(8):" in text
    assert seen == ["vadd", "default_function"]  # by phase: the split first, then the marker
    a, b = np.random.rand(64).astype("float32"), np.random.rand(64).astype("float32")
    c = np.full(64, np.nan, "float32")
    f(a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_function_passes_apply_to_modules_and_functions_and_compose_with_statement_passes():
    s, args = _add()
    mod = tvm.lower(s, args)

    @tir.transform.prim_func_pass(opt_level=0)
    class Renamed:
        def transform_function(self, func, mod, ctx):
            assert isinstance(ctx, tvm.transform.PassContext) and "main" in list(mod)
            return func.with_attr("global_symbol", "renamed")

    out = tvm.transform.Sequential([tir.transform.prim_func_pass(_split_by_8), tir.transform.Simplify(), Renamed])(mod)
    func = out["main"]
    assert func.name == "renamed" and "T.vectorized(8)" in func.script()
    a, b = np.random.rand(64).astype("float32"), np.random.rand(64).astype("float32")
    c = np.full(64, np.nan, "float32")
    tvm.build(out, target="llvm")["renamed"](a, b, c)
    np.testing.assert_allclose(c, a + b, rtol=1e-6)


def test_bad_custom_passes_are_refused_naming_what_is_wrong():
    with pytest.raises(ValueError, match=r"each entry is \(phase 0 to 3"):
        tvm.transform.PassContext(config={"tir.add_lower_pass": [(4, tir.transform.Simplify())]})
    with pytest.raises(ValueError, match="list of \\(phase, pass\\) pairs"):
        tvm.transform.PassContext(config={"tir.add_lower_pass": tir.transform.Simplify()})
    with pytest.raises(TypeError, match="decorates a function"):
        tir.transform.prim_func_pass(3)
    s, args = _add()
    broken = tir.transform.prim_func_pass(lambda f, mod, ctx: None)
    with pytest.raises(TypeError, match="returns a function"):
        broken(tvm.lower(s, args))
    with pytest.raises(TypeError, match="not a bare statement"):
        broken(tvm.lower(s, args)["main"].body)
