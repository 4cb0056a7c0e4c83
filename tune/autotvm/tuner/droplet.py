"""The droplet tuner (TVM's ``DropletTuner``): from a start point of the knob grid, measure the
neighbours of the best configuration found so far, moving along every direction that changes
any subset of the knobs by the same step; when no neighbour improves, the step grows until it
spans the largest knob. A candidate replaces the best only when its costs are lower and the
difference is significant (Student's t-test at *pvalue*)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence

from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.space import ConfigEntity
from tune.autotvm.task import Task
from tune.autotvm.tuner.tuner import Tuner


def _betainc(a: float, b: float, x: float) -> float:
    """The regularized incomplete beta function I_x(a, b) (continued fraction, Lentz's method)."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    if x > (a + 1.0) / (a + b + 2.0):
        return 1.0 - _betainc(b, a, 1.0 - x)
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)) / a
    tiny = 1e-300
    f, c, d = 1.0, 1.0, 0.0
    for i in range(400):
        m = i // 2
        if i == 0:
            num = 1.0
        elif i % 2 == 0:
            num = m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m))
        else:
            num = -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))
        d = 1.0 + num * d
        d = 1.0 / (d if abs(d) > tiny else tiny)
        c = 1.0 + num / c
        c = c if abs(c) > tiny else tiny
        f *= c * d
        if abs(1.0 - c * d) < 1e-12:
            break
    return front * (f - 1.0)


def t_test_pvalue(x: Sequence[float], y: Sequence[float]) -> float:
    """The two-sided p-value of Student's t-test (pooled variance) that *x* and *y* share a mean."""
    n1, n2 = len(x), len(y)
    m1, m2 = sum(x) / n1, sum(y) / n2
    ss = sum((v - m1) ** 2 for v in x) + sum((v - m2) ** 2 for v in y)
    df = n1 + n2 - 2
    if ss == 0.0:
        return 1.0 if m1 == m2 else 0.0
    t = (m1 - m2) / math.sqrt(ss / df * (1.0 / n1 + 1.0 / n2))
    return _betainc(df / 2.0, 0.5, df / (df + t * t))


class DropletTuner(Tuner):
    """Droplet search over the knob grid from *start_position* (all zeros by default)."""

    def __init__(self, task: Task, start_position: Sequence[int] | None = None, pvalue: float = 0.05) -> None:
        super().__init__(task)
        self.dims = [len(v) for v in self.space.space_map.values()]
        start = list(start_position) if start_position is not None else [0] * len(self.dims)
        if len(start) != len(self.dims) or any(not 0 <= p < d for p, d in zip(start, self.dims)):
            raise ValueError(f"DropletTuner: start_position {start} is not a point of the knob grid {self.dims}")
        #: (index, knob position, costs) of the best configuration so far.
        self.best_choice: tuple[int, list[int], list[float]] = (-1, [0] * len(self.dims), [math.inf])
        first = self.space.knob2point(start)
        self.visited = {first}
        self.execution, self.total_execution, self.batch = 1, max(self.dims), 16
        self.pvalue, self.step = pvalue, 1
        self.next: list[tuple[int, list[int]]] = [(first, start)]
        self._sent: list[tuple[int, list[int]]] = []  # the points of the last batch

    def _directions(self, step: int) -> list[list[int]]:
        """Every move by +step and -step along a non-empty subset of the knobs."""
        out = []
        for mask in itertools.product((0, 1), repeat=len(self.dims)):
            if any(mask):
                out += [[m * step for m in mask], [-m * step for m in mask]]
        return out[::-1]

    def _neighbours(self, moves: list[list[int]]) -> list[tuple[int, list[int]]]:
        """The unvisited points the *moves* reach from the best one (up to one batch)."""
        found = []
        for move in moves:
            if len(found) > self.batch:
                break
            point = [(x + y) % d if x + y > 0 else 0 for x, y, d in zip(move, self.best_choice[1], self.dims)]
            index = self.space.knob2point(point)
            if index not in self.visited:
                self.visited.add(index)
                found.append((index, point))
        return found

    def next_batch(self, batch_size: int) -> list[ConfigEntity]:
        self.batch = batch_size
        while True:
            self._sent = [(i, p) for i, p in self.next[:batch_size] if self.space.is_index_valid(i)]
            if self._sent or not self.next:
                return [self.space.get(index) for index, _ in self._sent]
            self.next = self.next[batch_size:]  # a head of filtered-out points: move on
            self._spread()

    def _spread(self) -> None:
        """Widen the step until a batch of new points is queued or the step spans the grid."""
        while len(self.next) < self.batch and self.execution < self.total_execution:
            self.execution += self.step
            self.next += self._neighbours(self._directions(self.execution))

    def _better(self, costs: Sequence[float]) -> bool:
        best = self.best_choice[2]
        if not (sum(costs) / len(costs) < sum(best) / len(best)):
            return False
        return len(best) <= 1 or len(costs) <= 1 or t_test_pvalue(best, costs) <= self.pvalue

    def update(self, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
        improved = False
        for (index, point), res in zip(self._sent, results):
            costs = [c for c in res.costs if isinstance(c, (int, float))]
            if res.error_no == 0 and costs and self._better(costs):
                self.best_choice, improved = (index, point, costs), True
        self.next = self.next[self.batch:]
        if improved:
            self.next += self._neighbours(self._directions(1))
            self.execution = 1
        self._spread()

    def has_next(self) -> bool:
        return bool(self.next)
