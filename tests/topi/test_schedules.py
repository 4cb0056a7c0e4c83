"""topi's generic, x86 and CUDA schedules: each schedules TVM's operators as TVM's do (checked
on the schedule's own structure) and changes nothing but the loops (every output equal to the
NumPy reference, on both targets; the CUDA ones with the GPU's semantics)."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target
from topi import testing as ref

RNG = np.random.default_rng(3)


def _empty(t):
    return np.full([int(d) for d in t.shape], np.nan if t.dtype.startswith("float") else -7, dtype=t.dtype)


def _data(*shape):
    return RNG.standard_normal(shape).astype("float32")


def _cases():
    """(name, schedule name, outputs, inputs, arrays, expected), fresh tensors each time."""
    a, w, b, wd = _data(2, 4, 9, 20), _data(8, 4, 3, 3), _data(1, 8, 1, 1), _data(4, 2, 3, 3)
    x, y, bias, p, q = _data(6, 32), _data(20, 32), _data(20), _data(3, 6, 32), _data(3, 20, 32)
    A, W, B, WD = (te.placeholder(v.shape, name=n) for v, n in zip((a, w, b, wd), ("A", "W", "B", "WD")))
    X, Y, BIAS, P, Q = (te.placeholder(v.shape, name=n) for v, n in zip((x, y, bias, p, q), "X Y BIAS P Q".split()))
    conv = ref.conv2d_nchw_python(a, w, 1, 1)
    pool = ((3, 3), (2, 2), (1, 1), (1, 1), (1, 1))
    return [
        ("conv2d+bias+relu", "schedule_conv2d_nchw", [topi.nn.relu(topi.add(topi.nn.conv2d_nchw(A, W, 1, 1, 1), B))],
         [A, W, B], [a, w, b], [np.maximum(conv + b, 0)]),
        ("conv2d stride 2", "schedule_conv2d_nchw", [topi.nn.conv2d_nchw(A, W, 2, 1, 1)], [A, W], [a, w],
         [ref.conv2d_nchw_python(a, w, 2, 1)]),
        ("depthwise", "schedule_depthwise_conv2d_nchw", [topi.nn.depthwise_conv2d_nchw(A, WD, 1, 1, 1)], [A, WD],
         [a, wd], [ref.depthwise_conv2d_python_nchw(a, wd, 1, 1)]),
        ("dense+bias", "schedule_dense", [topi.nn.dense(X, Y, BIAS)], [X, Y, BIAS], [x, y, bias], [x @ y.T + bias]),
        ("dense", "schedule_dense", [topi.nn.dense(X, Y)], [X, Y], [x, y], [x @ y.T]),
        ("batch_matmul", "schedule_batch_matmul", [topi.nn.batch_matmul(P, Q)], [P, Q], [p, q],
         [ref.batch_matmul(p, q)]),
        ("softmax", "schedule_softmax", [topi.nn.softmax(X)], [X], [x], [ref.softmax_python(x)]),
        ("log_softmax", "schedule_softmax", [topi.nn.log_softmax(X)], [X], [x], [ref.log_softmax_python(x)]),
        ("softmax axis 1 of 4", "schedule_softmax", [topi.nn.softmax(A, 1)], [A], [a], [ref.softmax_python(a, 1)]),
        ("max pool", "schedule_pool", [topi.nn.pool2d(A, 3, 2, 1, (1, 1, 1, 1), "max")], [A], [a],
         [ref.poolnd_python(a, *pool, "max")]),
        ("avg pool", "schedule_pool", [topi.nn.pool2d(A, 3, 2, 1, (1, 1, 1, 1), "avg")], [A], [a],
         [ref.poolnd_python(a, *pool, "avg")]),
        ("adaptive pool", "schedule_adaptive_pool", [topi.nn.adaptive_pool(A, (4, 3), "avg")], [A], [a],
         [ref.adaptive_pool(a, (4, 3), "avg")]),
        ("sum over two axes", "schedule_reduce", [topi.sum(A, axis=(1, 3))], [A], [a], [a.sum(axis=(1, 3))]),
        ("sum of all", "schedule_reduce", [topi.sum(A)], [A], [a], [a.sum()]),
        ("argmax", "schedule_reduce", [topi.argmax(A, axis=3)], [A], [a], [a.argmax(axis=3)]),
        ("transpose of relu", "schedule_injective", [topi.transpose(topi.nn.relu(A), (3, 1, 0, 2))], [A], [a],
         [np.maximum(a, 0).transpose(3, 1, 0, 2)]),
        ("reshape of exp", "schedule_injective", [topi.reshape(topi.exp(A), (-1,))], [A], [a], [np.exp(a).reshape(-1)]),
    ]


TARGETS = {"generic": "llvm", "x86": "llvm", "cuda": "cuda"}


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("style", ["generic", "x86", "cuda"])
def test_schedules_change_nothing_but_the_loops(style):
    module = getattr(topi, style)
    for name, schedule, outs, ins, arrays, wants in _cases():
        with Target(TARGETS[style]):
            s = getattr(module, schedule)(outs)
        got = [_empty(o) for o in outs]
        build(s, [*ins, *outs])(*arrays, *got)
        for g, want in zip(got, wants):
            np.testing.assert_allclose(g, want, rtol=2e-5, atol=2e-5, err_msg=f"{style} {name}")


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("style", ["x86", "cuda"])
def test_exact_mode_builds_the_same_results(style):
    cases = [c for c in _cases() if c[0] in ("conv2d+bias+relu", "dense+bias", "softmax", "argmax", "avg pool")]
    for name, schedule, outs, ins, arrays, wants in cases:
        with Target(TARGETS[style]):
            s = getattr(getattr(topi, style), schedule)(outs)
        got = [_empty(o) for o in outs]
        build(s, [*ins, *outs], exact=True)(*arrays, *got)
        np.testing.assert_allclose(got[0], wants[0], rtol=2e-5, atol=2e-5, err_msg=f"{style} {name}")


def _leaves(s, t):
    return [(iv.var.name, s[t].iter_var_attrs.get(iv)) for iv in s[t].leaf_iter_vars]


def test_x86_schedules_tile_vectorize_and_parallelize():
    A, W = te.placeholder((1, 4, 8, 32), name="A"), te.placeholder((16, 4, 3, 3), name="W")
    out = topi.nn.relu(topi.nn.conv2d_nchw(A, W, 1, 1, 1))
    s = topi.x86.schedule_conv2d_nchw(out)
    conv = out.op.input_tensors[0]
    kinds = [attr.iter_type.name if attr is not None else "" for _, attr in _leaves(s, out)]
    assert kinds.count("Parallelized") == 1 and kinds.count("Vectorized") == 1
    assert s[conv].attach_type.name == "Scope" and s[conv].attach_stage == s[out]
    padding = s[conv.op.input_tensors[0]]  # computed once, at the root, in parallel
    assert padding.attach_type.name == "GroupRoot" and any(
        a.iter_type.name == "Parallelized" for a in padding.iter_var_attrs.values())
    X = te.placeholder((5, 37), name="X")
    inj = topi.x86.schedule_injective(topi.exp(X))
    names = [n for n, _ in _leaves(inj, inj.outputs[0].output(0))]
    assert len(names) == 3 and names[-1].endswith("inner")


def test_cuda_schedules_bind_blocks_and_threads():
    X, Y = te.placeholder((4, 64), name="X"), te.placeholder((8, 64), name="Y")
    s = topi.cuda.schedule_dense(topi.nn.dense(X, Y))
    threads = {iv.thread_tag for st in s.stages for iv in st.leaf_iter_vars if getattr(iv, "thread_tag", "")}
    threads |= {attr.bind_thread.thread_tag for st in s.stages for attr in st.iter_var_attrs.values()
                if getattr(attr, "bind_thread", None) is not None}
    assert {"blockIdx.x", "blockIdx.y", "threadIdx.x"} <= threads
    S = topi.nn.softmax(X)
    s = topi.cuda.schedule_softmax(S)
    assert len([st for st in s.stages if st.op.name.endswith(".rf")]) == 2  # max and sum factored over threads


def test_generic_dispatch_follows_the_target():
    X = te.placeholder((4, 64), name="X")
    out = topi.exp(X)
    with Target("llvm"):
        cpu = topi.generic.schedule_injective(out)
    with Target("cuda"):
        gpu = topi.generic.schedule_injective(out)
    assert len(cpu[out].leaf_iter_vars) == 1 and not cpu[out].iter_var_attrs  # fused, nothing bound
    assert any(getattr(a, "bind_thread", None) is not None for a in gpu[out].iter_var_attrs.values())
    assert ref.get_injective_schedule("llvm") is topi.x86.schedule_injective
    assert ref.get_injective_schedule("cuda") is topi.cuda.schedule_injective
    assert ref.dispatch("llvm", {"generic": 1}) == 1


def test_schedules_refuse_what_they_cannot_schedule():
    with pytest.raises(TypeError, match="list of tensors"):
        topi.x86.schedule_injective("C")
    X = te.placeholder((4, 64), name="X")
    with pytest.raises(te.ScheduleError, match="not a softmax output"):
        topi.x86.schedule_softmax(topi.exp(X))
    with pytest.raises(te.ScheduleError, match="not a softmax output"):
        topi.cuda.schedule_softmax(topi.exp(X))
