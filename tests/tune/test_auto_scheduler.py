"""The auto-scheduler's generated spaces: the knobs each kind of stage gets, and every sampled
configuration building a schedule that computes what NumPy computes (both targets, both
modes); apply_best takes the best trial of a log."""

from __future__ import annotations

import re

import numpy as np
import pytest

import schedule as te
import topi
from lower import build, lower
from topi import testing as topi_ref
from tune import auto_scheduler, autotvm
from tune.autotvm.measure import MeasureInput, MeasureResult

from . import templates


def _matmul(n=16):
    A, B, C = templates.matmul(n)
    rng = np.random.default_rng(0)
    a, b = rng.random((n, n)).astype("float32"), rng.random((n, n)).astype("float32")
    return [A, B, C], [a, b], a @ b


def _softmax(rows=8, cols=64):
    x = te.placeholder((rows, cols), name="x")
    k1, k2 = te.reduce_axis((0, cols), name="k1"), te.reduce_axis((0, cols), name="k2")
    mx = te.compute((rows,), lambda i: te.max(x[i, k1], axis=k1), name="mx")
    ex = te.compute((rows, cols), lambda i, j: te.exp(x[i, j] - mx[i]), name="ex")
    sm = te.compute((rows,), lambda i: te.sum(ex[i, k2], axis=k2), name="sm")
    out = te.compute((rows, cols), lambda i, j: ex[i, j] / sm[i], name="out")
    a = np.random.default_rng(1).standard_normal((rows, cols)).astype("float32")
    e = np.exp(a - a.max(axis=1, keepdims=True))
    return [x, out], [a], e / e.sum(axis=1, keepdims=True)


def _blur(n=16):
    A = te.placeholder((n + 2, n + 2), name="A")
    bx = te.compute((n + 2, n), lambda y, x: (A[y, x] + A[y, x + 1] + A[y, x + 2]) / 3, name="bx")
    by = te.compute((n, n), lambda y, x: (bx[y, x] + bx[y + 1, x] + bx[y + 2, x]) / 3, name="by")
    a = np.random.default_rng(2).random((n + 2, n + 2)).astype("float32")
    x = (a[:, :-2] + a[:, 1:-1] + a[:, 2:]) / 3
    return [A, by], [a], (x[:-2] + x[1:-1] + x[2:]) / 3


def _matmul_add(n=32):
    """TVM's auto-scheduler tutorial: a matmul, then an element-wise add."""
    A, B, D = (te.placeholder((n, n), name=x) for x in "ABD")
    k = te.reduce_axis((0, n), name="k")
    mm = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")
    out = te.compute((n, n), lambda i, j: mm[i, j] + D[i, j], name="out")
    a, b, d = (np.random.default_rng(s).random((n, n)).astype("float32") for s in (4, 5, 6))
    return [A, B, D, out], [a, b, d], a @ b + d


def _conv_bias_relu():
    """TVM's tune_conv2d_layer, small: topi's conv2d, a bias, a relu."""
    A, W, bias = te.placeholder((1, 4, 10, 10), name="A"), te.placeholder((16, 4, 3, 3), name="W"), \
        te.placeholder((16, 1, 1), name="bias")
    out = topi.nn.relu(topi.add(topi.nn.conv2d_nchw(A, W, 1, 1, 1), bias))
    rng = np.random.default_rng(7)
    a, w, b = rng.standard_normal((1, 4, 10, 10)), rng.standard_normal((16, 4, 3, 3)), rng.standard_normal((16, 1, 1))
    a, w, b = a.astype("float32"), w.astype("float32"), b.astype("float32")
    return [A, W, bias, out], [a, w, b], np.maximum(topi_ref.conv2d_nchw_python(a, w, 1, 1) + b, 0)


WORKLOADS = {"matmul": _matmul, "softmax": _softmax, "blur": _blur, "matmul_add": _matmul_add,
             "conv_bias_relu": _conv_bias_relu}
