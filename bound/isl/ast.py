"""Loops that visit every point of a set once: isl's AST generation, as plain data."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import islpy as isl

from bound.errors import NonAffineError
from bound.isl.names import IslNames
from bound.isl.sets import Builder, IslSet
from bound.isl.to_expr import ast_to_expr
from schedule import arith
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import free_vars, substitute

_DT = isl.dim_type


@dataclass(frozen=True)
class AstFor:
    """``for (var = lo; var < lo + extent * stride; var += stride) body``."""

    var: Var
    lo: Expr
    extent: Expr
    stride: int
    body: AstNode


@dataclass(frozen=True)
class AstIf:
    condition: Expr
    then: AstNode
    otherwise: AstNode | None


@dataclass(frozen=True)
class AstBlock:
    items: tuple[AstNode, ...]


@dataclass(frozen=True)
class AstPoint:
    """The statement at one point of the set: its coordinates."""

    coordinates: tuple[Expr, ...]


AstNode = AstFor | AstIf | AstBlock | AstPoint


def scan_loops(region: IslSet, context: Sequence[Expr], iterators: Sequence[Var],
               order: tuple[Sequence[Var], Sequence[Expr]] | None = None) -> AstNode:
    """Loops that visit every point of *region* once (isl's AST generation), under the
    parameter conditions *context*, their variables named by *iterators*.

    The loops run over the region's dimensions in order, or, with *order* ``(roots, values)``,
    over one value per iterator given in terms of the variables *roots* that stand for the
    region's dimensions (a stage's leaf loops as functions of its axes); the points' coordinates
    are then written in terms of the iterators.

    :raises NonAffineError: for a loop whose shape this translation does not know.
    """
    names = region.names
    s = region.isl
    dims = region.dim_names
    if order is None:
        schedule = isl.Map.identity(isl.Space.map_from_set(s.space))
    else:
        roots, values = order
        points = [Var(f"point{k}", v.dtype) for k, v in enumerate(roots)]  # the region's dimensions
        s = region.renamed([names[v] for v in points]).isl
        dims = [names[v] for v in points]
        values = [substitute(e, dict(zip(roots, points))) for e in values]
        leaves = [names.fresh("leaf") for _ in values]
        extra = [names[v] for v in free_vars(values) if names[v] not in dims and names[v] not in region.param_names]
        b = Builder(names, [*dims, *leaves], [*region.param_names, *extra])
        graph = b.where([], list(zip(leaves, values))).isl
        schedule = isl.Map.from_range(graph).move_dims(_DT.in_, 0, _DT.out, 0, len(dims))
        schedule = schedule.align_params(s.space)
        s = s.align_params(schedule.space)
    b = Builder(names, [], [s.get_dim_name(_DT.param, k) for k in range(s.dim(_DT.param))])
    where = b.universe()
    for g in context:
        try:
            where = where & b.condition(g)
        except NonAffineError:
            continue
    where = where.params().align_params(s.space)
    s = s.align_params(where.space).set_tuple_name("S")
    schedule = schedule.align_params(where.space).intersect_domain(s.reset_tuple_id()).set_tuple_name(_DT.in_, "S")
    schedule = schedule.reset_tuple_id(_DT.out)
    ids = isl.IdList.alloc(isl.DEFAULT_CONTEXT, len(iterators))
    for v in iterators:
        ids = ids.add(isl.Id(names[v]))
    build = isl.AstBuild.from_context(where).set_iterators(ids)
    node = build.node_from_schedule_map(isl.UnionMap.from_map(schedule))
    return _ast_node(node, names)


def _ast_node(node: isl.AstNode, names: IslNames) -> AstNode:
    kind = node.get_type()
    if kind == isl.ast_node_type.block:
        children = node.block_get_children()
        return AstBlock(tuple(_ast_node(children.get_at(k), names) for k in range(children.n_ast_node())))
    if kind == isl.ast_node_type.if_:
        otherwise = _ast_node(node.if_get_else_node(), names) if node.if_has_else_node() else None
        return AstIf(ast_to_expr(node.if_get_cond(), names), _ast_node(node.if_get_then_node(), names), otherwise)
    if kind == isl.ast_node_type.user:
        call = node.user_get_expr()
        return AstPoint(tuple(ast_to_expr(call.get_op_arg(k), names) for k in range(1, call.get_op_n_arg())))
    if kind == isl.ast_node_type.for_:
        var = names.var(node.for_get_iterator().get_id().get_name())
        lo = ast_to_expr(node.for_get_init(), names)
        stride = int(node.for_get_inc().get_val().to_python())
        cond = node.for_get_cond()
        op = str(cond.get_op_type()).rsplit(".", 1)[-1]
        lhs = cond.get_op_arg(0)
        if op not in ("le", "lt") or lhs.get_type() != isl.ast_expr_type.id or stride < 1:
            raise NonAffineError(f"isl loop of an unexpected shape: {cond.to_C_str()}")
        hi = ast_to_expr(cond.get_op_arg(1), names)
        last = hi if op == "le" else arith.sub(hi, 1)  # the largest value the loop may take
        extent = arith.floordiv(arith.add(arith.sub(last, lo), stride), stride)
        return AstFor(var, lo, extent, stride, _ast_node(node.for_get_body(), names))
    raise NonAffineError(f"isl AST node of type {kind}")
