"""Integer arithmetic analysis (TVM's arith): intervals and integer sets, interval evaluation
of expressions, the range-aware simplifier, linear forms, constant bounds and bound symbols."""

from bound.arith.analyzer import Analyzer
from bound.arith.interval import IntervalSet, eval_set
from bound.arith.intset import IntSet
from bound.arith.simplify import simplify

__all__ = ["Analyzer", "IntSet", "IntervalSet", "eval_set", "simplify"]