KNOBS = {
    # B read along the columns with a stride of a row per k: its panels (pack_B)
    "matmul": ["tile_0", "tile_1", "tile_k", "cache", "vectorize", "parallel_depth", "auto_unroll", "vector_axis",
               "pack_B"],
    "softmax": ["tile_0", "tile_1", "cache", "vectorize", "parallel_depth", "auto_unroll", "at_sm", "rfactor_sm",
                "place_ex", "at_mx", "rfactor_mx"],
    "blur": ["tile_0", "tile_1", "cache", "vectorize", "parallel_depth", "auto_unroll", "place_bx"],
    # the reduction an element-wise output reads is tiled with it (tile_k, cache: fused at the tile)
    "matmul_add": ["tile_0", "tile_1", "tile_k", "cache", "vectorize", "parallel_depth", "auto_unroll", "vector_axis",
                   "pack_B"],
    "conv_bias_relu": ["tile_0", "tile_1", "tile_2", "tile_3", "tile_k", "cache", "vectorize", "parallel_depth",
                       "auto_unroll", "vector_axis", "place_pad_temp"],
}


@pytest.mark.parametrize("name", WORKLOADS)
def test_sampled_configurations_compute_what_numpy_computes(name):
    args, inputs, expected = WORKLOADS[name]()
    task = auto_scheduler.create(f"test_{name}", args)
    space = task.config_space
    assert list(space.space_map) == KNOBS[name]
    rng = np.random.default_rng(3)
    built = 0
    for index in rng.choice(len(space), size=min(60, len(space)), replace=False):
        if built == 8:
            break
        try:
            s, a = task.instantiate(space.get(int(index)))
        except autotvm.InstantiationError as e:
            assert any(why in str(e) for why in ("register tile", "accumulator tile", "vector loop", "parallel loop",
                                                 "panels of", "strided")), e
            continue
        for exact in (True, False):
            out = np.full(expected.shape, np.nan, "float32")
            build(s, a, exact=exact)(*inputs, out)
            np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6, err_msg=str(space.get(int(index))))
        built += 1
    assert built == 8


