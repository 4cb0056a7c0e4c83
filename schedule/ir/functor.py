"""Traversal of expressions: functor and mutator bases, structural equality, substitution."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import fields, replace
from typing import Any, ClassVar, Generic, TypeVar

from schedule.base.errors import InternalError, ScheduleTypeError
from schedule.ir import expr as _expr
from schedule.ir.arith import convert
from schedule.ir.expr import CommReducer, Expr, FloatImm, Reduce, Var
from schedule.ir.itervar import IterVar, Range

R = TypeVar("R")


#: Trees higher than this are visited bottom up (see :class:`ExprFunctor`).
DEEP = 60


class ExprFunctor(Generic[R]):
    """Dispatch ``e`` to ``visit_<e.visit_name>``; other node types go to :meth:`visit_default`.

    Visitors recurse, but a tree deeper than :data:`DEEP` is visited bottom up first: its high
    nodes, children before parents, each result kept for its parent, so the recursion never
    goes deeper than about :data:`DEEP` whatever the tree's height. This holds for functors
    whose result depends only on the node; others set :attr:`bottom_up` to False.
    """

    bottom_up: ClassVar[bool] = True
    _bu_memo: dict[int, tuple[Expr, Any]] | None = None
    _bu_current: Expr | None = None

    def __call__(self, e: Expr) -> R:
        memo = self._bu_memo
        if memo is not None:
            hit = memo.get(id(e))
            if hit is not None and hit[0] is e:
                return hit[1]
        if self.bottom_up and e is not self._bu_current and e._height > DEEP:
            return self._visit_bottom_up(e)
        return getattr(self, "visit_" + e.visit_name, self.visit_default)(e)

    def _visit_bottom_up(self, e: Expr) -> R:
        outer = self._bu_memo is None
        memo: dict[int, tuple[Expr, Any]] = {} if outer else self._bu_memo  # type: ignore[assignment]
        saved = self._bu_current
        self._bu_memo = memo
        try:
            for x in self.bottom_up_order(e, memo):
                self._bu_current = x
                memo[id(x)] = (x, self(x))
            return memo[id(e)][1]
        finally:
            self._bu_current = saved
            if outer:
                del self._bu_memo

    def bottom_up_order(self, e: Expr, memo: dict[int, tuple[Expr, Any]]) -> list[Expr]:
        """The nodes of *e* visited first, children before parents, ending with *e*; a subclass
        may leave out nodes whose own results its parents never ask for."""
        return _post_order_above(e, DEEP // 2, memo)

    def visit_default(self, e: Expr) -> R:
        raise InternalError(f"{type(self).__name__} has no visit_{e.visit_name}")


def _post_order_above(e: Expr, height: int, done: dict[int, tuple[Expr, Any]]) -> list[Expr]:
    """The distinct nodes of *e* higher than *height* and not in *done*, children first."""
    return distinct_post_order(e, lambda c: c._height > height and not (id(c) in done and done[id(c)][0] is c))


def distinct_post_order(e: Expr, keep: Callable[[Expr], bool] | None = None) -> list[Expr]:
    """Each distinct node of *e* once, children before parents (shared nodes are not
    repeated), without recursion; with *keep*, only the nodes it keeps (and not below them)."""
    order: list[Expr] = []
    seen: set[int] = set()
    stack: list[tuple[Expr, bool]] = [(e, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            order.append(node)
            continue
        if id(node) in seen or (keep is not None and node is not e and not keep(node)):
            continue
        seen.add(id(node))
        stack.append((node, True))
        stack.extend((c, False) for c in children(node))
    return order


def height(e: Expr) -> int:
    """The number of levels of *e* (a leaf has 1), computed without recursion and cached."""
    stack = [e]
    while stack:
        x = stack[-1]
        if "_height" in x.__dict__:
            stack.pop()
            continue
        kids = list(children(x))
        pending = [c for c in kids if "_height" not in c.__dict__]
        if pending:
            stack.extend(pending)
            continue
        x.__dict__["_height"] = 1 + max((c.__dict__["_height"] for c in kids), default=0)
        stack.pop()
    return e.__dict__["_height"]


def node_count(e: Expr) -> int:
    """The number of nodes of *e* as a tree (its size as printed, roughly), without
    recursion; cached on each node, as expressions are immutable."""
    done = e.__dict__.get("_node_count")
    if done is not None:
        return done
    for x in distinct_post_order(e, lambda c: "_node_count" not in c.__dict__):
        if "_node_count" not in x.__dict__:
            x.__dict__["_node_count"] = 1 + sum(c.__dict__["_node_count"] for c in children(x))
    return e.__dict__["_node_count"]


def prepare_hashes(e: Expr) -> None:
    """Compute the structural hash of every node below *e*, children first (no recursion)."""
    stack = [(c, False) for c in children(e)]
    while stack:
        x, expanded = stack.pop()
        if "_structural_hash" in x.__dict__:
            continue
        if expanded:
            x._structural_hash  # noqa: B018 - caches it, its children being ready
            continue
        stack.append((x, True))
        stack.extend((c, False) for c in children(x) if "_structural_hash" not in c.__dict__)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def field_names(node: Any) -> tuple[str, ...]:
    """The dataclass field names of *node*'s type, looked up once per type."""
    names = _FIELD_NAMES.get(type(node))
    if names is None:
        names = _FIELD_NAMES[type(node)] = tuple(f.name for f in fields(node))
    return names


