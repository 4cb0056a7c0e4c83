"""Configuration spaces of autotvm templates: sizes, entities, their order and printing as TVM
defines them (counts derived by hand from the policies), and errors."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from tune import autotvm
from tune.autotvm.space import AnnotateSpace, ReorderSpace, SplitSpace, VirtualAxis

from . import templates


@autotvm.template("test_space/matmul_v1")
def matmul_v1(N, L, M, dtype):
    """The tutorial's first template: knobs listing candidate tile sizes."""
    A, B, C = templates.matmul(N, L, M, dtype)
    s = te.create_schedule(C.op)
    y, x = s[C].op.axis
    k = s[C].op.reduce_axis[0]
    cfg = autotvm.get_config()
    cfg.define_knob("tile_y", [1, 2, 4, 8, 16])
    cfg.define_knob("tile_x", [1, 2, 4, 8, 16])
    yo, yi = s[C].split(y, cfg["tile_y"].val)
    xo, xi = s[C].split(x, cfg["tile_x"].val)
    s[C].reorder(yo, xo, k, yi, xi)
    return s, [A, B, C]


def test_the_tutorials_space_prints_as_tvms():
    task = autotvm.task.create("tests/tutorial_matmul", args=(512, 512, 512, "float32"), target="llvm")
    assert str(task.config_space) == (
        "ConfigSpace (len=100, range_length=100, space_map=\n"
        "   0 tile_y: Split(policy=factors, product=512, num_outputs=2) len=10\n"
        "   1 tile_x: Split(policy=factors, product=512, num_outputs=2) len=10\n"
        ")")
    assert len(autotvm.task.create("test_space/matmul_v1", args=(512, 512, 512, "float32")).config_space) == 25


def test_entities_are_numbered_with_the_first_knob_fastest_and_print_as_tvms():
    space = autotvm.task.create("tests/tutorial_matmul", args=(512, 512, 512, "float32")).config_space
    # the divisors of 512 in order: 1, 2, 4, ..., 512; index 77 = 7 + 10 * 7
    assert str(space.get(77)) == "[('tile_y', [-1, 128]), ('tile_x', [-1, 128])],None,77"
    assert str(space.get(3)) == "[('tile_y', [-1, 8]), ('tile_x', [-1, 1])],None,3"
    assert [space.get(i)["tile_x"].size[1] for i in range(0, 100, 10)] == [2 ** e for e in range(10)]
    back = autotvm.ConfigEntity.from_json_dict(space.get(42).to_json_dict())
    assert str(back) == str(space.get(42)) and back.index == 42


def test_the_template_makes_the_schedule_of_each_configuration():
    task = autotvm.task.create("tests/tutorial_matmul", args=(16, 8, 32, "float32"))
    for index in (0, 7, 23, len(task.config_space) - 1):
        config = task.config_space.get(index)
        s, args = task.instantiate(config)
        yi, xi = config["tile_y"].size[1], config["tile_x"].size[1]
        text = str(lower(s, args))
        for loop in (f"for (i.outer, 0, {16 // yi})", f"for (j.outer, 0, {32 // xi})", "for (k, 0, 8)",
                     f"for (i.inner, 0, {yi})", f"for (j.inner, 0, {xi})"):
            if loop.endswith(", 1)"):
                continue  # a loop of one iteration is not printed
            assert loop in text, (loop, text)
        rng = np.random.default_rng(index)
        a, b = rng.random((16, 8)).astype("float32"), rng.random((8, 32)).astype("float32")
        for exact in (True, False):
            c = np.full((16, 32), np.nan, "float32")
            build(s, args, exact=exact)(a, b, c)
            np.testing.assert_allclose(c, a @ b, rtol=1e-5)


@pytest.mark.parametrize("product, outputs, policy, expected", [
    (512, 2, "factors", 10),            # the divisors
    (512, 3, "factors", 55),            # 2^i, 2^j with i + j <= 9
    (100, 2, "factors", 9),             # 1 2 4 5 10 20 25 50 100
    (100, 2, "power2", 7),              # 1 .. 64, tails allowed
    (100, 2, "verbose", 13),            # the union of both
    (100, 3, "factors", 36),            # ordered pairs (a, b) with a * b dividing 100
    (7, 2, "power2", 3),                # 1 2 4
])
def test_split_space_sizes(product, outputs, policy, expected):
    space = SplitSpace([VirtualAxis(product)], policy, num_outputs=outputs)
    assert len(space) == expected
    assert str(space) == f"Split(policy={policy}, product={product}, num_outputs={outputs}) len={expected}"
    assert all(e.size[0] == -1 and len(e.size) == outputs for e in space.entities)


def test_split_options_max_factor_filter_candidate():
    assert [e.size for e in SplitSpace([VirtualAxis(64)], "factors", num_outputs=2, max_factor=8)] == \
        [[-1, 1], [-1, 2], [-1, 4], [-1, 8]]
    kept = SplitSpace([VirtualAxis(64)], "factors", num_outputs=3, filter=lambda e: e.size[-1] <= 2)
    assert {e.size[-1] for e in kept} == {1, 2} and len(kept) == 13
    assert [e.size for e in SplitSpace([VirtualAxis(64)], "candidate", num_outputs=2, candidate=[[8, 8], [4, 16]])] \
        == [[8, 8], [4, 16]]


