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

__all__ = ["Analyzer", "ConstIntBound", "IntConstraints", "IntConstraintsTransform", "IntSet", "IntervalSet",
           "ModularSet", "_ffi_api", "analyzer", "deduce_bound", "detect_linear_equation", "int_set", "int_solver",
           "solve_linear_equations", "solve_linear_inequalities"]
