"""TVM's targets: parsing, keys and attributes, the ``with Target(...)`` default of ``build``,
GPU kinds run on the CPU with one warning, and the built module's TVM interface."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import lower.target as target_module
import schedule as te
from lower import build
from lower.target import GpuSemanticsWarning, Target


def test_text_gives_the_kind_the_keys_and_the_options():
    t = Target("llvm -mcpu=skylake-avx512 -num-cores 4 -mattr=+avx2,+fma -fast-math")
    assert t.kind.name == "llvm" and t.keys == ["cpu"] and t.mcpu == "skylake-avx512"
    assert t.attrs["num-cores"] == 4 and t.attrs["mattr"] == ["+avx2", "+fma"] and t.fast_math
    assert str(t) == "llvm -keys=cpu -fast-math -mattr=+avx2,+fma -mcpu=skylake-avx512 -num-cores=4"
    assert Target(str(t)) == t  # the text reads back
    assert Target("c -keys=cpu").keys == ["cpu"] and Target("CUDA").kind.name == "cuda"
    assert Target("cuda").keys == ["cuda", "gpu"] and Target("cuda", host="llvm").host == Target("llvm")
    assert Target({"kind": "llvm", "mcpu": "core-avx2"}).mcpu == "core-avx2"
    # a -device's name leads the keys, as TVM's: schedules dispatch on it
    assert Target("llvm -device=arm_cpu").keys == ["arm_cpu", "cpu"]
    assert Target("opencl -device=mali").keys == ["mali", "opencl", "gpu"]
    assert Target("llvm -device=arm_cpu -keys=cpu").keys == ["cpu"]


def test_tvms_target_helpers():
    import tebound.tvm as tvm

    assert str(tvm.target.cuda(arch="sm_80")) == "cuda -keys=cuda,gpu -arch=sm_80 -model=unknown"
    assert tvm.target.mali("rk3399").attrs["model"] == "rk3399" and tvm.target.mali().keys[0] == "mali"
    assert tvm.target.arm_cpu(options="-mattr=+neon").keys == ["arm_cpu", "cpu"]
    assert tvm.target.intel_graphics().attrs["thread_warp_size"] == 16
    with pytest.warns(DeprecationWarning, match="Target"):
        assert tvm.target.create("llvm") == Target("llvm")


@pytest.mark.parametrize("text, message", [
    ("tpu", "unknown target kind 'tpu'; known: llvm, c, cuda"),
    ("llvm mcpu", "cannot read 'mcpu' in 'llvm mcpu'"),
    ("llvm -num-cores=0", "-num-cores is a positive integer, not '0'"),
])
def test_bad_text_is_named(text, message):
    with pytest.raises(ValueError, match=message):
        Target(text)


def _double(n=8):
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: A[i] * 2, name="B")
    return te.create_schedule(B.op), A, B


def test_the_enclosing_target_is_builds_default():
    s, A, B = _double()
    assert Target.current() is None
    with Target("llvm -fast-math") as t:
        assert Target.current() is t
        f = build(s, [A, B])
    assert Target.current() is None
    assert f.target == "c" and f.tvm_target == t
    a = np.arange(8, dtype="float32")
    b = np.full(8, np.nan, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, a * 2)
    with pytest.raises(ValueError, match="no target is in scope"):
        Target.current(allow_none=False)


def test_a_gpu_kind_runs_on_the_cpu_and_warns_once(recwarn):
    s, A, B = _double(64)
    bx, tx = s[B].split(B.op.axis[0], factor=16)
    s[B].bind(bx, te.thread_axis("blockIdx.x"))
    s[B].bind(tx, te.thread_axis("threadIdx.x"))
    target_module._WARNED.discard("rocm")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        f = build(s, [A, B], Target("rocm", host="llvm"), name="twice")
        build(s, [A, B], "rocm")
    assert [type(w.message) for w in caught] == [GpuSemanticsWarning]
    a = np.arange(64, dtype="float32")
    b = np.full(64, np.nan, "float32")
    f.get_function("twice")(a, b)
    np.testing.assert_array_equal(b, a * 2)
    assert f["twice"] is f and f.entry_name == "twice"
    (device,) = f.imported_modules
    assert "no rocm source" in device.get_source() and "blockIdx_x" in f.get_source()
    with pytest.raises(AttributeError, match="Module has no function 'other'; its function is 'twice'"):
        f.get_function("other")
    assert build(s, [A, B], "llvm").imported_modules == []


def test_a_target_named_by_the_environment_is_read_as_one(monkeypatch):
    s, A, B = _double()
    monkeypatch.setenv("TEBOUND_TARGET", "llvm -fast-math")
    f = build(s, [A, B])
    assert f.target == "c" and f.tvm_target == Target("llvm -fast-math") and f.fast_math
    a = np.arange(8, dtype="float32")
    b = np.full(8, np.nan, "float32")
    f(a, b)
    np.testing.assert_array_equal(b, a * 2)
