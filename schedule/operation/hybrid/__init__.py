"""Hybrid script (``te.hybrid.script``), as TVM's: Python functions with loops, conditions and
tensor accesses, run on NumPy arrays or turned into extern operations."""

from schedule.operation.hybrid.runtime import HYBRID_GLOBALS
from schedule.operation.hybrid.script import HybridFunction, script

__all__ = ["HYBRID_GLOBALS", "HybridFunction", "script"]
