"""A genetic tuner (TVM's ``GATuner``): a population of configurations, each a gene of knob
choices, is measured; the next generation keeps the *elite_num* fastest and breeds the rest
from parents drawn in proportion to their speed (a uniform crossover of their knobs, then each
knob mutated with probability *mutation_prob*). Genes are valid, unvisited configurations
while the space has any left; as in TVM, a gene counts as visited from its birth."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.space import ConfigEntity
from tune.autotvm.task import Task
from tune.autotvm.tuner.tuner import Tuner, speed


class GATuner(Tuner):
    """See the module docstring; *seed* makes the search reproducible."""

    def __init__(self, task: Task, pop_size: int = 100, elite_num: int = 3, mutation_prob: float = 0.1,
                 seed: int | None = None) -> None:
        super().__init__(task)
        for name, value in (("pop_size", pop_size), ("elite_num", elite_num)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"GATuner: {name} is a positive int, got {value!r}")
        if not 0 <= mutation_prob <= 1:
            raise ValueError(f"GATuner: mutation_prob is in [0, 1], got {mutation_prob!r}")
        self.rng = np.random.default_rng(seed)
        self.pop_size = min(pop_size, len(self.space))
        self.elite_num = min(elite_num, self.pop_size)
        self.mutation_prob = mutation_prob
        self.genes: list[list[int]] = []
        points = self._fresh(self.pop_size)
        self.visited |= set(points)
        self.genes = [self.space.point2knob(p) for p in points]
        self.scores: list[float] = []
        self.trial_pt = 0
        self.elites: list[list[int]] = []
        self.elite_scores: list[float] = []

    def _fresh(self, count: int) -> list[int]:
        """*count* valid, unvisited configurations at random (fewer if the space has fewer)."""
        left = len(self.space) - len(self.visited)
        out: set[int] = set()
        while len(out) < min(count, left):
            out.add(self.space.get_rand_index(to_exclude=self.visited | out))
        return sorted(out)

    def has_next(self) -> bool:
        return len(self.visited) - (len(self.genes) - self.trial_pt) < len(self.space)

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        out = []
        while len(out) < batch_size and self.trial_pt < len(self.genes):
            out.append(self.space.get(self.space.knob2point(self.genes[self.trial_pt])))
            self.trial_pt += 1
        return out

    def update(self, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        self.scores += [speed(self.task, res) for res in results]
        if len(self.scores) < len(self.genes) or self.trial_pt < len(self.genes):
            return
        # a generation is measured: keep the elites, breed the next one
        genes, scores = self.genes + self.elites, self.scores + self.elite_scores
        best = np.argsort(-np.asarray(scores), kind="stable")[:self.elite_num]
        self.elites = [genes[i] for i in best]
        self.elite_scores = [scores[i] for i in best]
        weights = np.asarray(scores, dtype=np.float64)
        weights = weights / weights.sum() if weights.sum() > 0 else np.full(len(scores), 1 / len(scores))
        children: list[list[int]] = []
        born: set[int] = set()
        tries = 0
        while len(children) < self.pop_size and len(self.visited) + len(born) < len(self.space) \
                and tries < 50 * self.pop_size:
            tries += 1
            a, b = self.rng.choice(len(genes), size=2, p=weights)
            child = [genes[a][k] if self.rng.random() < 0.5 else genes[b][k] for k in range(len(self.space.dims))]
            for k, dim in enumerate(self.space.dims):
                if self.rng.random() < self.mutation_prob:
                    child[k] = int(self.rng.integers(dim))
            point = self.space.knob2point(child)
            if point not in self.visited and point not in born and self.space.is_index_valid(point):
                children.append(child)
                born.add(point)
        if len(children) < self.pop_size:  # breeding stalls in a nearly visited space
            extra = [p for p in self._fresh(self.pop_size - len(children) + len(born)) if p not in born]
            children += [self.space.point2knob(p) for p in extra[:self.pop_size - len(children)]]
        self.genes = children
        self.visited |= {self.space.knob2point(g) for g in children}
        self.scores, self.trial_pt = [], 0
