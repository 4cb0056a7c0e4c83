"""The auto-scheduler's known-good tile shapes (tile_hints): register tiles that fit the vector
registers of the machine they are ranked for and keep its multiply-add units busy, parallel
tiles whose copies fit its L2, each accepted by the sketch and computing what NumPy computes; a
tuner measures them before its own choices."""

from __future__ import annotations

import math

import numpy as np
import pytest

import schedule as te
from lower import build
from tune import auto_scheduler, autotvm
from tune.auto_scheduler.tile_hints import Machine, hints
from tune.autotvm.measure import MeasureResult, Runner
from tune.autotvm.task import _Using

from . import templates

AVX2 = Machine(lanes=8, registers=16, l1=32 * 1024, l2=1024 * 1024, cores=2)
AVX512 = Machine(lanes=16, registers=32, l1=48 * 1024, l2=2048 * 1024, cores=2)


def _matmul_add(name: str, n: int = 64):
    A, B, D = (te.placeholder((n, n), name=x) for x in "ABD")
    k = te.reduce_axis((0, n), name="k")
    mm = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="matmul")
    out = te.compute((n, n), lambda i, j: mm[i, j] + D[i, j], name="out")
    return auto_scheduler.create(name, [A, B, D, out], "c")


def _register_tile(config) -> tuple[list[int], int]:
    """The register tile of a hint (the innermost split of each axis) and its vector axis."""
    inners = [config[f"tile_{i}"].size[-1] for i in range(2)]
    return inners, config["vector_axis"].val


@pytest.mark.parametrize("machine", [AVX2, AVX512], ids=["avx2", "avx512"])
def test_each_hint_keeps_its_tile_in_the_vector_registers_and_the_best_fills_the_units(machine):
    found = hints(_matmul_add(f"hints_{machine.lanes}"), 6, machine)
    assert len(found) >= 2
    tiles = set()
    for config in found:
        inners, lane = _register_tile(config)
        assert inners[lane] % machine.lanes == 0
        vectors, broadcasts = inners[lane] // machine.lanes, inners[1 - lane]
        # the accumulators, then one step's vectors or its broadcasts, and one more operand
        assert vectors * broadcasts + min(vectors, broadcasts) + 1 <= machine.registers
        assert config["cache"].val == 1 and config["vectorize"].val == 1
        tiles.add((tuple(inners), lane, tuple(config["tile_k"].size)))
    assert len(tiles) == len(found)  # no two alike
    # the best has an accumulator for each multiply-add in flight (4 cycles x 2 units)
    inners, lane = _register_tile(found[0])
    assert math.prod(inners) // machine.lanes >= machine.fma_latency * machine.fma_units
    # each register tile before any comes again with another reduction step
    firsts = [(tuple(_register_tile(c)[0]), _register_tile(c)[1]) for c in found]
    assert len(set(firsts[:len(set(firsts))])) == len(set(firsts))


def test_the_best_ranked_hint_loads_least_per_multiply_add():
    """On AVX2, 4 rows by 16 columns (2 vectors): 6 loads for 8 multiply-adds, as 2 x 32 does, but
    with more of them broadcasts (8 x 8 makes 9 loads for 8)."""
    inners, lane = _register_tile(hints(_matmul_add("hints_rank"), 1, AVX2)[0])
    assert inners[lane] == 16 and inners[1 - lane] == 4


@pytest.mark.parametrize("target", ["c", "python"])
def test_the_hints_compute_what_numpy_computes(target):
    task = _matmul_add("hints_numpy", 32)
    found = hints(task, 2, AVX2)
    assert found
    rng = np.random.default_rng(0)
    a, b, d = (rng.uniform(-1, 1, (32, 32)).astype("float32") for _ in range(3))
    for config in found:
        with _Using(config):
            s, args = task.func()
        out = np.zeros((32, 32), "float32")
        build(s, args, target=target)(a, b, d, out)
        np.testing.assert_allclose(out, a @ b + d, rtol=1e-5, atol=1e-5)


def test_a_computation_without_a_reduction_gets_no_hints():
    x = te.placeholder((64, 64), name="x")
    y = te.compute((64, 64), lambda i, j: x[i, j] * 2, name="y")
    assert hints(auto_scheduler.create("hints_none", [x, y], "c"), 8, AVX2) == []


class _Recording(Runner):
    def __init__(self) -> None:
        super().__init__()
        self.runs: list[int] = []

    def run(self, measure_inputs, build_results):
        self.runs += [inp.config.index for inp in measure_inputs]
        return [MeasureResult((1e-3 * (1 + inp.config.index),), 0, 0.0, 0.0) for inp in measure_inputs]


def test_a_tuner_measures_its_first_configurations_before_its_own_choices():
    task = autotvm.task.create("tests/columns_matmul", args=(8,), target="c")
    tuner = autotvm.tuner.RandomTuner(task, seed=0)
    tuner.first = [task.config_space.get(5), task.config_space.get(2)]
    runner = _Recording()
    option = autotvm.measure_option(builder="local", runner=runner)
    tuner.tune(n_trial=3, measure_option=option)
    assert runner.runs[:2] == [5, 2] and len(runner.runs) == 3
    tuner.first = [task.config_space.get(5)]  # measured already: not again
    tuner.tune(n_trial=len(task.config_space) - 3, measure_option=option)
    assert sorted(runner.runs) == list(range(len(task.config_space)))