@pytest.mark.parametrize("name", ["matmul_add", "conv_bias_relu"])
def test_a_reduction_under_an_elementwise_output_is_the_register_tile_of_its_tile(name):
    args, inputs, expected = WORKLOADS[name]()
    task = auto_scheduler.create(f"test_fused_{name}", args)
    space = task.config_space
    out = args[-1]
    found = 0
    for index in range(0, len(space), max(1, len(space) // 4000)):
        config = space.get(index)
        if config["cache"].val != 1 or config["vectorize"].val != 1:
            continue
        try:
            s, a = task.instantiate(config)
        except autotvm.InstantiationError:
            continue
        red = next(st for st in s.stages if getattr(st.op, "reduce_axis", ()))
        assert red.attach_stage is s[out]  # computed at the output's tile, the epilogue after it
        kinds = [red.iter_var_attrs[iv].iter_type.name if iv in red.iter_var_attrs else "" for iv in
                 red.leaf_iter_vars]
        assert kinds[-1] == "Vectorized"  # its last spatial axis, under its reduction loops
        first = red.leaf_iter_vars[0].var.name
        assert any(first.startswith(iv.var.name) for iv in red.op.reduce_axis), first
        got = np.full(expected.shape, np.nan, "float32")
        build(s, a)(*inputs, got)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)
        found += 1
        if found == 3:
            break
    assert found == 3


def test_a_reduction_is_tiled_in_four_levels_and_its_columns_read_from_panels():
    """Ansor's SSRSRS for matmul + add: the parallel tiles; inside, the accumulator tile's
    outer reduction loop, its middle loops, the inner reduction loop and the register tile; B
    copied once in panels of the register tile's columns. NumPy's result in both modes."""
    args, inputs, expected = WORKLOADS["matmul_add"]()
    task = auto_scheduler.create("test_ssrsrs", args)
    space = task.config_space
    index = _index(space, tile_0=[-1, 2, 4], tile_1=[-1, 2, 8], tile_k=[-1, 4], cache=1, vectorize=1,
                   parallel_depth=1, pack_B=1)
    s, a = task.instantiate(space.get(index))
    mm = next(st for st in s.stages if st.op.name == "matmul")
    assert mm.attach_stage is s[args[-1]]
    names = [iv.var.name for iv in mm.leaf_iter_vars]
    assert names == ["k.outer", "i.outer", "j.outer", "k.inner", "i.inner", "j.inner"], names
    kinds = [mm.iter_var_attrs[iv].iter_type.name if iv in mm.iter_var_attrs else "" for iv in mm.leaf_iter_vars]
    assert kinds[-2:] == ["Unrolled", "Vectorized"]
    panel = next(st for st in s.stages if st.op.name == "B.global")
    assert panel.attach_stage is None and [int(d) for d in panel.layout_transform.shape] == [4, 32, 8]
    assert mm.op.input_tensors[1].op is panel.op  # the matmul reads the panels
    for exact in (False, True):
        got = np.full(expected.shape, np.nan, "float32")
        build(s, a, exact=exact)(*inputs, got)
        np.testing.assert_allclose(got, expected, rtol=1e-5)
    # auto_unroll_max_step on the parallel loop: the inner reduction loop (4 steps of a register
    # tile of 4 vector stores) is written out under 16, kept without the pragma
    for step, kept in ((0, True), (16, False)):
        unrolled = _index(space, tile_0=[-1, 2, 4], tile_1=[-1, 2, 8], tile_k=[-1, 4], cache=1, vectorize=1,
                          parallel_depth=1, pack_B=1, auto_unroll=step)
        s, a = task.instantiate(space.get(unrolled))
        assert ("for (k.inner" in str(lower(s, a))) is kept
        got = np.full(expected.shape, np.nan, "float32")
        build(s, a)(*inputs, got)
        np.testing.assert_allclose(got, expected, rtol=1e-5)
    # the two-level tiling is the point whose middle loops are one iteration
    flat = _index(space, tile_0=[-1, 1, 8], tile_1=[-1, 1, 16], tile_k=[-1, 4], cache=1, vectorize=1,
                  parallel_depth=1)
    s, a = task.instantiate(space.get(flat))
    mm = next(st for st in s.stages if st.op.name == "matmul")
    text = str(lower(s, a))
    loops = re.findall(r"for \((\S+), 0, (\d+)\)", text[text.index("for (k.outer"):])
    assert loops[:2] == [("k.outer", "8"), ("k.inner", "4")]  # no middle loop left between them
    got = np.full(expected.shape, np.nan, "float32")
    build(s, a)(*inputs, got)
    np.testing.assert_allclose(got, expected, rtol=1e-5)


def test_an_input_marked_layout_free_is_always_packed():
    """TVM's tutorial marks B of its matmul ``layout_free_placeholders``: every configuration
    packs it; without the mark, packing is a knob."""
    n = 32
    A, B, D = (te.placeholder((n, n), name=x) for x in "ABD")
    k = te.reduce_axis((0, n), name="k")
    mm = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul",
                    attrs={"layout_free_placeholders": [B]})
    out = te.compute((n, n), lambda i, j: mm[i, j] + D[i, j], name="out")
    space = auto_scheduler.create("test_layout_free", [A, B, D, out]).config_space
    assert [space.space_map["pack_B"][i].val for i in range(len(space.space_map["pack_B"]))] == [1]
    unmarked = auto_scheduler.create("test_layout_unmarked", WORKLOADS["matmul_add"]()[0]).config_space  # n 32
    assert len(unmarked.space_map["pack_B"]) == 2 and len(unmarked) == 2 * len(space)


