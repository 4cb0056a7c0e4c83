"""auto_scheduler's measurement records in TVM's log form: a ``MeasureInput`` (a search task
and a loop state) and a ``MeasureResult`` per JSON line::

    {"i": [[workload key, target, hardware params, target host, layout rewrite, task inputs],
           [[], [step records]]],
     "r": [[costs], error number, total cost, timestamp], "v": "v0.6"}

A state is kept as its steps; ``recover_measure_input`` (or
``ComputeDAG.infer_bound_from_state``) replays them on the task's DAG."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

from lower.target import Target
from tune.auto_scheduler.compute_dag import ComputeDAG
from tune.auto_scheduler.loop_state import State
from tune.auto_scheduler.steps import Step
from tune.autotvm.record import load_from_file

#: The version written into each record (TVM's).
LOG_VERSION = "v0.6"


class HardwareParams:
    """What a search assumes of the machine (TVM's): cores, vector and cache line bytes, and
    the GPU's limits (0 on a CPU). Unset values come from *target*."""

    FIELDS = ("num_cores", "vector_unit_bytes", "cache_line_bytes", "max_shared_memory_per_block",
              "max_local_memory_per_block", "max_threads_per_block", "max_vthread_extent", "warp_size")

    def __init__(self, num_cores: int | None = None, vector_unit_bytes: int | None = None,
                 cache_line_bytes: int | None = None, max_shared_memory_per_block: int | None = None,
                 max_local_memory_per_block: int | None = None, max_threads_per_block: int | None = None,
                 max_vthread_extent: int | None = None, warp_size: int | None = None, target: Any = None,
                 target_host: Any = None) -> None:
        target = target if isinstance(target, Target) or target is None else Target(str(target))
        gpu = target is not None and target.is_gpu
        defaults = {"num_cores": os.cpu_count() or 1, "vector_unit_bytes": 16 if gpu else 64,
                    "cache_line_bytes": 64, "max_shared_memory_per_block": 49152 if gpu else 0,
                    "max_local_memory_per_block": 2147483647 if gpu else 0,
                    "max_threads_per_block": 1024 if gpu else 0, "max_vthread_extent": 8 if gpu else 0,
                    "warp_size": 32 if gpu else 0}
        given = locals()
        for name in self.FIELDS:
            value = given[name]
            setattr(self, name, int(value) if value is not None else defaults[name])

    def to_list(self) -> list[int]:
        return [getattr(self, name) for name in self.FIELDS]

    @staticmethod
    def from_list(values: Sequence[int]) -> HardwareParams:
        return HardwareParams(*values)

    def __repr__(self) -> str:
        return "HardwareParams(" + ", ".join(f"{n}={getattr(self, n)}" for n in self.FIELDS) + ")"


class RecordedTask:
    """The task a record names: its workload key, target (with its host), hardware numbers,
    layout rewrite option and task input names; its DAG when the workload is registered
    (``recover_measure_input`` makes a SearchTask of it)."""

    def __init__(self, workload_key: str, target: str, hardware: Sequence[int], target_host: Any,
                 layout_rewrite_option: int, task_input_names: Sequence[str]) -> None:
        self.workload_key = workload_key
        self.target = Target(target, host=target_host)
        self.target_host = self.target.host
        self.hardware_params = HardwareParams.from_list(hardware)
        self.layout_rewrite_option, self.task_input_names = layout_rewrite_option, list(task_input_names)
        try:
            self.compute_dag: ComputeDAG | None = ComputeDAG(workload_key)
        except (TypeError, ValueError):
            self.compute_dag = None

    def __repr__(self) -> str:
        return f"RecordedTask(workload_key={self.workload_key}, target={self.target})"


class MeasureInput:
    """What was measured: *task* (a SearchTask) and *state*. As autotvm's input, it also has
    a ``target`` and a ``config`` (the state), so autotvm's builders and runners measure it."""

    def __init__(self, task: Any, state: Any) -> None:
        self.task, self.state = task, state

    @property
    def config(self) -> Any:
        return self.state

    @property
    def target(self) -> Any:
        return self.task.target

    def __repr__(self) -> str:
        return f"MeasureInput(task={self.task!r}, steps={len(self.state.transform_steps)})"


class Cost(float):
    """A run's time in seconds; also its ``value``, as TVM's costs are float constants."""

    @property
    def value(self) -> float:
        return float(self)

    def __repr__(self) -> str:
        return repr(float(self))


class MeasureResult:
    """How it went: the *costs* of the runs (seconds), *error_no* (0: none) and *error_msg*,
    the total time *all_cost* and the *timestamp*."""

    def __init__(self, costs: Sequence[float], error_no: int, error_msg: str, all_cost: float,
                 timestamp: float) -> None:
        self.costs, self.error_no, self.error_msg = [Cost(c) for c in costs], int(error_no), error_msg
        self.all_cost, self.timestamp = float(all_cost), float(timestamp)

    def __repr__(self) -> str:
        return (f"MeasureResult(cost:{self.costs}, error_no:{self.error_no}, all_cost:{self.all_cost:g}, "
                f"Tstamp:{self.timestamp:g})")


def dump_record_to_string(inp: MeasureInput, res: MeasureResult) -> str:
    """One log line for *inp* and *res*."""
    task = inp.task
    hw = task.hardware_params
    record = {
        "i": [[task.workload_key, str(task.target), hw.to_list(),
               str(task.target.host) if task.target.host is not None else "",
               int(task.layout_rewrite_option), list(task.task_input_names)],
              [[], [step.record() for step in inp.state.transform_steps]]],
        "r": [[float(c) for c in res.costs], res.error_no, res.all_cost, res.timestamp],
        "v": LOG_VERSION,  # no other key: TVM's reader refuses a line with one (so no host load here)
    }
    return json.dumps(record)


def load_record_from_string(text: str) -> tuple[MeasureInput, MeasureResult]:
    """The input and result of one log line.

    :raises ValueError: for a line that is not an auto_scheduler record.
    """
    try:
        record = json.loads(text)
        task_fields, (_, steps) = record["i"]
        key, target, hw, host, layout = task_fields[:5]
        names = task_fields[5] if len(task_fields) > 5 else []  # TVM v0.5's records have none
        costs, error_no, all_cost, timestamp = record["r"]
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"auto_scheduler: {text[:80]!r} is not an auto_scheduler record ({e})") from None
    task = RecordedTask(key, target, hw, host or None, layout, names)
    state = State(task.compute_dag, [], [Step.from_record(s) for s in steps])
    return MeasureInput(task, state), MeasureResult(costs, error_no, "", all_cost, timestamp)


