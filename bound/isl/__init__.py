"""The only door to isl: expressions to isl sets and piecewise affine functions, and back.

Quasi-affine expressions (``+``, ``-``, multiplication by a constant, ``floordiv``/``floormod``
/truncating division by a positive constant, ``min``, ``max``, ``select`` on affine
conditions) convert both ways; anything else raises :class:`~bound.errors.NonAffineError`,
which callers catch to fall back on intervals. Everything is keyed by name: :class:`IslNames`
gives each variable (by identity) a unique isl-safe name. Only this package imports islpy.
"""

from bound.isl.ast import AstBlock, AstFor, AstIf, AstNode, AstPoint, scan_loops
from bound.isl.names import IslNames, make_space
from bound.isl.relations import (
    AffTerms,
    aff_terms,
    relation_is_empty,
    reversed_functions,
    same_relation,
    set_constraints,
    single_valued_function,
)
from bound.isl.sets import Builder, IslSet, one_to_one
from bound.isl.to_expr import aff_to_expr, ast_to_expr, dim_bounds, pw_aff_to_expr, set_to_condition

__all__ = [
    "AffTerms", "AstBlock", "AstFor", "AstIf", "AstNode", "AstPoint", "Builder", "IslNames", "IslSet",
    "aff_terms", "aff_to_expr", "ast_to_expr", "dim_bounds", "make_space", "one_to_one", "pw_aff_to_expr",
    "relation_is_empty", "reversed_functions", "same_relation", "scan_loops", "set_constraints",
    "set_to_condition", "single_valued_function",
]
