"""auto_scheduler's measurement records in TVM's log form: a ``MeasureInput`` (a search task
and a loop state) and a ``MeasureResult`` per JSON line::

    {"i": [[workload key, target, hardware params, target host, layout rewrite, task inputs],
           [[], [step records]]],
     "r": [[costs], error number, total cost, timestamp], "v": "v0.6"}

A state is kept as its steps; :func:`recover_measure_input` (or
``ComputeDAG.infer_bound_from_state``) replays them on the task's DAG."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from tune.auto_scheduler.loop_state import State, replay_on_state
from tune.auto_scheduler.search_task import SearchTask
from tune.auto_scheduler.steps import Step

#: The version written into each record (TVM's).
LOG_VERSION = "v0.6"


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


class MeasureResult:
    """How it went: the *costs* of the runs (seconds), *error_no* (0: none) and *error_msg*,
    the total time *all_cost* and the *timestamp*."""

    def __init__(self, costs: Sequence[float], error_no: int, error_msg: str, all_cost: float,
                 timestamp: float) -> None:
        self.costs, self.error_no, self.error_msg = [float(c) for c in costs], int(error_no), error_msg
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
        "r": [list(res.costs), res.error_no, res.all_cost, res.timestamp],
        "v": LOG_VERSION,
    }
    return json.dumps(record)


def load_record_from_string(text: str) -> tuple[MeasureInput, MeasureResult]:
    """The input and result of one log line.

    :raises ValueError: for a line that is not an auto_scheduler record.
    """
    try:
        record = json.loads(text)
        (key, target, hw, host, layout, names), (_, steps) = record["i"]
        costs, error_no, all_cost, timestamp = record["r"]
    except (ValueError, KeyError, TypeError) as e:
        raise ValueError(f"auto_scheduler: {text[:80]!r} is not an auto_scheduler record ({e})") from None
    task = SearchTask.from_record(key, target, hw, host or None, layout, names)
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


def load_best_record(filename: Any, workload_key: str | None = None, target: Any = None,
                     include_compatible: bool = False) -> tuple[MeasureInput | None, MeasureResult | None]:
    """The fastest error-free record of *filename* (of *workload_key* and *target* if given)."""
    best: tuple[Any, Any] = (None, None)
    best_cost = float("inf")
    for inp, res in RecordReader(filename):
        if res.error_no != 0 or not res.costs:
            continue
        if workload_key is not None and inp.task.workload_key != workload_key:
            continue
        if target is not None and str(inp.task.target).split()[0] != str(target).split()[0]:
            continue
        cost = sum(res.costs) / len(res.costs)
        if cost < best_cost:
            best, best_cost = (inp, res), cost
    return best


def recover_measure_input(inp: MeasureInput, rebuild_state: bool = False) -> MeasureInput:
    """*inp* with its task's DAG rebuilt from the workload registry, and (with
    *rebuild_state*) its state replayed on that DAG."""
    task = inp.task
    new_task = SearchTask(workload_key=task.workload_key, target=task.target, hardware_params=task.hardware_params,
                          layout_rewrite_option=task.layout_rewrite_option, target_host=task.target_host)
    state = inp.state
    if rebuild_state:
        state = replay_on_state(new_task.compute_dag.get_init_state(), inp.state.transform_steps)
    return MeasureInput(new_task, state)