def save_records(filename: Any, inputs: Sequence[MeasureInput], results: Sequence[MeasureResult]) -> None:
    """Append a line per (input, result) to *filename*."""
    with open(filename, "a") as f:
        for inp, res in zip(inputs, results):
            f.write(dump_record_to_string(inp, res) + "\n")


class RecordReader:
    """The records of the log *filename*, in order (lines that are not records are skipped)."""

    def __init__(self, filename: Any) -> None:
        self.filename = Path(filename)

    def __iter__(self) -> Iterator[tuple[MeasureInput, MeasureResult]]:
        if not self.filename.exists():
            return
        with open(self.filename) as f:
            for line in f:
                if line.strip() and '"i"' in line:
                    try:
                        yield load_record_from_string(line)
                    except ValueError:
                        continue

    def read_lines(self, max_lines: int | None = None,
                   skip_lines: int = 0) -> tuple[list[MeasureInput], list[MeasureResult]]:
        """The inputs and results of up to *max_lines* records after the first *skip_lines*."""
        inputs, results = [], []
        for k, (inp, res) in enumerate(self):
            if k < skip_lines:
                continue
            if max_lines is not None and len(inputs) >= max_lines:
                break
            inputs.append(inp)
            results.append(res)
        return inputs, results


def load_any_records(filename: Any) -> list[Any]:
    """The (input, result) pairs of the log *filename*: loop-state records (TVM's lines), or
    the records of a search of the configuration space (autotvm's lines)."""
    path = Path(filename)
    first = next((line for line in path.read_text().splitlines() if line.strip()), "") if path.exists() else ""
    if first.lstrip().startswith('{"i"'):
        return list(RecordReader(filename))
    return list(load_from_file(filename))


def mean_cost(res: MeasureResult) -> float:
    """The mean of a trial's costs, or inf for one that failed."""
    return sum(res.costs) / len(res.costs) if res.error_no == 0 and res.costs else float("inf")


def load_best_record(filename: Any, workload_key: str | None = None, target: Any = None,
                     include_compatible: bool = False) -> tuple[MeasureInput | None, MeasureResult | None]:
    """The fastest error-free record of *filename* (of *workload_key* and *target* if given)."""
    return best_record(RecordReader(filename), workload_key, target)


def best_record(records: Iterable[tuple[Any, Any]], workload_key: str | None = None, target: Any = None
                ) -> tuple[MeasureInput | None, MeasureResult | None]:
    """The fastest error-free (input, result) of *records* (of *workload_key* and *target* if
    given), or ``(None, None)``."""
    best: tuple[Any, Any] = (None, None)
    best_cost = float("inf")
    for inp, res in records:
        if workload_key is not None and inp.task.workload_key != workload_key:
            continue
        if target is not None and str(inp.task.target).split()[0] != str(target).split()[0]:
            continue
        cost = mean_cost(res)
        if cost < best_cost:
            best, best_cost = (inp, res), cost
    return best