def test_the_knob_search_starts_from_the_hints_unless_asked_not_to():
    A, B, C = templates.matmul(32)
    dag_task = auto_scheduler.SearchTask(compute_dag=auto_scheduler.ComputeDAG([A, B, C]), workload_key="hints_policy",
                                         target="c")
    with_hints = auto_scheduler.SketchPolicy(dag_task, auto_scheduler.RandomModel(), params={"space": "knobs"})
    assert with_hints.make_tuner().first
    without = auto_scheduler.SketchPolicy(dag_task, auto_scheduler.RandomModel(),
                                          params={"space": "knobs", "tile_hints": 0})
    assert without.make_tuner().first == []
    with pytest.raises(ValueError, match="tile_hints"):
        auto_scheduler.SketchPolicy(dag_task, params={"space": "knobs", "tile_hints": -1})


@pytest.mark.parametrize("target", ["c", "python"])
def test_a_padding_is_computed_once_at_the_root_in_a_hint(target):
    n, c, k, size = 1, 8, 16, 8
    data = te.placeholder((n, c, size, size), name="data")
    weight = te.placeholder((k, c, 3, 3), name="weight")
    pad = te.compute((n, c, size + 2, size + 2), lambda b, ch, y, x: te.if_then_else(
        te.all(y >= 1, y <= size, x >= 1, x <= size), data[b, ch, y - 1, x - 1], 0.0), name="pad")
    rc, ry, rx = te.reduce_axis((0, c), "rc"), te.reduce_axis((0, 3), "ry"), te.reduce_axis((0, 3), "rx")
    conv = te.compute((n, k, size, size), lambda b, f, y, x: te.sum(
        pad[b, rc, y + ry, x + rx] * weight[f, rc, ry, rx], axis=[rc, ry, rx]), name="conv")
    task = auto_scheduler.create(f"hints_conv_{target}", [data, weight, conv], "c")
    found = hints(task, 2, AVX2)
    assert found and all(config["place_pad"].val == "root" for config in found)
    rng = np.random.default_rng(3)
    a = rng.uniform(-1, 1, (n, c, size, size)).astype("float32")
    w = rng.uniform(-1, 1, (k, c, 3, 3)).astype("float32")
    padded = np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1)))
    want = np.zeros((n, k, size, size), "float32")
    for dy in range(3):
        for dx in range(3):
            want += np.einsum("bcyx,fc->bfyx", padded[:, :, dy:dy + size, dx:dx + size], w[:, :, dy, dx])
    with _Using(found[0]):
        s, args = task.func()
    out = np.zeros((n, k, size, size), "float32")
    build(s, args, target=target)(a, w, out)
    np.testing.assert_allclose(out, want, rtol=1e-4, atol=1e-4)


def _conv(name: str, channels: int, size: int):
    """A 3x3 convolution of *channels* to *channels* over a *size* x *size* image, padded by 1."""
    data = te.placeholder((1, channels, size, size), name="data")
    weight = te.placeholder((channels, channels, 3, 3), name="weight")
    pad = te.compute((1, channels, size + 2, size + 2), lambda b, ch, y, x: te.if_then_else(
        te.all(y >= 1, y <= size, x >= 1, x <= size), data[b, ch, y - 1, x - 1], 0.0), name="pad")
    rc, ry, rx = te.reduce_axis((0, channels), "rc"), te.reduce_axis((0, 3), "ry"), te.reduce_axis((0, 3), "rx")
    conv = te.compute((1, channels, size, size), lambda b, f, y, x: te.sum(
        pad[b, rc, y + ry, x + rx] * weight[f, rc, ry, rx], axis=[rc, ry, rx]), name="conv")
    return auto_scheduler.create(name, [data, weight, conv], "c")


def test_a_deep_convolution_on_a_small_image_gets_a_tile_of_channels_by_a_row():
    """512 -> 512 channels over 7 x 7, on AVX2. Worked by hand: 8 channels by the 7 positions of
    a row hold 7 accumulators, loading 1 vector and 7 broadcasts a step (4 cycles, 7/8 of the
    units busy); 16 x 7 would need 17 registers; 32 channels by 1 position waits on its own sums
    (4 accumulators, half busy); 64 x 1 (8 accumulators, 9 loads) keeps 8/9 busy, but the copy
    of its 64 channels' weights (64 x 512 x 9 floats, 1.2 MB) overflows half of L2. The weights
    are copied at the parallel tile, so that tile spans the 49 positions (each weight copied
    once) and at most 16 channels (16 x 512 x 9 floats: 295 KB of the 512)."""
    found = hints(_conv("hints_deep_conv", 512, 7), 4, AVX2)
    assert found
    first = found[0]
    assert first["vector_axis"].val == 1
    assert [first[f"tile_{i}"].size[-1] for i in range(4)] == [1, 8, 1, 7]  # the rows' axis is the last
    tiles = [math.prod(first[f"tile_{i}"].size[1:]) for i in range(4)]
    assert tiles[2:] == [7, 7]
    assert tiles[1] * 512 * 9 * 4 <= AVX2.l2 // 2
    # every hint before a 64 x 1 tile keeps its copy within half of L2
    for config in found:
        channels = math.prod(config["tile_1"].size[1:])
        assert channels * 512 * 9 * 4 <= AVX2.l2 // 2


def test_the_knob_search_learns_from_the_knobs_alone():
    """With a learned model, the knob search's cost model reads the knobs' values, nothing
    lowered (as good on ResNet-18's convolutions, in two thirds of the search time)."""
    A, B, C = templates.matmul(32)
    dag_task = auto_scheduler.SearchTask(compute_dag=auto_scheduler.ComputeDAG([A, B, C]), workload_key="knob_features",
                                         target="c")
    tuner = auto_scheduler.SketchPolicy(dag_task, auto_scheduler.XGBModel(), params={"space": "knobs"}).make_tuner()
    assert tuner.cost_model.fea_type == "knob"
