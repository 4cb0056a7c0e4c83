"""TVM's ``tvm.arith``: the ``Analyzer`` with TVM's methods (``const_int_bound``,
``modular_set``, ``canonical_simplify``, ``rewrite_simplify``, ``int_set``, ``update``,
``bind``, ``constraint_scope``, ``can_prove_equal``), ``ConstIntBound``, ``ModularSet``,
``IntervalSet``/``IntSet``, ``deduce_bound`` and ``detect_linear_equation``."""

from bound.arith.deduce import deduce_bound
from bound.arith.interval import IntervalSet
from bound.arith.linear_equation import detect_linear_equation
from bound.arith.modular import ModularSet
from tebound.tvm.arith import _ffi_api, analyzer, int_set, int_solver
from tebound.tvm.arith.analyzer import Analyzer, ConstIntBound
from tebound.tvm.arith.int_set import IntSet
from tebound.tvm.arith.int_solver import (
    IntConstraints,
    IntConstraintsTransform,
    solve_linear_equations,
    solve_linear_inequalities,
)
from tebound.tvm.arith.iter_map import (
    IterMapLevel,
    IterMapResult,
    detect_iter_map,
    iter_map_simplify,
    normalize_iter_map_to_expr,
    normalize_to_iter_sum,
)
from tebound.tvm.arith.iter_map_divide import inverse_affine_iter_map, subspace_divide
from tebound.tvm.arith.iter_map_expr import IterMapExpr, IterMark, IterSplitExpr, IterSumExpr
from tebound.tvm.arith.region_bound import (
    estimate_region_lower_bound,
    estimate_region_strict_bound,
    estimate_region_upper_bound,
)

__all__ = [
    "Analyzer", "ConstIntBound", "IntConstraints", "IntConstraintsTransform", "IntSet", "IntervalSet",
    "IterMapExpr", "IterMapLevel", "IterMapResult", "IterMark", "IterSplitExpr", "IterSumExpr", "ModularSet",
    "_ffi_api", "analyzer", "deduce_bound", "detect_iter_map", "detect_linear_equation",
    "estimate_region_lower_bound", "estimate_region_strict_bound", "estimate_region_upper_bound", "int_set",
    "int_solver", "inverse_affine_iter_map", "iter_map_simplify", "normalize_iter_map_to_expr",
    "normalize_to_iter_sum", "solve_linear_equations", "solve_linear_inequalities", "subspace_divide",
]
