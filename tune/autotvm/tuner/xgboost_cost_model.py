"""The learned cost model of :class:`XGBTuner` (TVM's ``XGBoostCostModel``): gradient-boosted
trees (XGBoost) predicting how fast a configuration is from its features.

Features (``feature_type``): ``"itervar"`` (TVM's default; ours: the knobs' values with those
of the schedule each configuration makes, :mod:`tune.features`: loop extents, kinds and
footprints, what each stage allocates and computes), ``"schedule"`` (the same), ``"explain"``
(the stage counts taken from exact bound inference: 10-30 ms per configuration), ``"knob"``
(the knobs' values only) and ``"curve"`` (the schedule's features without the knobs: the same
length and meaning for every template, so a base model transfers across tasks).

Targets are TVM's: *ys* are speeds (flops per second, or calls per second for a task without
flops), 0 for a failed trial. The model fits log speed (``loss_type="reg"``), the order of
speeds (``"rank"``), or the order between halves (``"rank-binary"``: a speed at least half the
best against the rest); a failed trial counts as slower than every success. A base model
(``load_basemodel``: one fitted to a history log by ``fit_log``) adds its discounted
prediction to this one's, as TVM's does, until this one has seen enough trials.
"""

from __future__ import annotations

import math
import os
import pickle
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from bound.isl.sets import StepLimit, step_limit
from tune.autotvm.jobs import feature_job
from tune.autotvm.space import InstantiationError
from tune.autotvm.task import Task
from tune.autotvm.tuner.tuner import speed
from tune.executor import LocalExecutor
from tune.features import LENGTH, schedule_features

FEATURE_TYPES = ("itervar", "schedule", "explain", "knob", "curve")
#: Batches of at least this many configurations without features are lowered in workers ...
FEATURE_BATCH = 8
#: ... this many (one per core), each lowering given this many seconds.
FEATURE_WORKERS = os.cpu_count() or 1
FEATURE_TIMEOUT = 120.0
#: A configuration lowered here (a small batch) gives up, as rejected, past this many isl steps
#: without a pause (about 25 s: 2 million took 2.4 s on the set that hung a tuning in isl).
FEATURE_ISL_STEPS = 20_000_000
LOSS_TYPES = ("reg", "rank", "rank-binary")


