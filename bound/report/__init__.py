"""Reports over inferred bounds: ``explain`` (what each stage computes and why), executions of
the loop nests (counted and walked, vectorized), and ``tedd`` (TVM's schedule pictures)."""

from bound.report import tedd
from bound.report.explain import BoundReport, StageReport, explain

__all__ = ["BoundReport", "StageReport", "explain", "tedd"]