def test_an_input_read_once_is_not_packed():
    """A dense layer of batch 1 reads each weight once: copying the weights in panels costs
    what the reads cost, so no configuration packs them, though topi marks them layout-free;
    every configuration the sketch builds computes NumPy's product."""
    X, W = te.placeholder((1, 64), name="X"), te.placeholder((32, 64), name="W")
    out = topi.nn.dense(X, W)
    task = auto_scheduler.create("test_dense_once", [X, W, out])
    space = task.config_space
    assert W in out.op.attrs["layout_free_placeholders"]
    assert [space.space_map["pack_W"][i].val for i in range(len(space.space_map["pack_W"]))] == [0]
    rng = np.random.default_rng(8)
    x, w = rng.random((1, 64)).astype("float32"), rng.random((32, 64)).astype("float32")
    built = 0
    for index in range(0, len(space), max(1, len(space) // 300)):
        config = space.get(index)
        try:
            s, a = task.instantiate(config)
        except autotvm.InstantiationError:
            continue
        assert not any(st.op.name == "W.global" for st in s.stages)
        got = np.full((1, 32), np.nan, "float32")
        build(s, a)(x, w, got)
        np.testing.assert_allclose(got, x @ w.T, rtol=1e-5)
        built += 1
        if built == 6:
            break
    assert built == 6


def test_a_dense_layer_of_batch_one_vectorizes_along_the_reduction():
    """Its weights are read with a stride along the output and once each (not packed): the
    space offers partial sums along the reduction (reduce_lanes), innermost and vectorized, so
    that the weights are read contiguously; each such configuration computes NumPy's numbers,
    and every other knob keeps its first choice in them."""
    X, W, b = te.placeholder((1, 128), name="X"), te.placeholder((32, 128), name="W"), te.placeholder((32,), name="b")
    out = topi.nn.relu(topi.add(topi.nn.dense(X, W), b))
    task = auto_scheduler.create("test_dense_lanes", [X, W, b, out])
    space = task.config_space
    assert [space.space_map["reduce_lanes"][i].val for i in range(3)] == [0, 8, 16]
    rng = np.random.default_rng(9)
    x, w, bias = (rng.standard_normal(s).astype("float32") for s in ((1, 128), (32, 128), (32,)))
    want = np.maximum(x @ w.T + bias, 0)
    built = {8: 0, 16: 0}
    for index in range(len(space)):
        config = space.get(index)
        lanes = config["reduce_lanes"].val
        if not lanes or built[lanes] == 3:
            continue
        try:
            s, a = task.instantiate(config)
        except autotvm.InstantiationError as e:
            assert "first choice" in str(e) or "parallel loop" in str(e) or "vector loop" in str(e), e
            continue
        text = str(lower(s, a))
        assert re.search(rf"vectorized \([\w.]+, 0, {lanes}\) {{\n\s+T_matmul_NT.rf\[", text), text
        for exact in (True, False):
            got = np.full((1, 32), np.nan, "float32")
            build(s, a, exact=exact)(x, w, bias, got)
            np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)
        built[lanes] += 1
        if all(n == 3 for n in built.values()):
            break
    assert built == {8: 3, 16: 3}


def test_a_register_tile_vectorized_along_the_output_channels_packs_the_filters():
    """vector_axis 1 of conv2d + bias + relu: the filters are copied channel-innermost at the
    parallel loop (TVM's NCHWc), the tile is stored channels-innermost, and the result is
    NumPy's in both modes."""
    args, inputs, expected = WORKLOADS["conv_bias_relu"]()
    task = auto_scheduler.create("test_packed_conv", args)
    space = task.config_space
    knob = space.space_map["vector_axis"]
    assert [knob[i].val for i in range(len(knob))] == [3, 1]  # the columns, or the output channels
    index = _index(space, tile_1=[-1, 1, 8], cache=1, vector_axis=1, parallel_depth=2)
    s, a = task.instantiate(space.get(index))
    packed = next(st for st in s.stages if st.op.name == "W.global")
    out = s[args[-1]]
    assert packed.attach_stage is out and packed.layout_transform is not None
    assert packed.attach_ivar is out.leaf_iter_vars[0]  # the parallel loop
    conv = next(st for st in s.stages if getattr(st.op, "reduce_axis", ()))
    assert conv.layout_transform is not None and conv.leaf_iter_vars[-1].var.name in ("ff", "ff.inner")
    for exact in (False, True):
        got = np.full(expected.shape, np.nan, "float32")
        build(s, a, exact=exact)(*inputs, got)
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-5)


def test_every_placement_of_an_injective_producer_and_rfactor_of_a_reduction_works():
    for name, knob, choices in (("blur", "place_bx", ["inline", "tile", "root"]),
                                ("softmax", "rfactor_mx", [0, 8, 16])):
        args, inputs, expected = WORKLOADS[name]()
        task = auto_scheduler.create(f"test_place_{name}", args)
        space = task.config_space
        seen = set()
        for index in range(len(space)):
            config = space.get(index)
            value = config[knob].val
            if value in seen or config["vectorize"].val == 0:
                continue
            try:
                s, a = task.instantiate(config)
            except autotvm.InstantiationError:
                continue
            seen.add(value)
            out = np.full(expected.shape, np.nan, "float32")
            build(s, a)(*inputs, out)
            np.testing.assert_allclose(out, expected, rtol=1e-5, atol=1e-6)
        assert seen == set(choices)


def _index(space, **values):
    """The index of the configuration with the given knob values (the rest at their first)."""
    index, scale = 0, 1
    for name, knob in space.space_map.items():
        if name in values:
            index += scale * [getattr(knob[i], "val", getattr(knob[i], "size", None))
                              for i in range(len(knob))].index(values[name])
        scale *= len(knob)
    return index