class XGBoostCostModel:
    """See the module docstring; *num_threads* for XGBoost, *seed* for reproducible fits."""

    def __init__(self, task: Task, feature_type: str = "itervar", loss_type: str = "reg",
                 num_threads: int | None = None, log_interval: int = 25, upper_model: XGBoostCostModel | None = None,
                 seed: int = 0) -> None:
        if feature_type not in FEATURE_TYPES:
            raise ValueError(f"XGBoostCostModel: feature_type is one of {', '.join(FEATURE_TYPES)}, "
                             f"got {feature_type!r}")
        if loss_type not in LOSS_TYPES:
            raise ValueError(f"XGBoostCostModel: loss_type is one of {', '.join(LOSS_TYPES)}, got {loss_type!r}")
        try:
            import xgboost
        except ImportError:
            raise ImportError("XGBTuner needs xgboost: pip install 'tebound[tune]' (or xgboost-cpu)") from None
        self._xgb = xgboost
        self.task, self.space = task, task.config_space
        self.fea_type, self.loss_type = feature_type, loss_type
        self.num_threads, self.log_interval, self.seed = num_threads or 1, log_interval, seed
        # a base model shares its upper model's feature cache
        self.feature_cache: dict[tuple[Any, int], np.ndarray] = upper_model.feature_cache if upper_model else {}
        self.upper_model = upper_model
        self._pool: LocalExecutor | None = None  # the feature workers, started at the first big batch
        self.base_model: XGBoostCostModel | None = None
        self.bst: Any = None
        self._sample_size = 0
        self._seen: dict[int, float] = {}  # what update() was given: index -> speed

    # -- features -----------------------------------------------------------------------------
    def feature(self, task: Task, index: int) -> np.ndarray:
        """The feature vector of configuration *index* of *task* (cached)."""
        key = (task.workload, int(index))
        if key not in self.feature_cache:
            config = task.config_space.get(int(index))
            lowered: list[float] | None = None
            if self.fea_type != "knob":
                try:
                    s, args = task.instantiate(config)
                    with step_limit(FEATURE_ISL_STEPS):
                        lowered = list(schedule_features(s, args, self.fea_type == "explain"))
                except (InstantiationError, StepLimit):
                    lowered = None
            self._store(key, config, lowered)
        return self.feature_cache[key]

    def _store(self, key: tuple[Any, int], config: Any, lowered: list[float] | None) -> None:
        """The row of *config*: its knobs, then (but for knob features) the schedule's features
        and whether the template rejects it (*lowered* None)."""
        knobs = [math.log2(1 + abs(v)) if isinstance(v, (int, float)) else v for v in config.get_flatten_feature()]
        if self.fea_type == "knob":
            extra: list[float] = []
        else:
            extra = [0.0] * LENGTH + [1.0] if lowered is None else [*lowered, 0.0]
        row = extra if self.fea_type == "curve" else [*knobs, *extra]
        self.feature_cache[key] = np.asarray(row, dtype=np.float64)

    def features(self, task: Task, indices: Sequence[int]) -> list[np.ndarray]:
        """:meth:`feature` of each of *indices*; those not cached yet lowered in worker processes
        when there are at least ``FEATURE_BATCH`` of them (TVM extracts them in a pool too):
        each takes a lowering, and the search asks for a generation at once."""
        missing = [i for i in dict.fromkeys(int(i) for i in indices) if (task.workload, i) not in self.feature_cache]
        if self.fea_type != "knob" and len(missing) >= FEATURE_BATCH and FEATURE_WORKERS > 1:
            jobs, made = [], []
            for i in missing:
                config = task.config_space.get(i)
                try:
                    jobs.append((pickle.dumps(task.instantiate(config)), self.fea_type == "explain"))
                    made.append((i, config))
                except (InstantiationError, pickle.PicklingError, TypeError, AttributeError):
                    continue  # rejected, or not picklable: feature() makes it here
            if self._pool is None:
                self._pool = LocalExecutor(FEATURE_WORKERS)
            for (i, config), result in zip(made, self._pool.run(feature_job, jobs, timeout=FEATURE_TIMEOUT)):
                # a lowering that failed, crashed or ran out of time in a worker is not tried
                # again here, where nothing could stop it: it counts as a rejected configuration
                self._store((task.workload, i), config, result.value if result.status == "ok" else None)
        return [self.feature(task, i) for i in indices]

    def _matrix(self, rows: Sequence[np.ndarray]) -> np.ndarray:
        """Rows padded with zeros to one width (the booster's, once it is fitted), as TVM pads
        the features of configurations with different loop counts."""
        width = self.bst.num_features() if self.bst is not None else max((len(r) for r in rows), default=0)
        return np.stack([np.pad(r, (0, width - len(r)))[:width] if len(r) != width else r for r in rows]) \
            if rows else np.zeros((0, width))

    def _indices(self, xs: Iterable[Any]) -> list[int]:
        out = [int(x) for x in np.asarray(list(xs)).ravel()]
        bad = [x for x in out if not 0 <= x < self.space.range_length]
        if bad:
            raise ValueError(f"XGBoostCostModel: configuration indices are in [0, {self.space.range_length}), "
                             f"got {bad[0]}")
        return out

    # -- fitting ------------------------------------------------------------------------------
    def _labels(self, ys: np.ndarray) -> tuple[np.ndarray, bool]:
        """The training labels for speeds *ys*, and whether the objective ranks."""
        ys = np.asarray(ys, dtype=np.float64)
        good = ys > 0
        if self.loss_type == "rank-binary":
            return (ys >= 0.5 * ys.max()).astype(np.float64) if good.any() else np.zeros_like(ys), True
        logs = np.log(np.where(good, ys, 1.0))
        floor = logs[good].min() - math.log(4) if good.any() else 0.0
        y = np.where(good, logs, floor)
        return (np.argsort(np.argsort(y, kind="stable")).astype(np.float64), True) if self.loss_type == "rank" \
            else (y, False)

    def _train(self, x: np.ndarray, ys: np.ndarray, rounds: int, margin: np.ndarray | None = None) -> None:
        y, ranking = self._labels(ys)
        params = {"max_depth": 6, "eta": 0.2, "seed": self.seed, "nthread": self.num_threads, "verbosity": 0,
                  "objective": "rank:pairwise" if ranking else "reg:squarederror"}
        data = self._xgb.DMatrix(x, label=y)
        if ranking:
            data.set_group([len(y)])
        if margin is not None:
            data.set_base_margin(margin)
        self.bst = self._xgb.train(params, data, num_boost_round=rounds)

    def _base_discount(self) -> float:
        return 1.0 / (2 ** (self._sample_size / 64.0))

    def fit(self, xs: Sequence[int], ys: Sequence[float], plan_size: int = 64) -> None:
        """Fits the model to configurations *xs* (indices of this task's space) and their
        speeds *ys*. *plan_size* is TVM's; it does not change the fit here."""
        indices = self._indices(xs)
        if len(indices) != len(ys):
            raise ValueError(f"XGBoostCostModel.fit: {len(indices)} configurations and {len(ys)} speeds")
        self._sample_size = len(indices)
        self.bst = None
        x = self._matrix(self.features(self.task, indices))
        margin = None
        if self.base_model is not None:
            if self._base_discount() < 0.05:  # enough trials of its own: the base model is dropped
                self.base_model.upper_model, self.base_model = None, None
            else:
                margin = self._base_discount() * self.base_model.predict(indices, output_margin=True)
        self._train(x, np.asarray(ys, dtype=np.float64), 120, margin)

    def fit_log(self, records: Iterable[tuple[Any, Any]], plan_size: int = 64, min_seed_records: int = 500) -> bool:
        """Fits the model to the records of tasks named as this one (other workloads of the same
        template included); False, and no model, when fewer than *min_seed_records* are."""
        rows, ys = [], []
        for inp, res in records:
            if inp.task.name != self.task.name:
                continue
            try:
                rows.append(self.feature(inp.task, inp.config.index))
            except (InstantiationError, ValueError):
                continue
            ys.append(speed(inp.task, res))
        if len(rows) < max(min_seed_records, 1):
            return False
        self.bst = None
        self._train(self._matrix(rows), np.asarray(ys), 200)
        return True

    def predict(self, xs: Iterable[Any], output_margin: bool = False) -> np.ndarray:
        """Scores of configurations *xs* (higher: faster)."""
        if self.bst is None:
            raise ValueError("XGBoostCostModel.predict: the model is not fitted (call fit or fit_log first)")
        indices = self._indices(xs)
        data = self._xgb.DMatrix(self._matrix(self.features(self.task, indices)))
        if self.base_model is not None:
            data.set_base_margin(self._base_discount() * self.base_model.predict(indices, output_margin=True))
        return self.bst.predict(data, output_margin=output_margin)

    def update(self, inputs: Sequence[Any], results: Sequence[Any]) -> None:
        """Adds measured trials of this task to what the model knows, and fits it again."""
        for inp, res in zip(inputs, results):
            self._seen[int(inp.config.index)] = speed(self.task, res)
        if sum(y > 0 for y in self._seen.values()) >= 2:
            self.fit(list(self._seen), list(self._seen.values()))

    def load_basemodel(self, base_model: XGBoostCostModel) -> None:
        """Adds *base_model*'s discounted predictions to this model's."""
        self.base_model = base_model
        base_model.upper_model = self

    def spawn_base_model(self) -> XGBoostCostModel:
        """A model of the same kind sharing this one's feature cache, to fit to a log."""
        return XGBoostCostModel(self.task, self.fea_type, self.loss_type, self.num_threads, self.log_interval,
                                self, self.seed)
