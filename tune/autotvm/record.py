"""Tuning logs: one JSON object per line per measurement, in TVM's layout.

``{"input": [target, task name, args, {}], "config": {"index", "code_hash", "entity"},
"result": [costs, error number, all cost, timestamp], "version": 0.2}``; a failed trial keeps
its error message as its only cost. Lines that are not records (a truncated last line after a
crash, a byte that is not UTF-8, JSON nested too deep to read) are skipped with a warning that
gives their line numbers, so a log can always be resumed; so are records whose costs are not
times (a successful trial's costs must be numbers of seconds, 0 or more).
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import io
import json
import math
import numbers
import os
import pickle
import warnings
from collections.abc import Iterator
from typing import Any

from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.space import ConfigEntity
from tune.autotvm.task import Task

VERSION = 0.2


def encode(inp: MeasureInput, result: MeasureResult, protocol: str = "json") -> str:
    """The log line of one measurement: JSON text (``protocol="json"``), or the same record
    pickled and base64-encoded (``"pickle"``, TVM's other protocol)."""
    costs = [c if isinstance(c, (int, float)) else str(c) for c in result.costs]
    row = {
        "input": [str(inp.target), inp.task.name, _listed(inp.task.args), {}],
        "config": inp.config.to_json_dict(),
        "result": [costs, int(result.error_no), float(result.all_cost), float(result.timestamp)],
        "version": VERSION,
        # The host's load when the line is written (its 1-minute average, as the tuning's
        # batch ends): a timing taken on a busy machine can be told from one on a quiet one.
        # TVM's readers ignore the key.
        "load": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
    }
    if protocol == "json":
        return json.dumps(row)
    if protocol == "pickle":
        return base64.b64encode(pickle.dumps(row)).decode()
    raise ValueError(f"encode: protocol is 'json' or 'pickle', not {protocol!r}")


class _PlainData(pickle.Unpickler):
    """Unpickles plain data only (what :func:`encode` pickles): a log is not trusted code."""

    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"a record holds only plain data, not {module}.{name}")


def _listed(x: Any) -> Any:
    return [_listed(y) for y in x] if isinstance(x, (list, tuple)) else x


class NotARecord(ValueError):
    """A log line that is not a tuning record, and why (:attr:`reason`)."""

    def __init__(self, line: str, reason: str) -> None:
        super().__init__(f"autotvm: not a tuning record: {line[:80]!r} ({reason})")
        self.reason = reason


def decode(line: str, protocol: str = "json") -> tuple[MeasureInput, MeasureResult]:
    """The measurement of a log line written with *protocol* (see :func:`encode`).

    :raises ValueError: for a line that is not a record.
    """
    if protocol not in ("json", "pickle"):
        raise ValueError(f"decode: protocol is 'json' or 'pickle', not {protocol!r}")
    try:
        if protocol == "pickle":
            row = _PlainData(io.BytesIO(base64.b64decode(line.strip(), validate=True))).load()
        else:
            row = json.loads(line)
        target, name, args, _ = row["input"]
        costs, error_no, all_cost, timestamp = row["result"]
        task = Task(name, args, target)
        if int(error_no) == 0:
            bad = [c for c in costs if isinstance(c, bool) or not isinstance(c, numbers.Real)
                   or not math.isfinite(c) or c < 0]
            if bad or not costs:
                raise ValueError(f"a successful trial's costs are seconds (numbers, 0 or more), not {bad or costs}")
        return (MeasureInput(target, task, ConfigEntity.from_json_dict(row["config"])),
                MeasureResult(tuple(costs), int(error_no), float(all_cost), float(timestamp)))
    except RecursionError:
        raise NotARecord(line, "nested too deep") from None
    except (ValueError, KeyError, TypeError, IndexError, AttributeError, OverflowError, EOFError,
            pickle.UnpicklingError, binascii.Error) as e:
        raise NotARecord(line, str(e)) from None


def measure_str_key(inp: MeasureInput, include_config: bool = True) -> str:
    """A text key of a trial: its target, task name, arguments and (with *include_config*)
    configuration, as TVM's ``measure_str_key``."""
    return "".join([str(inp.target), inp.task.name, str(inp.task.args), "{}",
                    str(inp.config) if include_config else ""])


def is_open_file(x: Any) -> bool:
    """Whether *x* is an open file rather than a path (py.path's paths have ``read`` too)."""
    return hasattr(x, "read") and not isinstance(x, (str, os.PathLike))


def load_from_file(path: Any) -> Iterator[tuple[MeasureInput, MeasureResult]]:
    """The measurements of the log at *path* (a path, or an open file of text or bytes), in
    order; lines that are not records are skipped, and one warning at the end gives their line
    numbers."""
    skipped: list[str] = []
    opened = is_open_file(path)
    with contextlib.nullcontext(path) if opened else open(path, "rb") as f:
        for number, raw in enumerate(f, 1):
            try:
                line = raw if isinstance(raw, str) else raw.decode("utf-8")
            except UnicodeDecodeError as e:
                skipped.append(f"{number} (byte {e.start + 1} is not UTF-8)")
                continue
            if not line.strip():
                continue
            try:
                yield decode(line)
            except NotARecord as e:
                skipped.append(f"{number} ({e.reason[:200]})")
    if skipped:
        name = getattr(path, "name", "the log") if opened else path
        warnings.warn(f"{name}: skipped {len(skipped)} line(s) that are not tuning records: lines "
                      + "; ".join(skipped), stacklevel=2)


def pick_best(in_file: str, out_file: str) -> None:
    """Writes to *out_file* the best record of each workload in *in_file*."""
    best: dict[tuple[Any, ...], tuple[float, str]] = {}
    for inp, res in load_from_file(in_file):
        key = inp.task.workload
        if res.mean < best.get(key, (float("inf"), ""))[0]:
            best[key] = (res.mean, encode(inp, res))
    with open(out_file, "w") as f:
        for _, line in best.values():
            f.write(line + "\n")
