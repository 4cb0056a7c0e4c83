"""A tuner that learns (TVM's ``XGBTuner``): a gradient-boosted model (XGBoost) predicts the
cost of unmeasured configurations from their features, and each batch takes the best
predicted among a pool of random configurations and neighbours of the best measured ones.

Features are the knobs' values (``feature_type="knob"``) or, by default, those of the schedule
each configuration makes (``"schedule"``, :mod:`tune.features`: loop extents, kinds and
footprints, and what each stage allocates and computes), with the knobs'; ``"explain"`` takes
the stage counts from the exact bound inference (computed against needed: 10-30 ms per
configuration in the median of the benchmarks' spaces, up to a second). The model is fitted to -log(cost)
(``loss_type="reg"``) or to the order of costs (``"rank"``); failed trials count as worse than
every success.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.space import ConfigEntity, InstantiationError
from tune.autotvm.task import Task
from tune.autotvm.tuner.tuner import Tuner
from tune.features import LENGTH, schedule_features


class XGBTuner(Tuner):
    """See the module docstring. *plan_size* trials are chosen at random before the model is
    trusted; about *pool_size* candidates are ranked per batch (an eighth of them new);
    *epsilon* of each batch stays random (exploration); *seed* makes the search reproducible."""

    def __init__(self, task: Task, plan_size: int = 16, feature_type: str = "schedule", loss_type: str = "reg",
                 num_threads: int | None = None, pool_size: int = 256, epsilon: float = 0.05,
                 seed: int | None = None) -> None:
        super().__init__(task)
        if feature_type not in ("schedule", "itervar", "knob", "explain"):
            raise ValueError(f"XGBTuner: feature_type is 'schedule' (or TVM's 'itervar'), 'explain' or 'knob', "
                             f"got {feature_type!r}")
        if loss_type not in ("reg", "rank"):
            raise ValueError(f"XGBTuner: loss_type is 'reg' or 'rank', got {loss_type!r}")
        for name, value in (("plan_size", plan_size), ("pool_size", pool_size)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"XGBTuner: {name} is a positive int, got {value!r}")
        if not 0 <= epsilon <= 1:
            raise ValueError(f"XGBTuner: epsilon is in [0, 1], got {epsilon!r}")
        try:
            import xgboost
        except ImportError:
            raise ImportError("XGBTuner needs xgboost: pip install 'tebound[tune]' (or xgboost-cpu)") from None
        self._xgb = xgboost
        self.schedule_features = feature_type != "knob"
        self.exact_counts = feature_type == "explain"
        self.loss_type, self.plan_size, self.pool_size, self.epsilon = loss_type, plan_size, pool_size, epsilon
        self.num_threads = num_threads or 1
        self.rng = np.random.default_rng(seed)
        self.seed = int(self.rng.integers(2**31))
        self.lengths = self.space.knob_lengths()
        self.measured: dict[int, float] = {}
        self._pool: set[int] = set()
        self._features: dict[int, np.ndarray] = {}
        self.model = None

    # -- features -----------------------------------------------------------------------------
    def features(self, index: int) -> np.ndarray:
        """The feature vector of configuration *index* (cached)."""
        if index not in self._features:
            config = self.space.get(index)
            knobs = [math.log2(1 + abs(v)) if isinstance(v, (int, float)) else v for v in config.get_flatten_feature()]
            extra: list[float] = []
            if self.schedule_features:
                try:
                    s, args = self.task.instantiate(config)
                    extra = [*schedule_features(s, args, self.exact_counts), 0.0]
                except InstantiationError:
                    extra = [0.0] * LENGTH + [1.0]  # the template rejects it
            self._features[index] = np.asarray([*knobs, *extra], dtype=np.float64)
        return self._features[index]

    # -- choosing -----------------------------------------------------------------------------
    def _unvisited_random(self, count: int, exclude: set[int]) -> list[int]:
        n = len(self.space)
        out: list[int] = []
        tries = 0
        while len(out) < count and len(self.visited) + len(exclude) + len(out) < n and tries < 20 * count + 100:
            tries += 1
            i = int(self.rng.integers(n))
            if i not in self.visited and i not in exclude and i not in out:
                out.append(i)
        if len(out) < count:  # a nearly exhausted space: the rest in order
            rest = [i for i in range(n) if i not in self.visited and i not in exclude and i not in out]
            out += rest[:count - len(out)]
        return out

    def _neighbours(self, index: int) -> list[int]:
        """Configurations that differ from *index* in one knob, by one step."""
        digits, rest = [], index
        for n in self.lengths:
            digits.append(rest % n)
            rest //= n
        out = []
        for k, n in enumerate(self.lengths):
            for step in (-1, 1):
                d = digits[k] + step
                if 0 <= d < n:
                    changed = digits[:k] + [d] + digits[k + 1:]
                    value, scale = 0, 1
                    for digit, length in zip(changed, self.lengths):
                        value += digit * scale
                        scale *= length
                    out.append(value)
        return out

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        if self.model is None:
            return [self.space.get(i) for i in self._unvisited_random(batch_size, set())]
        # the pool persists: each batch adds neighbours of the best and a few random ones, so
        # that features (a lowering each) are computed for few new configurations per batch
        best = sorted(self.measured, key=self.measured.__getitem__)[:8]
        self._pool -= self.visited
        self._pool |= {i for b in best for i in self._neighbours(b) if i not in self.visited}
        fresh = self.pool_size - len(self._pool) if len(self._pool) < self.pool_size else self.pool_size // 8
        self._pool |= set(self._unvisited_random(max(fresh, batch_size), self._pool))
        ranked = sorted(self._pool)
        if not ranked:
            return []
        scores = self.model.predict(np.stack([self.features(i) for i in ranked]))
        order = [ranked[k] for k in np.argsort(-scores, kind="stable")]
        chosen = order[:batch_size]
        explore = sum(self.rng.random() < self.epsilon for _ in chosen)
        if explore:
            chosen = chosen[:len(chosen) - explore] + self._unvisited_random(explore, set(chosen))
        return [self.space.get(i) for i in chosen]

    # -- learning -----------------------------------------------------------------------------
    def update(self, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        for inp, res in zip(inputs, results):
            self.measured[inp.config.index] = res.mean
        if len(self.measured) < self.plan_size:
            return
        indices = sorted(self.measured)
        costs = np.array([self.measured[i] for i in indices])
        finite = costs[np.isfinite(costs)]
        if finite.size < 2:
            return
        y = -np.log(np.where(np.isfinite(costs), costs, finite.max() * 4))
        x = np.stack([self.features(i) for i in indices])
        params = {"max_depth": 6, "eta": 0.2, "seed": self.seed, "nthread": self.num_threads, "verbosity": 0,
                  "objective": "rank:pairwise" if self.loss_type == "rank" else "reg:squarederror"}
        data = self._xgb.DMatrix(x, label=np.argsort(np.argsort(y)) if self.loss_type == "rank" else y)
        if self.loss_type == "rank":
            data.set_group([len(y)])
        self.model = _Model(self._xgb, self._xgb.train(params, data, num_boost_round=120))


class _Model:
    """A trained booster, predicting scores for rows of features (higher: faster)."""

    def __init__(self, xgb: object, booster: object) -> None:
        self.xgb, self.booster = xgb, booster

    def predict(self, x: np.ndarray) -> np.ndarray:
        return self.booster.predict(self.xgb.DMatrix(x))  # type: ignore[attr-defined]
