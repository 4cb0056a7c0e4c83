"""The iterations of a loop nest as weighted states, walked a loop at a time.

A stage deep in a compute_at chain runs a number of times exponential in the depth of the
chain, yet its region depends on few values: the loops of its consumer and the bounds that
stand for everything further out (exact mode's named bounds, :mod:`bound.arith.symbols`; in
faithful mode, the sub-expressions that only outer loops determine). :class:`NestWalk` binds
the loops outermost first and, after each, keeps only the distinct values of what is still
needed, each with the number of iterations that reach it. The cost is the number of distinct
states, not the number of iterations.
"""

from __future__ import annotations

from collections import ChainMap
from collections.abc import Mapping, Sequence

import numpy as np

from bound.report.vector_eval import column, evaluate_node
from schedule import arith
from schedule.ir.expr import Add, Expr, IntImm, Sub, Var
from schedule.ir.functor import ExprMutator, children, distinct_post_order, free_vars
from schedule.ir.itervar import Range

_SAFE = 2 ** 62  # above this, counts switch to Python integers


class NestWalk:
    """Distinct states of a loop nest, each with its multiplicity (see :func:`walk`).

    Every sub-expression of the loops' ranges and of the targets (names from *lets* stand for
    their definitions) becomes known after some loop, its *depth*, and stays needed until its
    last reader is known. A state holds exactly the values known and still needed, so states
    that differ only in how they reached the same values merge.
    """

    def __init__(self, loops: Sequence[tuple[Var, Range]], lets: Mapping[Var, Expr],
                 targets: Sequence[Expr], group: tuple[int, Var] | None = None) -> None:
        self._lets = dict(lets)
        depth_of_var = {v: k for k, (v, _) in enumerate(loops)}
        if group is not None:
            depth_of_var[group[1]] = group[0] - 1
        self._rewrite = _Reassociate(depth_of_var, self._lets)
        ranges = self._rewrite.all([e for _, r in loops for e in (r.min, r.extent)])
        self.targets = self._rewrite.all(targets)
        self._loops = [(v, ranges[2 * k], ranges[2 * k + 1]) for k, (v, _) in enumerate(loops)]
        self._group = group
        self._plan(depth_of_var)
        self.size = 1
        self.columns: dict[int, np.ndarray] = {}
        self.weight = np.ones(1, dtype=np.int64)
        self.group_weight = self.weight

    # -- the plan: when each node becomes known, and until when it is read ----------------

    def _kids(self, x: Expr) -> list[Expr]:
        if isinstance(x, Var):
            return [self._lets[x]] if x in self._lets else []
        return list(children(x))

    def _plan(self, depth_of_var: Mapping[Var, int]) -> None:
        n = len(self._loops)
        roots: list[tuple[Expr, int]] = [(e, k) for k, (_, lo, ext) in enumerate(self._loops) for e in (lo, ext)]
        roots += [(e, n) for e in self.targets]
        order: list[Expr] = []
        seen: set[int] = set()
        stack: list[tuple[Expr, bool]] = [(e, False) for e, _ in roots]
        while stack:  # distinct nodes, children first
            x, expanded = stack.pop()
            if expanded:
                order.append(x)
                continue
            if id(x) in seen:
                continue
            seen.add(id(x))
            stack.append((x, True))
            stack.extend((c, False) for c in self._kids(x) if id(c) not in seen)
        depth: dict[int, int] = {}
        release: dict[int, int] = {}
        for x in order:
            kids = self._kids(x)
            if isinstance(x, Var) and not kids:
                if x not in depth_of_var:
                    raise KeyError(f"no value for variable '{x.name}'")
                depth[id(x)] = depth_of_var[x]
            else:
                depth[id(x)] = max((depth[id(c)] for c in kids), default=-1)
            for c in kids:
                release[id(c)] = max(release.get(id(c), -1), depth[id(x)])
        for e, k in roots:
            release[id(e)] = max(release.get(id(e), -1), k)
        self._consts = {id(x): evaluate_node(x, {}, 1) for x in order if isinstance(x, IntImm)}
        self._read = {id(x) for x in order}
        self._drop_at: dict[int, list[int]] = {}
        for x in order:
            if not isinstance(x, IntImm):
                self._drop_at.setdefault(release.get(id(x), depth[id(x)]), []).append(id(x))
        # per step (-1: before any loop), the nodes that become known, children first
        self._entering: dict[int, list[Expr]] = {}
        for x in order:
            if not isinstance(x, IntImm) and not (isinstance(x, Var) and x in depth_of_var):
                self._entering.setdefault(depth[id(x)], []).append(x)

    # -- walking ---------------------------------------------------------------------------

    def run(self) -> NestWalk:
        self._step(-1)
        for k, (v, lo, ext) in enumerate(self._loops):
            self._bind(v, lo, ext)
            self._step(k)
        return self

    def _value(self, e: Expr) -> np.ndarray:
        if isinstance(e, IntImm):
            return column(np.int64(e.value), self.size)
        return column(self.columns[id(e)], self.size)

    def _bind(self, v: Var, lo_expr: Expr, extent_expr: Expr) -> None:
        lo, extent = self._value(lo_expr), self._value(extent_expr)
        extent = np.maximum(extent, 0).astype(np.int64)
        if self.weight.dtype != object and int(self.weight.max(initial=0)) * int(extent.max(initial=0) or 1) >= _SAFE:
            self.weight = self.weight.astype(object)
        if id(v) not in self._read:  # nothing reads the loop: its iterations only multiply
            keep = extent > 0
            self.columns = {k: column(c, self.size)[keep] for k, c in self.columns.items()}
            self.weight = self.weight[keep] * extent[keep]
            self.size = int(keep.sum())
            return
        rows = np.repeat(np.arange(self.size), extent)
        starts = np.cumsum(extent) - extent
        offsets = np.arange(len(rows)) - np.repeat(starts, extent)
        self.columns = {k: column(c, self.size)[rows] for k, c in self.columns.items()}
        self.columns[id(v)] = np.repeat(lo, extent) + offsets
        self.weight = self.weight[rows]
        self.size = len(rows)

    def _step(self, k: int) -> None:
        """After loop *k*: compute what it makes known, forget what is no longer read, merge."""
        values = ChainMap(self.columns, self._consts)
        for x in self._entering.get(k, []):
            value = values[id(self._kids(x)[0])] if isinstance(x, Var) else evaluate_node(x, values, self.size)
            self.columns[id(x)] = value  # dropped below if nothing after loop k reads it
        for i in self._drop_at.get(k, ()):
            self.columns.pop(i, None)
        self.columns = {i: column(c, self.size) for i, c in self.columns.items()}
        if self._group is not None and k == self._group[0] - 1:
            self.columns[id(self._group[1])] = np.arange(self.size)
            self.group_weight = self.weight.copy()
        self._merge()

    def _merge(self) -> None:
        if self.size == 0:
            return
        if not self.columns:
            self.weight = np.array([sum(self.weight.tolist())], dtype=self.weight.dtype)
            self.size = 1
            return
        keys = list(self.columns)
        table = np.stack([self.columns[i] for i in keys], axis=1)
        unique, inverse = np.unique(table, axis=0, return_inverse=True)
        weight = np.zeros(len(unique), dtype=self.weight.dtype)
        np.add.at(weight, inverse.reshape(-1), self.weight)
        self.columns = {i: unique[:, n].copy() for n, i in enumerate(keys)}
        self.weight, self.size = weight, len(unique)

    # -- results ---------------------------------------------------------------------------

    def total(self) -> int:
        return int(sum(self.weight.tolist()))

    def evaluate(self, targets: Sequence[Expr]) -> list[np.ndarray]:
        """The value of each of the walk's targets in each state."""
        return [self._value(e) for e in self._rewrite.all(targets)]

    def values_of(self, v: Var) -> np.ndarray:
        return self._value(v)