def children(e: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of *e* in TVM's visiting order (a Reduce's axis bounds first);
    cached on the node, as expressions are immutable."""
    done = e.__dict__.get("_children")
    if done is not None:
        return done
    if isinstance(e, Reduce):
        found: list[Expr] = []
        for iv in e.axis:
            if iv.dom is not None:
                found += (iv.dom.min, iv.dom.extent)
        found += (*e.source, *e.init, e.condition)
    else:
        found = []
        for name in field_names(e):
            value = getattr(e, name)
            if isinstance(value, Expr):
                found.append(value)
            elif isinstance(value, tuple):
                found += (v for v in value if isinstance(v, Expr))
    out = e.__dict__["_children"] = tuple(found)
    return out


class ExprVisitor(ExprFunctor[None]):
    """Walk every node once per occurrence; override ``visit_<name>`` and call :meth:`visit_children`."""

    bottom_up = False  # side effects happen once per occurrence

    def visit_default(self, e: Expr) -> None:
        self.visit_children(e)

    def visit_children(self, e: Expr) -> None:
        for child in children(e):
            self(child)


def fold(e: Expr, parts: Callable[[Expr], Sequence[Expr]], combine: Callable[[Expr, list[Any]], Any]) -> Any:
    """*combine* applied bottom up: each node's value from its own and its *parts*' values
    (a node met twice computed once); iterative, so any depth works."""
    done: dict[int, Any] = {}
    stack: list[tuple[Expr, bool]] = [(e, False)]
    while stack:
        x, expanded = stack.pop()
        if id(x) in done:
            continue
        inner = parts(x)
        if not expanded:
            stack.append((x, True))
            stack += [(c, False) for c in inner if id(c) not in done]
            continue
        done[id(x)] = combine(x, [done[id(c)] for c in inner])
    return done[id(e)]


def post_order_visit(e: Expr, fn: Callable[[Expr], None]) -> None:
    """Call *fn* on every node of *e*, children before parents."""
    stack: list[tuple[Expr, bool]] = [(e, False)]
    while stack:
        node, expanded = stack.pop()
        if expanded:
            fn(node)
            continue
        stack.append((node, True))
        stack.extend((c, False) for c in reversed(list(children(node))))


def free_vars(exprs: Iterable[Expr]) -> list[Var]:
    """The variables of *exprs* in order of first appearance."""
    seen: dict[Var, None] = {}
    for e in exprs:
        seen.update(dict.fromkeys(_vars_of(e)))
    return list(seen)


def _vars_of(e: Expr) -> tuple[Var, ...]:
    """The variables of *e* in order of first appearance, cached on each node (expressions
    are immutable, and bound inference asks for the same ones many times)."""
    got = e.__dict__.get("_free_vars")
    if got is not None:
        return got
    for x in distinct_post_order(e, lambda c: "_free_vars" not in c.__dict__):
        if "_free_vars" in x.__dict__:
            continue
        if isinstance(x, Var):
            found: tuple[Var, ...] = (x,)
        else:
            parts = [c.__dict__["_free_vars"] for c in children(x)]
            found = parts[0] if len(parts) == 1 else tuple(dict.fromkeys(v for p in parts for v in p))
        x.__dict__["_free_vars"] = found
    return e.__dict__["_free_vars"]


class ExprMutator(ExprFunctor[Expr]):
    """Rebuild only what changed: returns *e* itself if no child changed."""

    def visit_default(self, e: Expr, skip: tuple[str, ...] = ()) -> Expr:
        """*e* rebuilt from its mutated fields; the fields named in *skip* stay as they are."""
        changed: dict[str, Any] = {}
        for name in field_names(e):
            if name in skip:
                continue
            old = getattr(e, name)
            if isinstance(old, Expr):
                new = self(old)
                if new is not old:
                    changed[name] = new
            elif isinstance(old, tuple) and old and all(isinstance(v, Expr) for v in old):
                new_items = tuple(self(v) for v in old)
                if any(n is not o for n, o in zip(new_items, old)):
                    changed[name] = new_items
        return replace(e, **changed) if changed else e

    def visit_reduce(self, e: Reduce) -> Expr:
        axis = tuple(self._mutate_axis(iv) for iv in e.axis)
        source = tuple(self(s) for s in e.source)
        init = tuple(self(s) for s in e.init)
        condition = self(e.condition)
        combiner = self._mutate_combiner(e.combiner)
        if (all(a is b for a, b in zip(axis, e.axis)) and all(a is b for a, b in zip(source, e.source))
                and all(a is b for a, b in zip(init, e.init)) and condition is e.condition
                and combiner is e.combiner):
            return e
        return Reduce(combiner, source, axis, condition, e.value_index, init)

    def _mutate_combiner(self, c: Any) -> Any:
        """A combiner may use variables of the program besides its own (TVM's loop-dependent
        reducers): those are rewritten like any other expression."""
        result = tuple(self(x) for x in c.result)
        identity = tuple(self(x) for x in c.identity_element)
        if all(a is b for a, b in zip(result, c.result)) and all(a is b for a, b in zip(identity, c.identity_element)):
            return c
        return replace(c, result=result, identity_element=identity)

    def _mutate_axis(self, iv: IterVar) -> IterVar:
        if iv.dom is None:
            return iv
        lo, ext = self(iv.dom.min), self(iv.dom.extent)
        if lo is iv.dom.min and ext is iv.dom.extent:
            return iv
        return IterVar(Range.from_min_extent(lo, ext), iv.var, iv.iter_type, iv.thread_tag)


class _Substitute(ExprMutator):
    def __init__(self, vmap: Mapping[Var, Expr]) -> None:
        self._vmap = vmap

    def visit_var(self, e: Var) -> Expr:
        return self._vmap.get(e, e)


def substitute(e: Expr, vmap: Mapping[Any, Any]) -> Expr:
    """*e* with every variable in *vmap* replaced by its value.

    Keys are Vars or IterVars (standing for their var); values are expressions or Python scalars.
    """
    clean: dict[Var, Expr] = {}
    for k, v in vmap.items():
        key = k.var if isinstance(k, IterVar) else k
        if not isinstance(key, Var):
            raise ScheduleTypeError(f"substitute: keys must be variables, not {type(k).__name__}")
        clean[key] = convert(v)
    return _Substitute(clean)(e) if clean else e


# ----------------------------------------------------------------------------- equality

def structural_equal(a: Any, b: Any, map_free_vars: bool = False) -> bool:
    """Whether *a* and *b* are the same tree.

    Variables, IterVars, tensors and operations compare by identity; two reducers compare
    up to the renaming of their own parameters. With *map_free_vars*, the free variables of
    two expressions correspond in their order of first appearance (TVM's option).
    """
    binding: dict[Var, Var] = {}
    if map_free_vars and isinstance(a, Expr) and isinstance(b, Expr):
        left, right = free_vars([a]), free_vars([b])
        if len(left) != len(right):
            return False
        binding = {x: y for x, y in zip(left, right) if x is not y}
    return _equal(a, b, binding, set())


def _equal(a: Any, b: Any, binding: dict[Var, Var], same: set[tuple[int, int]]) -> bool:
    # *same* holds the pairs (of nodes of the two trees) already found equal outside any
    # reducer, so trees that share sub-expressions compare in time proportional to their
    # distinct nodes. Pairs are compared from an explicit stack: trees may be very deep.
    stack = [(a, b)]
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        key = (id(x), id(y))
        if not binding:
            if key in same:
                continue
            same.add(key)  # any difference found later ends the whole comparison
        pairs = _equal_nodes(x, y, binding, same)
        if pairs is None:
            return False
        stack.extend(pairs)
    return True


def _equal_nodes(a: Any, b: Any, binding: dict[Var, Var], same: set[tuple[int, int]]
                 ) -> list[tuple[Any, Any]] | None:
    """The pairs of children to compare next if *a* and *b* match at the top, else None."""
    if isinstance(a, Var) or isinstance(b, Var):
        return [] if isinstance(a, Var) and binding.get(a) is b else None
    if isinstance(a, IterVar) or isinstance(b, IterVar):
        return [(a.var, b.var)] if isinstance(a, IterVar) and isinstance(b, IterVar) else None
    if type(a) is not type(b):
        return None
    if isinstance(a, tuple):
        return list(zip(a, b)) if len(a) == len(b) else None
    if isinstance(a, FloatImm):
        ok = a.dtype == b.dtype and (a.value == b.value or (a.value != a.value and b.value != b.value))
        return [] if ok else None
    if isinstance(a, Expr):
        return [(getattr(a, name), getattr(b, name)) for name in field_names(a)]
    if isinstance(a, CommReducer):
        if len(a.lhs) != len(b.lhs) or len(a.rhs) != len(b.rhs):
            return None
        inner = {**binding, **dict(zip(a.lhs, b.lhs)), **dict(zip(a.rhs, b.rhs))}
        ok = (_equal(a.result, b.result, inner, same)
              and _equal(a.identity_element, b.identity_element, binding, same))
        return [] if ok else None
    if isinstance(a, (str, int, float)):
        return [] if a == b else None
    # Tensors compare by (operation, output index); operations and anything else by identity.
    return [] if (hasattr(a, "value_index") and bool(a == b)) else None


_expr.install("functor", sys.modules[__name__])  # the node classes' operators, hashing and text call here
