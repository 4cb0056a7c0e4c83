"""A database of measured trials (TVM's ``autotvm.database``): records keyed by the trial's text
key (target, task, arguments and configuration), each key holding every result saved under it;
``load`` gives the latest. :class:`DummyDatabase` keeps them in memory, TVM's redis database
is not offered (no server is assumed)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.record import decode, encode, measure_str_key


class Database:
    """The interface: ``load``, ``save``, ``filter`` and ``flush``."""

    def load(self, inp: MeasureInput, get_all: bool = False) -> Any:
        raise NotImplementedError(f"{type(self).__name__}.load")

    def save(self, inp: MeasureInput, res: MeasureResult, extend: bool = False) -> None:
        raise NotImplementedError(f"{type(self).__name__}.save")

    def filter(self, func: Callable[[MeasureInput, list[MeasureResult]], bool]) -> list[Any]:
        raise NotImplementedError(f"{type(self).__name__}.filter")

    def flush(self) -> None:
        raise NotImplementedError(f"{type(self).__name__}.flush")


class DummyDatabase(Database):
    """Trials kept in memory, each as its encoded record line (as TVM's stores them)."""

    def __init__(self) -> None:
        self._data: dict[str, list[str]] = {}

    def save(self, inp: MeasureInput, res: MeasureResult, extend: bool = False) -> None:
        """Keep *res* for *inp*'s key: beside the results there when *extend*, else instead of them."""
        key = measure_str_key(inp)
        line = encode(inp, res)
        if extend and self._data.get(key):
            self._data[key].append(line)
        else:
            self._data[key] = [line]

    def load(self, inp: MeasureInput, get_all: bool = False) -> Any:
        """The latest result saved for *inp*'s key (all of them, in order, with *get_all*), or None."""
        lines = self._data.get(measure_str_key(inp))
        if lines is None:
            return None
        results = [decode(line)[1] for line in lines]
        return results if get_all else max(results, key=lambda r: r.timestamp)

    def filter(self, func: Callable[[MeasureInput, list[MeasureResult]], bool]) -> list[tuple[MeasureInput, Any]]:
        """Per key whose input and results *func* accepts, the input and its latest result."""
        found = []
        for lines in self._data.values():
            records = [decode(line) for line in lines]
            if not records:
                continue
            inp, results = records[0][0], [r for _, r in records]
            if func(inp, results):
                found.append((inp, max(results, key=lambda r: r.timestamp)))
        return found

    def flush(self) -> None:
        """Forget every trial."""
        self._data.clear()
