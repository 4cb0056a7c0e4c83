"""Traversal of expressions: functor and mutator bases, structural equality, substitution."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import fields, replace
from typing import Any, Generic, TypeVar

from schedule.errors import InternalError
from schedule.expr import Expr, FloatImm, Reduce, Var
from schedule.itervar import IterVar, Range

R = TypeVar("R")


class ExprFunctor(Generic[R]):
    """Dispatch ``e`` to ``visit_<e.visit_name>``; other node types go to :meth:`visit_default`."""

    def __call__(self, e: Expr) -> R:
        return getattr(self, "visit_" + e.visit_name, self.visit_default)(e)

    def visit_default(self, e: Expr) -> R:
        raise InternalError(f"{type(self).__name__} has no visit_{e.visit_name}")


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}


def children(e: Expr) -> Iterator[Expr]:
    """The sub-expressions of *e* in TVM's visiting order (a Reduce's axis bounds first)."""
    if isinstance(e, Reduce):
        for iv in e.axis:
            if iv.dom is not None:
                yield iv.dom.min
                yield iv.dom.extent
        yield from e.source
        yield from e.init
        yield e.condition
        return
    names = _FIELD_NAMES.get(type(e))
    if names is None:
        names = _FIELD_NAMES[type(e)] = tuple(f.name for f in fields(e))
    for name in names:
        value = getattr(e, name)
        if isinstance(value, Expr):
            yield value
        elif isinstance(value, tuple):
            yield from (v for v in value if isinstance(v, Expr))


class ExprVisitor(ExprFunctor[None]):
    """Walk every node once per occurrence; override ``visit_<name>`` and call :meth:`visit_children`."""

    def visit_default(self, e: Expr) -> None:
        self.visit_children(e)

    def visit_children(self, e: Expr) -> None:
        for child in children(e):
            self(child)


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
        post_order_visit(e, lambda x: seen.setdefault(x, None) if isinstance(x, Var) else None)
    return list(seen)


class ExprMutator(ExprFunctor[Expr]):
    """Rebuild only what changed: returns *e* itself if no child changed."""

    def visit_default(self, e: Expr) -> Expr:
        changed: dict[str, Any] = {}
        for f in fields(e):
            old = getattr(e, f.name)
            if isinstance(old, Expr):
                new = self(old)
                if new is not old:
                    changed[f.name] = new
            elif isinstance(old, tuple) and old and all(isinstance(v, Expr) for v in old):
                new_items = tuple(self(v) for v in old)
                if any(n is not o for n, o in zip(new_items, old)):
                    changed[f.name] = new_items
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
    from schedule.arith import convert

    clean: dict[Var, Expr] = {}
    for k, v in vmap.items():
        key = k.var if isinstance(k, IterVar) else k
        if not isinstance(key, Var):
            raise TypeError(f"substitute: keys must be variables, not {type(k).__name__}")
        clean[key] = convert(v)
    return _Substitute(clean)(e) if clean else e


# ----------------------------------------------------------------------------- equality

def structural_equal(a: Any, b: Any) -> bool:
    """Whether *a* and *b* are the same tree.

    Variables, IterVars, tensors and operations compare by identity; two reducers compare
    up to the renaming of their own parameters.
    """
    return _equal(a, b, {}, set())


def _equal(a: Any, b: Any, binding: dict[Var, Var], same: set[tuple[int, int]]) -> bool:
    # *same* holds the pairs (of nodes of the two trees) already found equal outside any
    # reducer: trees that share sub-expressions compare in time proportional to their distinct nodes.
    if a is b:
        return True
    key = (id(a), id(b))
    if not binding and key in same:
        return True
    if not _equal_nodes(a, b, binding, same):
        return False
    if not binding:
        same.add(key)
    return True


def _equal_nodes(a: Any, b: Any, binding: dict[Var, Var], same: set[tuple[int, int]]) -> bool:
    if isinstance(a, Var) or isinstance(b, Var):
        return isinstance(a, Var) and binding.get(a) is b
    if isinstance(a, IterVar) or isinstance(b, IterVar):
        return isinstance(a, IterVar) and isinstance(b, IterVar) and _equal(a.var, b.var, binding, same)
    if type(a) is not type(b):
        return False
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_equal(x, y, binding, same) for x, y in zip(a, b))
    if isinstance(a, FloatImm):
        return a.dtype == b.dtype and (a.value == b.value or (a.value != a.value and b.value != b.value))
    if isinstance(a, Expr):
        return all(_equal(getattr(a, f.name), getattr(b, f.name), binding, same) for f in fields(a))
    from schedule.reduce import CommReducer

    if isinstance(a, CommReducer):
        if len(a.lhs) != len(b.lhs) or len(a.rhs) != len(b.rhs):
            return False
        inner = {**binding, **dict(zip(a.lhs, b.lhs)), **dict(zip(a.rhs, b.rhs))}
        return (_equal(a.result, b.result, inner, same)
                and _equal(a.identity_element, b.identity_element, binding, same))
    if isinstance(a, (str, int, float)):
        return a == b
    # Tensors compare by (operation, output index); operations and anything else by identity.
    return bool(a == b) if hasattr(a, "value_index") else False
