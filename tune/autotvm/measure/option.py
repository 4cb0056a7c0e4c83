"""``measure_option``: the builder and runner a tuning uses ("local" for ours)."""

from __future__ import annotations

from typing import Any

from tune.autotvm.measure.local import LocalBuilder, LocalRunner
from tune.autotvm.measure.measure import Builder, MeasureOption, Runner


def measure_option(builder: Any = "local", runner: Any = "local") -> MeasureOption:
    """TVM's ``autotvm.measure_option(builder=, runner=)``: ``"local"``, or a :class:`Builder`
    and a :class:`Runner` (any subclass: the tuner then builds and runs with it)."""
    if isinstance(builder, str) and builder == "local":
        builder = LocalBuilder()
    if isinstance(runner, str) and runner == "local":
        runner = LocalRunner()
    if not isinstance(builder, Builder):
        raise TypeError(f"measure_option: builder is 'local' or a Builder (LocalBuilder()), got {builder!r}")
    if not isinstance(runner, Runner):
        raise TypeError(f"measure_option: runner is 'local' or a Runner (LocalRunner()), got {runner!r}")
    return MeasureOption(builder, runner)
