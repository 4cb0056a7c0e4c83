"""topi's generic, x86 and CUDA schedules have the structure TVM's have: tiles in parallel and
vector loops, blocks and threads, reductions across threads, dispatch by target. (That they
change nothing but the loops is test_every_schedule's.)"""

from __future__ import annotations

import pytest

import schedule as te
import topi
from lower import lower
from lower.target import Target
from topi import testing as ref


def _leaves(s, t):
    return [(iv.var.name, s[t].iter_var_attrs.get(iv)) for iv in s[t].leaf_iter_vars]


def test_x86_schedules_tile_vectorize_and_parallelize():
    # 12 output channels: no vector of channels, so the columns are the vector loop.
    A, W = te.placeholder((1, 4, 8, 32), name="A"), te.placeholder((12, 4, 3, 3), name="W")
    out = topi.nn.relu(topi.nn.conv2d_nchw(A, W, 1, 1, 1))
    s = topi.x86.schedule_conv2d_nchw(out)
    conv = out.op.input_tensors[0]
    kinds = [attr.iter_type.name if attr is not None else "" for _, attr in _leaves(s, out)]
    assert kinds.count("Parallelized") == 1 and kinds.count("Vectorized") == 1
    assert s[conv].attach_type.name == "Scope" and s[conv].attach_stage == s[out]
    padding = s[conv.op.input_tensors[0]]  # computed once, at the root, in parallel
    assert padding.attach_type.name == "GroupRoot" and any(
        a.iter_type.name == "Parallelized" for a in padding.iter_var_attrs.values())


def test_x86_conv2d_vectorizes_output_channels_when_they_come_in_vectors():
    A, W = te.placeholder((1, 4, 8, 28), name="A"), te.placeholder((32, 4, 3, 3), name="W")
    out = topi.nn.relu(topi.nn.conv2d_nchw(A, W, 1, 1, 1))
    s = topi.x86.schedule_conv2d_nchw(out)
    conv = out.op.input_tensors[0]
    block = s[out].leaf_iter_vars[0]
    assert s[out].iter_var_attrs[block].iter_type.name == "Parallelized"
    assert s[conv].attach_ivar is s[out].leaf_iter_vars[2]  # the accumulator: at a stretch of columns
    acc_leaves = _leaves(s, conv)
    assert acc_leaves[-1][1].iter_type.name == "Vectorized" and acc_leaves[-1][0].startswith("ff")
    assert acc_leaves[-2][1].iter_type.name == "Unrolled"
    text = str(lower(s, [A, W, out]))
    assert "allocate conv2d_nchw[float32 * 224]" in text  # 14 columns by 16 channels
    assert "allocate W.global[float32 * 576]" in text  # one block's 16 x 4 x 3 x 3 filters
    packed = next(st for st in s.stages if st.op.name == "W.global")  # the block's filters, channel-innermost
    assert packed.attach_ivar is block and packed.layout_transform is not None


def test_x86_injective_splits_the_fused_axis():
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


def test_the_cuda_conv2d_of_tvms_topi_tutorial_fuses_its_relu_and_computes_numpys_numbers():
    """``topi.cuda.conv2d_nchw`` (TVM's compute for CUDA, ours topi.nn's) with the relu fused by
    ``topi.cuda.schedule_conv2d_nchw``, as TVM's TOPI tutorial writes them (smaller)."""
    import warnings

    import numpy as np

    from lower import build

    data, kernel = te.placeholder((1, 3, 12, 12), name="data"), te.placeholder((4, 3, 5, 5), name="kernel")
    with Target("cuda"):
        out = topi.nn.relu(topi.cuda.conv2d_nchw(data, kernel, 1, 2, 1))
        s = topi.cuda.schedule_conv2d_nchw([out])
    conv = out.op.input_tensors[0]
    assert conv.op.tag == "conv2d_nchw" and s[conv].attach_stage == s[out]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        f = build(s, [data, kernel, out], "cuda")
    rng = np.random.default_rng(6)
    d, k = rng.uniform(-1, 1, (1, 3, 12, 12)).astype("float32"), rng.uniform(-1, 1, (4, 3, 5, 5)).astype("float32")
    got = np.full((1, 4, 12, 12), np.nan, "float32")
    f(d, k, got)
    np.testing.assert_allclose(got, np.maximum(ref.conv2d_nchw_python(d, k, 1, 2), 0), rtol=1e-5, atol=1e-5)
