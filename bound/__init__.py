"""Bound inference: integer sets, InferBound and explain, the range-aware simplifier, indexing maps."""

# ruff: noqa: E402 - the checks of the 'schedule' and 'tune' packages run before anything imports them
from __future__ import annotations

from bound.package_clash import check_ours

# PyPI has other 'schedule' and 'tune' packages; every way into this project imports bound first.
check_ours("schedule")
check_ours("tune")

from typing import Any

from bound.arith.analyzer import Analyzer
from bound.arith.interval import IntervalSet, eval_set
from bound.arith.intset import IntSet
from bound.arith.simplify import simplify
from bound.errors import BoundError
from bound.indexing.analysis import output_to_input, output_to_inputs
from bound.indexing.indexing_map import IndexingMap, compose
from bound.indexing.inverse import input_to_output
from bound.inference.infer import infer_bound
from bound.report import tedd
from bound.report.explain import BoundReport, StageReport, explain
from schedule.base import moved


def __getattr__(name: str) -> Any:
    """The modules that moved into rooms, under their old names (``bound.infer`` ...)."""
    return moved.old_submodule("bound", name)
