"""TVM's ``subspace_divide`` (each binding as ``outer * extent(inner) + inner`` for a chosen set
of inner iterators) and ``inverse_affine_iter_map`` (the input iterators from the outputs of
an iterator map)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from schedule.ir import arith
from schedule.ir.arith import convert
from schedule.ir.expr import Expr, Var
from tebound.tvm.arith.analyzer import Analyzer
from tebound.tvm.arith.iter_map import _iters, _sane, detect_iter_map
from tebound.tvm.arith.iter_map_expr import IterMapExpr, IterMark, IterSplitExpr, IterSumExpr, is_one, is_zero, to_expr
from tebound.tvm.arith.iter_map_rewriter import SURJECTIVE, Proofs, collect_splits


def _zero_sum(dtype: str = "int32") -> IterSumExpr:
    return IterSumExpr((), arith.const(0, dtype))


@dataclass
class _Division:
    outer: IterMapExpr
    outer_extent: Expr
    inner: IterMapExpr
    inner_extent: Expr
    kind: str = "mixed"  # "inner", "outer" or "mixed"

    @staticmethod
    def inner_only(it: IterMapExpr, extent: Expr) -> _Division:
        return _Division(_zero_sum(it.dtype), arith.const(1, it.dtype), it, extent, "inner")

    @staticmethod
    def outer_only(it: IterMapExpr, extent: Expr) -> _Division:
        return _Division(it, extent, _zero_sum(it.dtype), arith.const(1, it.dtype), "outer")

    @staticmethod
    def failure() -> _Division:
        zero = arith.const(0)
        return _Division(_zero_sum(), zero, _zero_sum(), zero)


def _as_split(e: IterMapExpr, extent: Expr) -> IterSplitExpr:
    return e if isinstance(e, IterSplitExpr) else IterSplitExpr(IterMark(e, extent))


def _mark_of(args: list[IterSplitExpr], base: Expr) -> IterMark:
    res, extent = [], arith.const(1, base.dtype)
    for a in args:
        a = replace(a, scale=extent)
        extent = arith.mul(extent, a.extent)
        res.append(a)
    return IterMark(IterSumExpr(tuple(res[::-1]), base), extent)


class SubspaceDivider:
    """Divides iterator sums into the parts over *sub_iters* (inner) and the rest (outer)."""

    def __init__(self, proofs: Proofs, mark_splits: dict[int, list[IterSplitExpr]], sub_iters: set[Var]) -> None:
        self.p = proofs
        self.mark_splits = mark_splits
        self.sub_iters = sub_iters
        self.unresolved = 0
        self.split_map: dict[int, tuple[IterSplitExpr, _Division]] = {}
        self.outer_preds: Expr = arith.const(True, "bool")
        self.inner_preds: Expr = arith.const(True, "bool")

    def fail(self) -> _Division:
        self.unresolved += 1
        return _Division.failure()

    def divide_sum(self, expr: IterSumExpr, mark_extent: Expr) -> _Division:
        dtype = expr.dtype
        if not expr.args:
            one = arith.const(1, dtype)
            return _Division(_zero_sum(dtype), one, IterSumExpr((), expr.base), one)
        if len(expr.args) == 1:
            if not is_one(expr.args[0].scale):
                return self.fail()
            res = self.divide_split(expr.args[0])
            if not is_zero(expr.base):
                inner = res.inner
                if isinstance(inner, IterSplitExpr):
                    res = replace(res, inner=IterSumExpr((inner,), expr.base))
                else:
                    res = replace(res, inner=IterSumExpr(inner.args, arith.add(inner.base, expr.base)))
            return res
        extent: Expr = arith.const(1, dtype)
        outer_args: list[IterSplitExpr] = []
        inner_args: list[IterSplitExpr] = []
        inner, scale_is_one = True, False
        for arg in reversed(expr.args):
            if is_one(arg.scale):
                scale_is_one = True
            d = self.divide_split(arg)
            if d.kind == "inner":
                if not inner:
                    return self.fail()
                new_arg = _as_split(d.inner, d.inner_extent)
                inner_args.append(new_arg)
            elif d.kind == "outer":
                new_arg = _as_split(d.outer, d.outer_extent)
                outer_args.append(new_arg)
                inner = False
            else:
                return self.fail()
            extent = arith.mul(extent, new_arg.extent)
        if not scale_is_one:
            return self.fail()
        need_predicate = not self.p.equal(extent, mark_extent)
        outer_mark = _mark_of(outer_args, arith.const(0, dtype))
        inner_mark = _mark_of(inner_args, expr.base)
        if need_predicate:
            if not inner_args:
                self.outer_preds = arith.logical_and(self.outer_preds,
                                                     arith.lt(to_expr(outer_mark.source, self.p.an), mark_extent))
                return _Division.outer_only(outer_mark.source, mark_extent)
            if not outer_args:
                self.inner_preds = arith.logical_and(self.inner_preds,
                                                     arith.lt(to_expr(inner_mark.source, self.p.an), mark_extent))
                return _Division.inner_only(inner_mark.source, mark_extent)
            return self.fail()
        return _Division(outer_mark.source, outer_mark.extent, inner_mark.source, inner_mark.extent)

    def divide_split(self, expr: IterSplitExpr) -> _Division:
        hit = self.split_map.get(id(expr))
        if hit is not None:
            return hit[1]
        splits = self.mark_splits[id(expr.source)]
        src = expr.source.source
        if isinstance(src, Var):
            inner = src in self.sub_iters
            for s in splits:
                d = _Division.inner_only(s, s.extent) if inner else _Division.outer_only(s, s.extent)
                self.split_map[id(s)] = (s, d)
        elif isinstance(src, IterSumExpr):
            md = self.divide_sum(src, expr.source.extent)
            if len(splits) == 1:
                return md
            outer_mark = IterMark(md.outer, md.outer_extent)
            inner_mark = IterMark(md.inner, md.inner_extent)
            boundary = md.kind == "outer"
            used = [False] * len(splits)
            inner_iters: list[IterSplitExpr] = []
            outer_iters: list[IterSplitExpr] = []
            expected: Expr = arith.const(1, src.dtype)
            for _ in range(len(splits)):
                j = next((k for k in range(len(splits)) if not used[k] and self.p.equal(splits[k].lower_factor,
                                                                                        expected)), len(splits))
                if j == len(splits):
                    return self.fail()
                used[j] = True
                (outer_iters if boundary else inner_iters).append(splits[j])
                expected = arith.mul(expected, splits[j].extent)
                if self.p.equal(expected, md.inner_extent):
                    boundary = True
            if not boundary:
                return self.fail()
            for it in inner_iters:
                self.split_map[id(it)] = (it, _Division.inner_only(replace(it, source=inner_mark), it.extent))
            for it in outer_iters:
                new = replace(it, source=outer_mark, lower_factor=arith.floordiv(it.lower_factor,
                                                                                 outer_iters[0].lower_factor))
                self.split_map[id(it)] = (it, _Division.outer_only(new, it.extent))
        else:
            return self.fail()
        return self.split_map[id(expr)][1]


def subspace_divide(bindings: Sequence[Any], input_iters: Any, sub_iters: Sequence[Var], predicate: Any = True,
                    check_level: Any = SURJECTIVE, simplify_trivial_iterators: bool = True) -> list[list[IterMark]]:
    """Each binding as ``[outer mark, inner mark]``, *sub_iters* the inner iterators, then the
    outer and inner predicates as the last pair; empty when the bindings cannot be divided."""
    iters = _iters(input_iters)
    if not _sane(iters):
        return []
    res = detect_iter_map(bindings, iters, predicate, check_level, simplify_trivial_iterators)
    if not res.indices:
        return []
    _, mark_splits = collect_splits(res.indices)
    divider = SubspaceDivider(Proofs(Analyzer()), mark_splits, set(sub_iters))
    out: list[list[IterMark]] = []
    for expr in res.indices:
        d = divider.divide_sum(expr, arith.const(0, expr.dtype))
        if divider.unresolved:
            return []
        out.append([IterMark(d.outer, d.outer_extent), IterMark(d.inner, d.inner_extent)])
    out.append([IterMark(_zero_sum(), divider.outer_preds), IterMark(_zero_sum(), divider.inner_preds)])
    return out


def inverse_affine_iter_map(iter_map: Sequence[IterSumExpr], outputs: Sequence[Any]) -> dict[Var, Expr]:
    """Each input iterator of *iter_map* (sums detected by ``detect_iter_map``) written in the
    *outputs* the sums take (TVM's ``InverseAffineIterMap``)."""
    if len(iter_map) != len(outputs):
        raise ValueError(f"inverse_affine_iter_map: {len(iter_map)} sums but {len(outputs)} outputs")
    p = Proofs(Analyzer())
    order: list[IterMapExpr] = []
    seen: set[int] = set()
    for root in iter_map:
        stack: list[tuple[IterMapExpr, bool]] = [(root, False)]
        while stack:
            node, done = stack.pop()
            if done:
                order.append(node)
                continue
            if id(node) in seen:
                continue
            seen.add(id(node))
            stack.append((node, True))
            if isinstance(node, IterSumExpr):
                stack += [(c, False) for c in reversed(node.args)]
            elif isinstance(node.source.source, IterMapExpr):
                stack.append((node.source.source, False))
    order.reverse()
    backprop: dict[int, Expr] = {id(n): arith.const(0) for n in order}
    for e, out in zip(iter_map, outputs):
        backprop[id(e)] = convert(out)
    inverse: dict[Var, Expr] = {}
    for node in order:
        if isinstance(node, IterSumExpr):
            value = arith.sub(backprop[id(node)], node.base)
            if len(node.args) == 1:
                src = node.args[0]
                if not (p.equal(src.scale, 1) or p.equal(src.scale, -1)):
                    raise ValueError(f"inverse_affine_iter_map: the scale {src.scale} of {node} is not 1 or -1")
                backprop[id(src)] = arith.mul(arith.add(backprop[id(src)], value), src.scale)
                continue
            expected = node.args[-1].scale if node.args else None
            for a in reversed(node.args):
                if not p.equal(a.scale, expected):
                    raise ValueError(f"inverse_affine_iter_map: {node} is not a fusion of its splits")
                expected = arith.mul(expected, a.extent)
            for i in range(len(node.args), 0, -1):
                split = node.args[i - 1]
                prop = arith.floordiv(value, split.scale)
                if i > 1:
                    prop = arith.floormod(prop, split.extent)
                backprop[id(split)] = arith.add(backprop[id(split)], prop)
        else:
            value = arith.mul(backprop[id(node)], node.lower_factor)
            src = node.source.source
            if isinstance(src, IterSumExpr):
                backprop[id(src)] = arith.add(backprop.get(id(src), arith.const(0)), value)
            else:
                inverse[src] = arith.add(inverse[src], value) if src in inverse else value
    return inverse


__all__ = ["inverse_affine_iter_map", "subspace_divide"]
