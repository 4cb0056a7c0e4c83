"""Bound inference: integer sets, InferBound, the range-aware simplifier, indexing maps."""

from __future__ import annotations

from bound.errors import BoundError
from bound.simplify import Analyzer, simplify
