"""Names TVM's own test files reach for: PassContext with TVM's signature and keys, the
containers, ``runtime.convert``/``enabled``, ``ir.Range`` and ``assert_structural_equal``,
``TVMError`` and loop kinds that compare as TVM's do. Each builds and runs against NumPy
where it changes code."""

from __future__ import annotations

import numpy as np
import pytest

import tebound.tvm as tvm
from lower.backend.cuda.driver import present_arch
from tebound.tvm import te


def _vector_add():
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] * 2 + 1, name="B")
    s = te.create_schedule(B.op)
    _, xi = s[B].split(B.op.axis[0], 4)
    s[B].vectorize(xi)
    return s, A, B


@pytest.mark.parametrize("disable", [False, True])
def test_disable_vectorize_lowers_vector_loops_as_serial_with_the_same_numbers(disable):
    s, A, B = _vector_add()
    with tvm.transform.PassContext(opt_level=3, config={"tir.disable_vectorize": disable, "tir.noalias": True}):
        text = str(tvm.lower(s, [A, B]))
        f = tvm.build(s, [A, B], "llvm")
    assert ("in T.vectorized(4):" in text) is not disable
    a = np.arange(16, dtype="float32")
    b = tvm.nd.array(np.full(16, np.nan, dtype="float32"))
    f(tvm.nd.array(a), b)
    np.testing.assert_array_equal(b.numpy(), a * 2 + 1)


def test_debug_keep_trivial_loop_as_a_pass_context_key():
    A = te.placeholder((1, 4), name="A")
    B = te.compute((1, 4), lambda i, j: A[i, j] + 1, name="B")
    s = te.create_schedule(B.op)
    assert "range(1)" not in str(tvm.lower(s, [A, B]))
    with tvm.transform.PassContext(config={"tir.debug_keep_trivial_loop": True}):
        assert "for i, j in T.grid(1, 4):" in str(tvm.lower(s, [A, B]))


def test_pass_context_refuses_what_tvm_refuses():
    with pytest.raises(ValueError, match="no pass reads 'tir.bogus'"):
        tvm.transform.PassContext(config={"tir.bogus": True})
    with pytest.raises(ValueError, match="opt_level"):
        tvm.transform.PassContext(opt_level=9)
    with pytest.raises(ValueError, match="takes a int"):
        tvm.transform.PassContext(config={"relay.FuseOps.max_depth": "deep"})
    with pytest.raises(ValueError, match="disabled_pass is a list"):
        tvm.transform.PassContext(disabled_pass="AlterOpLayout")
    ctx = tvm.transform.PassContext(opt_level=3, disabled_pass=["AlterOpLayout"])
    assert ctx.opt_level == 3 and ctx.disabled_pass == ["AlterOpLayout"]


def test_containers_convert_and_enabled():
    s, A, B = _vector_add()
    bounds = te.schedule.InferBound(s)
    assert isinstance(bounds, tvm.container.Map) and isinstance(bounds, tvm.runtime.container.Map)
    assert not isinstance([], tvm.container.Map) and isinstance(B.shape, tvm.runtime.container.Array)
    converted = tvm.runtime.convert([1, 2.5, "x", A])
    assert [type(x).__name__ for x in converted] == ["IntImm", "FloatImm", "str", "Tensor"]
    assert tvm.runtime.enabled("llvm") and tvm.runtime.enabled("cuda") and not tvm.runtime.enabled("hexagon")
    assert tvm.cuda().exist == (present_arch() is not None) and tvm.cpu().exist


def test_range_structural_equality_and_errors():
    r = tvm.ir.Range(2, 7)
    assert (r.min.value, r.extent.value) == (2, 5)
    x = te.var("x")
    tvm.ir.assert_structural_equal(x + 1, x + 1)
    with pytest.raises(ValueError, match="StructuralEqual"):
        tvm.ir.assert_structural_equal(x + 1, x + 2)
    y = te.var("y")
    assert tvm.ir.structural_equal(te.const(16), 16) and not tvm.ir.structural_equal(te.const(16), 17)
    assert not tvm.ir.structural_equal(x * 2 + y, y * 2 + x)
    assert tvm.ir.structural_equal(x * 2 + y, y * 2 + x, map_free_vars=True)
    assert not tvm.ir.structural_equal(x * 2 + x, y * 2 + x, map_free_vars=True)
    with pytest.raises(RuntimeError):
        raise tvm.TVMError("a TVMError is a RuntimeError")
    assert tvm._ffi.base.TVMError is tvm.TVMError


def test_loop_kinds_compare_with_tvm_names():
    kind = tvm.tir.ForKind
    assert kind.PARALLEL == "parallel" and "vectorize" == kind.VECTORIZED and kind.UNROLLED == "unroll"
    assert kind.SERIAL != "parallel" and kind.SERIAL == kind.SERIAL and len({kind.SERIAL, kind.PARALLEL}) == 2


def test_relay_imports_and_refuses_every_use():
    from tebound.tvm import relay

    with pytest.raises(ImportError, match="relay is not part of tebound"):
        relay.var("x")
    with pytest.raises(ImportError, match="tvm.relay.testing"):
        exec("from tebound.tvm.relay import testing", {})
