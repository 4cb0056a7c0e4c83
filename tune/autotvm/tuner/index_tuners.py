"""Tuners that only choose an order over the configuration indices: grid (in index order) and
random (a random order without repeats). Both may be given *range_idx* ``(begin, end)``, an
inclusive range of indices to search (to split a space between machines, as in TVM), and
step over the configurations a ``multi_filter`` excludes."""

from __future__ import annotations

import numpy as np

from tune.autotvm.space import ConfigEntity
from tune.autotvm.task import Task
from tune.autotvm.tuner.tuner import Tuner


class IndexBaseTuner(Tuner):
    """What the index tuners share: the range ``[begin_idx, end_idx)``, its ``range_length``,
    and ``visited_max``, the number of valid configurations in it."""

    def __init__(self, task: Task, range_idx: tuple[int, int] | None = None) -> None:
        super().__init__(task)
        n = self.space.range_length
        if range_idx is None:
            begin, last = 0, n - 1
        else:
            if not (isinstance(range_idx, (tuple, list)) and len(range_idx) == 2
                    and all(isinstance(x, int) and not isinstance(x, bool) for x in range_idx)):
                raise ValueError(f"{type(self).__name__}: range_idx is a pair (begin, end) of ints, got {range_idx!r}")
            begin, last = range_idx
            if not 0 <= begin <= last < n:
                raise ValueError(f"{type(self).__name__}: range_idx {tuple(range_idx)} is not within the "
                                 f"space's indices [0, {n - 1}]")
        self.begin_idx, self.end_idx = begin, last + 1
        self.range_length = self.end_idx - self.begin_idx
        self.visited_max = self.space.subrange_length(self.begin_idx, self.end_idx)

    def has_next(self) -> bool:
        return len(self.visited) < self.visited_max


class GridSearchTuner(IndexBaseTuner):
    """Every valid configuration of the range, in index order (``index`` is the next one)."""

    def __init__(self, task: Task, range_idx: tuple[int, int] | None = None) -> None:
        super().__init__(task, range_idx)
        first = self.begin_idx
        self.index: int | None = first if self.space.is_index_valid(first) else \
            self.space.get_next_index(first, start=self.begin_idx, end=self.end_idx)

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        out = []
        while len(out) < batch_size and self.index is not None:
            if self.index not in self.visited:
                out.append(self.space.get(self.index))
            self.index = self.space.get_next_index(self.index, start=self.begin_idx, end=self.end_idx)
        return out

    def has_next(self) -> bool:
        return self.index is not None and super().has_next()


class RandomTuner(IndexBaseTuner):
    """The valid configurations of the range in a random order without repeats (*seed* makes
    it reproducible)."""

    def __init__(self, task: Task, range_idx: tuple[int, int] | None = None, seed: int | None = None) -> None:
        super().__init__(task, range_idx)
        self.rng = np.random.default_rng(seed)

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        out: list[ConfigEntity] = []
        chosen: set[int] = set()
        while len(out) < batch_size and len(self.visited) + len(chosen) < self.visited_max:
            index = int(self.rng.integers(self.begin_idx, self.end_idx))
            if index in self.visited or index in chosen or not self.space.is_index_valid(index):
                if self.visited_max - len(self.visited) - len(chosen) < 64:  # few left: the first unvisited
                    index = next(i for i in range(self.begin_idx, self.end_idx)
                                 if i not in self.visited and i not in chosen and self.space.is_index_valid(i))
                else:
                    continue
            chosen.add(index)
            out.append(self.space.get(index))
        return out


