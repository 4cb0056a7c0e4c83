"""Tuners that only choose an order over the configuration indices: grid (in index order) and
random (a random order without repeats)."""

from __future__ import annotations

import numpy as np

from tune.autotvm.space import ConfigEntity
from tune.autotvm.task import Task
from tune.autotvm.tuner.tuner import Tuner


class GridSearchTuner(Tuner):
    """Every configuration, in index order."""

    def __init__(self, task: Task) -> None:
        super().__init__(task)
        self.counter = 0

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        out = []
        while len(out) < batch_size and self.counter < len(self.space):
            if self.counter not in self.visited:
                out.append(self.space.get(self.counter))
            self.counter += 1
        return out

    def has_next(self) -> bool:
        return self.counter < len(self.space) and len(self.visited) < len(self.space)


class RandomTuner(Tuner):
    """Configurations in a random order without repeats (*seed* makes it reproducible)."""

    def __init__(self, task: Task, seed: int | None = None) -> None:
        super().__init__(task)
        self.rng = np.random.default_rng(seed)

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        out: list[ConfigEntity] = []
        n = len(self.space)
        chosen: set[int] = set()
        while len(out) < batch_size and len(self.visited) + len(chosen) < n:
            index = int(self.rng.integers(n))
            if index in self.visited or index in chosen:
                if n - len(self.visited) - len(chosen) < 64:  # few left: take the first unvisited
                    index = next(i for i in range(n) if i not in self.visited and i not in chosen)
                else:
                    continue
            chosen.add(index)
            out.append(self.space.get(index))
        return out
