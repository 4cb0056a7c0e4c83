"""A tuner that learns (TVM's ``XGBTuner``): an :class:`XGBoostCostModel` predicts the speed of
unmeasured configurations, and each batch takes the best predicted among a pool of random
configurations and neighbours of the best measured ones (this search takes the place of TVM's
simulated annealing, ``optimizer="sa"``). With ``optimizer="evolution"`` (Ansor's evolutionary
search, one generation per batch of measurements) the pool also takes children of the best
measured configurations: mutants, with one or two knobs drawn anew, and crossovers, each knob
from one of two parents; the model ranks them with the rest.

As in TVM, ``xs`` and ``ys`` hold the measured configurations and their speeds, and
``load_history`` fits a base model to a log when it holds at least *min_seed_records* trials
of the task's template. Beyond TVM, the log's trials of this very workload are also marked
visited and learned from, so that a tuning resumes where its log stops.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.space import ConfigEntity
from tune.autotvm.task import Task
from tune.autotvm.tuner.tuner import Tuner, speed
from tune.autotvm.tuner.xgboost_cost_model import XGBoostCostModel

#: The searches over the model: the pool of neighbours and random configurations, and that
#: pool with a generation of children of the best measured.
OPTIMIZERS = ("sa", "evolution")
#: Children per generation (mutants and crossovers, half each).
CHILDREN = 32


class XGBTuner(Tuner):
    """See the module docstring. *plan_size* trials are chosen at random before the model is
    trusted; about *pool_size* candidates are ranked per batch (an eighth of them new);
    *epsilon* of each batch stays random (exploration); *seed* makes the search reproducible.
    *feature_type* and *loss_type* are the cost model's."""

    def __init__(self, task: Task, plan_size: int = 16, feature_type: str = "itervar", loss_type: str = "reg",
                 num_threads: int | None = None, optimizer: str = "sa", diversity_filter_ratio: float | None = None,
                 log_interval: int = 50, pool_size: int = 256, epsilon: float = 0.05, seed: int | None = None) -> None:
        super().__init__(task)
        for name, value in (("plan_size", plan_size), ("pool_size", pool_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"XGBTuner: {name} is a positive int, got {value!r}")
        if not 0 <= epsilon <= 1:
            raise ValueError(f"XGBTuner: epsilon is in [0, 1], got {epsilon!r}")
        if optimizer not in OPTIMIZERS:
            raise ValueError(f"XGBTuner: optimizer is one of {OPTIMIZERS} ('sa': the pool search stands in for "
                             f"it), got {optimizer!r}")
        self.optimizer = optimizer
        if diversity_filter_ratio is not None:
            raise ValueError("XGBTuner: diversity_filter_ratio is not supported; leave it None")
        self.rng = np.random.default_rng(seed)
        self.cost_model = XGBoostCostModel(task, feature_type, loss_type, num_threads, log_interval,
                                           seed=int(self.rng.integers(2**31)))
        self.plan_size, self.pool_size, self.epsilon = plan_size, pool_size, epsilon
        self.xs: list[int] = []
        self.ys: list[float] = []
        self.flops_max = 0.0
        self.train_ct = 0
        self._pool: set[int] = set()

    # -- choosing -----------------------------------------------------------------------------
    def _unvisited_random(self, count: int, exclude: set[int]) -> list[int]:
        space, n = self.space, self.space.range_length
        out: list[int] = []
        taken = self.visited | exclude
        tries = 0
        while len(out) < count and len(taken) + len(out) < len(space) and tries < 20 * count + 100:
            tries += 1
            i = int(self.rng.integers(n))
            if i not in taken and i not in out and space.is_index_valid(i):
                out.append(i)
        if len(out) < count:  # a nearly exhausted space: the rest in order
            rest = (i for i in range(n) if i not in taken and i not in out and space.is_index_valid(i))
            out += [i for _, i in zip(range(count - len(out)), rest)]
        return out

    def _neighbours(self, index: int) -> list[int]:
        """Valid configurations that differ from *index* in one knob, by one step."""
        knob, dims = self.space.point2knob(index), self.space.dims
        out = []
        for k, n in enumerate(dims):
            for step in (-1, 1):
                if 0 <= knob[k] + step < n:
                    point = self.space.knob2point([*knob[:k], knob[k] + step, *knob[k + 1:]])
                    if self.space.is_index_valid(point):
                        out.append(point)
        return out

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        if self.cost_model.bst is None:
            return [self.space.get(i) for i in self._unvisited_random(batch_size, set())]
        # the pool persists: each batch adds neighbours of the best and a few random ones, so
        # that features (a lowering each) are computed for few new configurations per batch
        order = np.argsort(-np.asarray(self.ys), kind="stable")[:8]
        self._pool -= self.visited
        self._pool |= {i for b in order for i in self._neighbours(self.xs[b]) if i not in self.visited}
        if self.optimizer == "evolution":
            self._pool |= set(self._children([self.xs[b] for b in order if self.ys[b] > 0]))
        fresh = self.pool_size - len(self._pool) if len(self._pool) < self.pool_size else self.pool_size // 8
        self._pool |= set(self._unvisited_random(max(fresh, batch_size), self._pool))
        ranked = sorted(self._pool)
        if not ranked:
            return []
        scores = self.cost_model.predict(ranked)
        chosen = [ranked[k] for k in np.argsort(-scores, kind="stable")][:batch_size]
        explore = sum(self.rng.random() < self.epsilon for _ in chosen)
        if explore:
            chosen = chosen[:len(chosen) - explore] + self._unvisited_random(explore, set(chosen))
        return [self.space.get(i) for i in chosen]

    def _children(self, parents: list[int]) -> list[int]:
        """A generation: mutants of the parents (one or two knobs drawn anew) and crossovers of
        two parents (each knob from either), unvisited and valid."""
        if not parents:
            return []
        dims = self.space.dims
        out: list[int] = []
        for c in range(CHILDREN):
            knob = list(self.space.point2knob(parents[int(self.rng.integers(len(parents)))]))
            if c % 2 == 0 or len(parents) < 2:
                for k in self.rng.choice(len(dims), size=min(len(dims), 1 + int(self.rng.integers(2))), replace=False):
                    knob[int(k)] = int(self.rng.integers(dims[int(k)]))
            else:
                other = self.space.point2knob(parents[int(self.rng.integers(len(parents)))])
                knob = [a if self.rng.random() < 0.5 else b for a, b in zip(knob, other)]
            point = self.space.knob2point(knob)
            if point not in self.visited and self.space.is_index_valid(point):
                out.append(point)
        return out

    # -- learning -----------------------------------------------------------------------------
    def update(self, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        for inp, res in zip(inputs, results):
            index = inp.config.index
            self.visited.add(index)
            self.xs.append(index)
            self.ys.append(speed(self.task, res))
            self.flops_max = max(self.flops_max, self.ys[-1])
        if len(self.xs) >= self.plan_size and self.flops_max > 0 and sum(y > 0 for y in self.ys) >= 2:
            self.cost_model.fit(self.xs, self.ys, self.plan_size)
            self.train_ct += 1

    def load_history(self, records: Iterable[tuple[MeasureInput, MeasureResult]], min_seed_records: int = 500) -> None:
        """TVM's transfer (a base model fitted to the log, if it has *min_seed_records* trials
        of this template), and our resume (this workload's trials visited and learned from)."""
        records = list(records)
        base = self.cost_model.spawn_base_model()
        if base.fit_log(records, self.plan_size, min_seed_records):
            self.cost_model.load_basemodel(base)
        super().load_history(records)
