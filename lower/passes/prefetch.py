"""Prefetch hints: the region a ``prefetch_scope`` asks for, and the calls that fetch it.

``s[B].prefetch(A, x, k)`` marks each iteration of loop ``x``. :func:`inject_prefetch`
turns the mark into the box of ``A`` that iteration ``x + k`` reads (the loops inside ``x``
relaxed), as TVM's InjectPrefetch; flattening then fetches that box one cache line at a time
with ``prefetch(address_of(A[...]), 0, 3, 1)`` (:func:`prefetch_calls`). A prefetch computes
nothing: the Python backend skips it.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from typing import Any

from bound import IntervalSet, eval_set, simplify
from bound.arith.interval import union
from lower.ir.stmt import AttrStmt, Evaluate, For, ForKind, Load, Prefetch, Stmt, seq
from lower.ir.stmt_functor import StmtMutator, StmtVisitor
from schedule import arith
from schedule.ir.dtype import bits
from schedule.ir.expr import Call, Expr, ProducerLoad, Var
from schedule.ir.functor import post_order_visit, substitute
from schedule.ir.itervar import IterVar, Range
from schedule.operation.tensor import Tensor

#: Bytes fetched by one prefetch (a cache line).
CACHE_LINE = 64


class _Inject(StmtMutator):
    def __init__(self) -> None:
        self.loops: list[For] = []

    def visit_for(self, s: For) -> Generator[Any, Any, Stmt]:
        self.loops.append(s)
        try:
            return (yield from self.visit_default(s))
        finally:
            self.loops.pop()

    def visit_attr_stmt(self, s: AttrStmt) -> Generator[Any, Any, Stmt]:
        if s.key != "prefetch_scope":
            return (yield from self.visit_default(s))
        body = yield s.body
        if not self.loops:  # the loop vanished (extent 1): nothing ahead to fetch
            return body
        loop = self.loops[-1]
        # Evaluated at a stand-in of the loop's variable, then moved ahead.
        ahead = Var(loop.loop_var.name + ".ahead", loop.loop_var.dtype)
        region = _touched(body, s.node, {loop.loop_var: IntervalSet.point(ahead)})
        if region is None:
            return body
        later = {ahead: arith.add(loop.loop_var, s.value)}
        moved = tuple(Range.from_min_extent(substitute(r.min, later), substitute(r.extent, later)) for r in region)
        return seq(Prefetch(s.node, moved), body)


class _Touched(StmtVisitor):
    """The sets each dimension of *tensor* is read over, loops relaxed to their ranges."""

    def __init__(self, tensor: Tensor, dom: dict[Var, IntervalSet]) -> None:
        self.tensor, self.dom = tensor, dom
        self.sets: list[list[IntervalSet]] = [[] for _ in tensor.shape]

    def visit_for(self, s: For) -> Any:
        self._relax(s.loop_var, s.min, s.extent)
        return self.visit_default(s)

    def visit_attr_stmt(self, s: AttrStmt) -> Any:
        if isinstance(s.node, IterVar) and s.key in ("thread_extent", "virtual_thread"):
            self._relax(s.node.var, arith.const(0, s.value.dtype), s.value)
        return self.visit_default(s)

    def _relax(self, var: Var, lo: Expr, extent: Expr) -> None:
        low = eval_set(lo, self.dom).min_value
        high = eval_set(arith.sub(arith.add(lo, extent), 1), self.dom).max_value
        self.dom[var] = IntervalSet(low, high)

    def visit_expr(self, e: Expr) -> None:
        def read(x: Expr) -> None:
            if isinstance(x, ProducerLoad) and x.producer == self.tensor:
                for d, index in enumerate(x.indices):
                    self.sets[d].append(eval_set(index, self.dom))
        post_order_visit(e, read)


def _touched(body: Stmt, tensor: Tensor, dom: dict[Var, IntervalSet]) -> list[Range] | None:
    visitor = _Touched(tensor, dict(dom))
    visitor(body)
    region = []
    for sets in visitor.sets:
        if not sets:
            return None
        s = union(sets)
        if not (s.has_lower_bound() and s.has_upper_bound()):
            return None
        region.append(Range.from_min_extent(simplify(s.min_value),
                                            simplify(arith.add(arith.sub(s.max_value, s.min_value), 1))))
    return region


def has_prefetch(stages: Sequence[Any]) -> bool:
    """Whether any of *stages* asks for a prefetch."""
    return any(attr.prefetch_data for st in stages for attr in st.iter_var_attrs.values())


def inject_prefetch(stmt: Stmt) -> Stmt:
    """*stmt* with each ``prefetch_scope`` mark replaced by the Prefetch it asks for."""
    return _Inject()(stmt)


def prefetch_calls(p: Prefetch, load: Callable[[list[Expr]], Load]) -> Stmt:
    """Loops fetching the box of *p* a cache line at a time: the innermost dimensions that fit
    in a line together are fetched by one call (TVM's StorageFlatten of a Prefetch)."""
    shape = p.tensor.shape
    count = max(CACHE_LINE // max(bits(p.tensor.dtype) // 8, 1), 1)
    block, start = 1, len(shape) - 1
    while start > 0:
        n = arith.value_of(shape[start])
        if n is None or block * n > count:
            break
        block *= int(n)
        start -= 1
    stride = max(count // block, 1)
    loops = [Var(f"prefetch.{p.tensor.name}.{d}") for d in range(start + 1)]
    indices: list[Expr] = []
    for d, r in enumerate(p.bounds):
        if d < start:
            indices.append(arith.add(loops[d], r.min))
        elif d == start:
            indices.append(arith.add(r.min, arith.mul(loops[d], stride)))
        else:
            indices.append(r.min)
    address = Call("handle", "address_of", (load(indices),))
    body: Stmt = Evaluate(Call(p.tensor.dtype, "prefetch", (address, arith.const(0), arith.const(3), arith.const(1))))
    lines = arith.add(arith.floordiv(arith.sub(p.bounds[start].extent, 1), stride), 1)
    body = For(loops[start], arith.const(0), lines, ForKind.SERIAL, body)
    for d in reversed(range(start)):
        body = For(loops[d], arith.const(0), p.bounds[d].extent, ForKind.SERIAL, body)
    return body
