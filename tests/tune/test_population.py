"""Concrete states from sketches: every open length filled with a factorization of its extent,
each state computing what NumPy does; a mutation keeps a split's product and changes it; the
evolutionary search finds the states a model prefers; the cost models of states score them
(the learned one from measured costs, saved and loaded)."""

from __future__ import annotations

import math
import random

import numpy as np

import schedule as te
from lower import build
from tune.auto_scheduler.compute_dag import ComputeDAG
from tune.auto_scheduler.population import mutate_tile_size
from tune.auto_scheduler.records import MeasureInput, MeasureResult
from tune.auto_scheduler.search_task import (
    HardwareParams,
    PythonBasedModel,
    RandomModel,
    SearchTask,
    SketchPolicy,
    XGBModel,
)

RNG = np.random.default_rng(17)


def _task(n=16, m=12, k=8, model=None, seed=3):
    A, B = te.placeholder((n, k), name="A"), te.placeholder((k, m), name="B")
    r = te.reduce_axis((0, k), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, r] * B[r, j], axis=r), name="C")
    task = SearchTask(compute_dag=ComputeDAG([A, B, C]), workload_key=f"population-{n}-{m}-{k}", target="llvm",
                      hardware_params=HardwareParams(num_cores=4))
    return task, SketchPolicy(task, program_cost_model=model, seed=seed)


def _splits(state):
    return [s for s in state.transform_steps if s.kind == "SP"]


def test_initial_population_is_concrete_and_correct():
    task, policy = _task()
    states = policy.sample_initial_population(12)
    assert len(states) == 12
    a, b = RNG.standard_normal((16, 8)).astype("float32"), RNG.standard_normal((8, 12)).astype("float32")
    for state in states:
        for step in _splits(state):
            lengths = step.fields[3]
            assert None not in lengths and step.fields[2] % math.prod(lengths) == 0
        sch, args = task.compute_dag.apply_steps_from_state(state)
        out = np.full((16, 12), np.nan, "float32")
        build(sch, args)(a, b, out)
        np.testing.assert_allclose(out, a @ b, rtol=1e-4, atol=1e-4)


def test_a_mutation_moves_one_factor_within_a_split():
    task, policy = _task(n=64, m=64, k=16)
    rng = random.Random(0)
    changed = 0
    for state in policy.sample_initial_population(8):
        child = mutate_tile_size(task.compute_dag, state, rng)
        assert child is not None
        before, after = _splits(state), _splits(child)
        assert [s.fields[2] for s in before] == [s.fields[2] for s in after]
        for new in after:
            assert new.fields[2] % math.prod(new.fields[3]) == 0  # the levels still divide the extent
        changed += sum(old.fields[3] != new.fields[3] for old, new in zip(before, after))
    assert changed == 8  # one split changed per mutation


class _Prefers(PythonBasedModel):
    """Scores 1 the states whose reduction's inner level is 2."""

    def update(self, inputs, results):
        pass

    def predict(self, task, states):
        bounded = [task.compute_dag.infer_bound_from_state(s) for s in states]
        return [1.0 if any(it.name == "k.1" and int(it.range.extent) == 2 for st in s.stages for it in st.iters)
                else 0.0 for s in bounded]


def test_evolution_finds_what_the_model_prefers():
    task, policy = _task(n=10, m=10, k=4, model=_Prefers(), seed=5)
    bad = [s for s in policy.sample_initial_population(40) if _Prefers().predict(task, [s]) == [0.0]]
    assert bad
    found = policy.evolutionary_search(bad, 10)
    assert len(found) == 10 and max(_Prefers().predict(task, found)) == 1.0


def test_cost_models_of_states(tmp_path):
    task, policy = _task()
    states = policy.sample_initial_population(30)
    assert len(RandomModel(0).predict(task, states)) == 30
    costs = [1.0 + 0.1 * len(_splits(s)) + 0.01 * k for k, s in enumerate(states)]
    model = XGBModel(num_warmup_sample=1, seed=0)
    model.update([MeasureInput(task, s) for s in states], [MeasureResult([c], 0, "", c, 0) for c in costs])
    predicted = model.predict(task, states)
    labels = [min(costs) / c for c in costs]
    assert np.sqrt(np.mean((np.array(predicted) - np.array(labels)) ** 2)) < 0.1
    path = str(tmp_path / "model.pkl")
    model.save(path)
    again = XGBModel(model_file=path)
    np.testing.assert_allclose(again.predict(task, states), predicted, rtol=1e-6)