def test_reorder_and_annotate_spaces():
    axes = [VirtualAxis(4, f"a{i}") for i in range(4)]
    assert len(ReorderSpace(axes[:3], "all")) == 6
    assert [e.perm for e in ReorderSpace(axes, "interval_all", interval=(1, 3))] == [[0, 1, 2, 3], [0, 2, 1, 3]]
    assert [e.perm for e in ReorderSpace(axes, "identity")] == [[0, 1, 2, 3]]
    assert len(AnnotateSpace(axes[:2], "try_unroll_vec")) == 8  # 3 x 3 less both vectorized
    assert [e.anns for e in AnnotateSpace(axes[:2], "try_unroll")] == \
        [["none", "none"], ["none", "unroll"], ["unroll", "none"], ["unroll", "unroll"]]
    assert [e.anns for e in AnnotateSpace(axes[:3], "bind_gpu")] == [["fuse", "blockIdx.x", "threadIdx.x"]]
    assert len(AnnotateSpace(axes, "locate_cache", num_anchor=2)) == 6


def test_fallback_split_as_tvm_documents_it():
    cfg = autotvm.FallbackConfigEntity()
    cfg.define_split("tile_0", cfg.axis(128), num_outputs=3)
    cfg.fallback_split("tile_0", [-1, 8, 4])
    assert cfg["tile_0"].size == [4, 8, 4]
    cfg.define_split("tile_1", cfg.axis(49), num_outputs=3)
    cfg.fallback_split("tile_1", [-1, 8, 4])
    assert cfg["tile_1"].size == [7, 7, 1]


def test_a_template_called_without_a_log_uses_the_fallback_and_warns():
    autotvm.DispatchContext.current().clear_cache(None, ("tests/tutorial_matmul", 8, 8, 8, "float32"))
    with pytest.warns(UserWarning, match="fallback configuration"):
        s, args = templates.tutorial_matmul(8, 8, 8, "float32")
    assert autotvm.DispatchContext.current().query(None, ("tests/tutorial_matmul", 8, 8, 8, "float32")).is_fallback


@pytest.mark.parametrize("bad, error, match", [
    (lambda: autotvm.task.create("test_space/nope", args=(1,)), ValueError, "no template is registered"),
    (lambda: autotvm.task.create("tests/tutorial_matmul", args=(8, 8, 8, "float32"), target="tpu"), ValueError,
     "target 'tpu' is not one this project builds"),
    (lambda: autotvm.task.create("tests/tutorial_matmul", args=(8, 8, 8, object())), TypeError, "template arguments"),
    (lambda: SplitSpace([VirtualAxis(8)], "halves", num_outputs=2), ValueError, "unknown policy 'halves'"),
    (lambda: SplitSpace([VirtualAxis(8)], "factors"), ValueError, "num_outputs"),
    (lambda: ReorderSpace([VirtualAxis(2)], "sideways"), ValueError, "unknown policy"),
    (lambda: AnnotateSpace([VirtualAxis(2)], "try_fold"), ValueError, "unknown policy"),
    (lambda: autotvm.ConfigSpace().define_knob("k", []), ValueError, "non-empty list"),
    (lambda: autotvm.ConfigSpace().get(5), ValueError, r"\[0, 1\)"),
    (lambda: autotvm.template(lambda: None), TypeError, "give the task a name"),
])
def test_bad_definitions_are_refused_with_a_message(bad, error, match):
    with pytest.raises(error, match=match):
        bad()


def test_a_knob_defined_twice_is_replaced_in_its_place_and_a_missing_one_is_named():
    cfg = autotvm.ConfigSpace()
    cfg.define_knob("unroll", [0, 1])
    cfg.define_knob("vec", [1, 2, 4])
    cfg.define_knob("unroll", [0, 1, 2, 3])  # TVM replaces a knob defined again
    assert list(cfg.space_map) == ["unroll", "vec"] and cfg.dims == [4, 3]
    assert str(cfg.get(5)) == "[('unroll', 1), ('vec', 2)],None,5"
    cfg = autotvm.ConfigSpace()
    cfg.define_knob("unroll", [0, 1])
    with pytest.raises(ValueError, match="no knob named 'tile'"):
        cfg["tile"]  # noqa: B018
    entity = cfg.get(1)
    assert entity["unroll"].val == 1
    with pytest.raises(autotvm.InstantiationError, match="no knob 'other'"):
        entity.define_knob("other", [1])


def test_get_config_outside_a_template_is_a_fresh_fallback():
    """As TVM's contexts answer for no workload: a fallback configuration, on which a fallback
    schedule sets its knobs; each call a new one."""
    cfg = autotvm.get_config()
    assert cfg.is_fallback and cfg is not autotvm.get_config()
    cfg["tile"] = [4, 8]
    cfg["unroll"] = False
    assert cfg["tile"].size == [4, 8] and cfg["unroll"].val is False