def test_a_pointwise_chain_of_1000_stages_is_inlined_without_knobs():
    n = 64
    stages = [te.placeholder((n,), name="A")]
    for k in range(1000):
        stages.append(_add_one(stages[-1], k))
    task = auto_scheduler.create("test_pointwise_chain", [stages[0], stages[-1]])
    assert list(task.config_space.space_map) == ["tile_0", "cache", "vectorize", "parallel_depth", "auto_unroll"]
    s, args = task.instantiate(task.config_space.get(len(task.config_space) - 1))
    a = np.arange(n, dtype="float32")
    out = np.full(n, np.nan, "float32")
    build(s, args)(a, out)
    np.testing.assert_array_equal(out, a + 1000)


def _add_one(P, k):
    return te.compute(P.shape, lambda i: P[i] + 1, name=f"S{k}")


def _stencil(P, k):
    return te.compute((P.shape[0] - 1,), lambda i: (P[i] + P[i + 1]) * 0.5, name=f"S{k}")


def test_a_stencil_chain_gets_knobs_near_its_output_and_no_exploding_inlining():
    n, depth = 16, 40
    stages = [te.placeholder((n + depth,), name="A")]
    for k in range(depth):
        stages.append(_stencil(stages[-1], k))
    task = auto_scheduler.create("test_stencil_chain", [stages[0], stages[-1]])
    space = task.config_space
    placed = [name for name in space.space_map if name.startswith("place_")]
    assert placed == [f"place_S{k}" for k in range(depth - 2, depth - 2 - auto_scheduler.MAX_PLACED, -1)]
    # ten stencils of two reads inlined in a row: 2^11 reads in one expression
    def placing(inlined, rest="root"):
        return _index(space, **{name: "inline" if k < inlined else rest for k, name in enumerate(placed)})
    with pytest.raises(autotvm.InstantiationError, match="2048 tensor reads"):
        task.instantiate(space.get(placing(10)))
    a = np.random.default_rng(3).random(n + depth).astype("float32")
    expected = a.astype("float64")
    for _ in range(depth):
        expected = (expected[:-1] + expected[1:]) * 0.5
    for index in (placing(9), placing(0, "tile"), placing(3, "root")):
        s, args = task.instantiate(space.get(index))
        out = np.full(n, np.nan, "float32")
        build(s, args)(a, out)
        np.testing.assert_allclose(out, expected, rtol=1e-5)


def _buildable(task, count):
    """The first *count* configurations of *task* its sketch does not reject."""
    found = []
    for index in range(len(task.config_space)):
        try:
            task.instantiate(task.config_space.get(index))
        except autotvm.InstantiationError:
            continue
        found.append(index)
        if len(found) == count:
            return found
    raise AssertionError(f"fewer than {count} buildable configurations")


def test_apply_best_takes_the_cheapest_successful_trial():
    args, inputs, expected = _matmul()
    task = auto_scheduler.create("test_apply_best", args)
    first, second, third = _buildable(task, 3)
    costs = {first: 2e-3, second: 1e-3, third: 5e-4}
    records = [(MeasureInput("c", task, task.config_space.get(i)),
                MeasureResult((c,), 0 if i != third else 7, 0.0, 0.0)) for i, c in costs.items()]
    s, a = auto_scheduler.apply_best(task, records)
    out = np.full(expected.shape, np.nan, "float32")
    build(s, a)(*inputs, out)
    np.testing.assert_allclose(out, expected, rtol=1e-5)
    chosen = task.config_space.get(second)
    assert str(task.instantiate(chosen)[0][a[2]].leaf_iter_vars) == str(s[a[2]].leaf_iter_vars)
    with pytest.raises(ValueError, match="no successful trial"):
        auto_scheduler.apply_best(task, records[2:])


def test_bad_arguments_are_refused():
    args, _, _ = _matmul()
    with pytest.raises(ValueError, match="one output"):
        auto_scheduler.create("bad", args[:2])
    with pytest.raises(TypeError, match="non-empty str"):
        auto_scheduler.create("", args)
    task = auto_scheduler.create("test_bad", args)
    with pytest.raises(TypeError, match="file path, an open file"):
        auto_scheduler.apply_best(task, 42)
    with pytest.raises(TypeError, match=r"each record is a \(MeasureInput, MeasureResult\) pair or a log.s path"):
        auto_scheduler.apply_best(task, [("not", "records")])
    with pytest.raises(TypeError, match="config is an entity of the task's space"):
        task.instantiate(None)
