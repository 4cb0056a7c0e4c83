"""Bound inference: integer sets, InferBound and explain, the range-aware simplifier, indexing maps."""

from __future__ import annotations

from bound.errors import BoundError
from bound.explain import BoundReport, StageReport, explain
from bound.indexing.analysis import output_to_input, output_to_inputs
from bound.indexing.indexing_map import IndexingMap, compose
from bound.indexing.inverse import input_to_output
from bound.infer import infer_bound
from bound.interval import IntervalSet, eval_set
from bound.intset import IntSet
from bound.simplify import Analyzer, simplify