class _Reassociate(ExprMutator):
    """Sums with their terms ordered by how deep in the nest they become known (outer first),
    so that the part of a sum the outer loops determine is one sub-expression."""

    def __init__(self, depth: Mapping[Var, int], lets: Mapping[Var, Expr]) -> None:
        self._depth = dict(depth)
        self._lets = lets
        self._done: dict[int, tuple[Expr, Expr]] = {}
        self._node_depth: dict[int, int] = {}
        self._inputs: dict[Var, list[Var]] = {}
        self._alive: list[Expr] = []  # keeps the nodes of _node_depth alive

    def all(self, exprs: Sequence[Expr]) -> list[Expr]:
        """Each expression rewritten; the same expression always gives the same object."""
        out = []
        for e in exprs:
            hit = self._done.get(id(e))
            if hit is None or hit[0] is not e:
                hit = self._done[id(e)] = (e, self(e))
                self._done.setdefault(id(hit[1]), (hit[1], hit[1]))  # rewritten once only
            out.append(hit[1])
        return out

    def depth(self, v: Var) -> int:
        """How deep in the nest *v* becomes known (a name: its latest input)."""
        got = self._depth.get(v)
        if got is not None:
            return got
        if v not in self._lets:
            return -1
        self._depth[v] = self.node_depth(self._lets[v])
        return self._depth[v]

    def node_depth(self, e: Expr) -> int:
        """How deep in the nest *e* becomes known."""
        memo = self._node_depth
        for x in distinct_post_order(e, lambda c: id(c) not in memo):
            if id(x) in memo:
                continue
            if isinstance(x, Var):
                memo[id(x)] = self.depth(x) if x in self._depth or x not in self._lets else self._name_depth(x)
            else:
                memo[id(x)] = max((memo[id(c)] for c in children(x)), default=-1)
            self._alive.append(x)
        return memo[id(e)]

    def _name_depth(self, v: Var) -> int:
        """:meth:`depth` of a name, its definitions' names first (no recursion)."""
        pending = [v]
        while pending:
            x = pending[-1]
            inputs = self._inputs.get(x)
            if inputs is None:
                inputs = self._inputs[x] = free_vars([self._lets[x]])
            waiting = [w for w in inputs if w in self._lets and w not in self._depth]
            if waiting:
                pending.extend(waiting)
                continue
            pending.pop()
            if x not in self._depth:
                self._depth[x] = max((self._depth.get(w, -1) for w in inputs), default=-1)
        return self._depth[v]

    def visit_add(self, e: Add) -> Expr:
        return self._sum(e)

    def visit_sub(self, e: Sub) -> Expr:
        return self._sum(e)

    def _sum(self, e: Expr) -> Expr:
        terms: list[tuple[int, Expr]] = []
        stack: list[tuple[Expr, int]] = [(e, 1)]
        while stack:
            x, sign = stack.pop()
            if isinstance(x, Add):
                stack.extend([(x.b, sign), (x.a, sign)])
            elif isinstance(x, Sub):
                stack.extend([(x.b, -sign), (x.a, sign)])
            else:
                terms.append((sign, self(x)))
        terms.sort(key=lambda t: self.node_depth(t[1]))
        sign, out = terms[0]
        if sign < 0:
            out = arith.sub(arith.const(0, out.dtype), out)
        for sign, t in terms[1:]:
            out = (arith.add if sign > 0 else arith.sub)(out, t)
        return out


def walk(loops: Sequence[tuple[Var, Range]], lets: Mapping[Var, Expr], targets: Sequence[Expr],
         group: tuple[int, Var] | None = None) -> NestWalk:
    """The distinct states of *loops* (outermost first, ranges in outer loops and the names of
    *lets*) that *targets* can tell apart, with the number of iterations reaching each.

    With *group* ``(k, var)``, each state after the first k loops is numbered in column *var*
    (kept to the end) and :attr:`NestWalk.group_weight` holds its multiplicity then.
    """
    if group is not None:
        targets = [*targets, group[1]]
    return NestWalk(loops, lets, targets, group).run()
