"""Traversal of statements: functor, visitor and mutator bases (expressions through a hook).

Loop nests and pipelines may be thousands of statements deep, so traversals do not recurse
on Python's stack: a ``visit_<name>`` method that needs a child's result is a generator that
yields the child (``body = yield s.body``), and :func:`schedule.base.recursion.drive` visits it on an
explicit stack. A visit method that needs no child may stay an ordinary function.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator, Sequence
from dataclasses import replace
from typing import Any, Generic, TypeVar

from lower.ir.stmt import BufferView, Stmt, Store
from schedule.base.errors import InternalError
from schedule.base.recursion import run
from schedule.ir.expr import Expr
from schedule.ir.functor import field_names
from schedule.ir.functor import post_order_visit as expr_post_order_visit
from schedule.ir.itervar import Range

R = TypeVar("R")


class StmtFunctor(Generic[R]):
    """Dispatch ``s`` to ``visit_<s.visit_name>``; others go to :meth:`visit_default`."""

    def __call__(self, s: Stmt) -> R:
        return run(self.dispatch(s), self.dispatch)

    def dispatch(self, s: Stmt) -> Any:
        """The result of visiting *s*, or a generator computing it (run by the caller)."""
        return getattr(self, "visit_" + s.visit_name, self.visit_default)(s)

    def visit_default(self, s: Stmt) -> Any:
        raise InternalError(f"{type(self).__name__} has no visit_{s.visit_name}")


class StmtVisitor(StmtFunctor[None]):
    """Visit every statement; :meth:`visit_expr` sees each expression field."""

    def visit_default(self, s: Stmt) -> Generator[Any, Any, None]:
        for name in field_names(s):
            value = getattr(s, name)
            for item in value if isinstance(value, tuple) else (value,):
                if isinstance(item, Stmt):
                    yield item
                elif isinstance(item, Expr):
                    self.visit_expr(item)
                elif isinstance(item, Range):
                    self.visit_expr(item.min)
                    self.visit_expr(item.extent)

    def visit_expr(self, e: Expr) -> None:
        pass


class StmtMutator(StmtFunctor[Stmt]):
    """Rebuild only what changed; :meth:`mutate_expr` rewrites each expression field."""

    def visit_default(self, s: Stmt) -> Generator[Any, Any, Stmt]:
        changed: dict[str, Any] = {}
        for name in field_names(s):
            old = getattr(s, name)
            new = yield from self._field(old)
            if new is not old:
                changed[name] = new
        return replace(s, **changed) if changed else s  # type: ignore[type-var]

    def _field(self, value: Any) -> Generator[Any, Any, Any]:
        if isinstance(value, Stmt):
            return (yield value)
        if isinstance(value, Expr):
            return self.mutate_expr(value)
        if isinstance(value, Range):
            lo, ext = self.mutate_expr(value.min), self.mutate_expr(value.extent)
            return value if lo is value.min and ext is value.extent else Range.from_min_extent(lo, ext)
        if isinstance(value, tuple):
            items = []
            for v in value:
                items.append((yield from self._field(v)))
            return value if all(a is b for a, b in zip(items, value)) else tuple(items)
        return value

    def mutate_expr(self, e: Expr) -> Expr:
        return e


def stmt_children(s: Stmt) -> list[Stmt]:
    """The statements directly inside *s*, in order."""
    out: list[Stmt] = []
    for name in field_names(s):
        value = getattr(s, name)
        out += [x for x in (value if isinstance(value, tuple) else (value,)) if isinstance(x, Stmt)]
    return out


def stmt_exprs(s: Stmt) -> list[Expr]:
    """The expressions *s* itself holds (not those of the statements inside it)."""
    out: list[Expr] = []
    for name in field_names(s):
        value = getattr(s, name)
        out += [x for x in (value if isinstance(value, tuple) else (value,)) if isinstance(x, Expr)]
    return out


def walk(s: Stmt) -> Iterator[Stmt]:
    """*s* and every statement under it, in source order, without recursing on Python's stack."""
    stack = [s]
    while stack:
        x = stack.pop()
        yield x
        stack.extend(reversed(stmt_children(x)))


def post_order_visit(s: Stmt, fvisit: Any) -> None:
    """Call *fvisit* on every statement and expression node under *s*, each after the nodes
    inside it (TVM's ``tir.stmt_functor.post_order_visit``): a statement's own expressions,
    then its statements, then the statement itself. Explicit stacks: any depth."""
    stack: list[tuple[Stmt, bool]] = [(s, False)]
    while stack:
        x, expanded = stack.pop()
        if expanded:
            fvisit(x)
            continue
        for e in stmt_exprs(x):
            expr_post_order_visit(e, fvisit)
        stack.append((x, True))
        stack.extend((c, False) for c in reversed(stmt_children(x)))


#: TVM's type keys of the nodes ours name differently.
_TYPE_KEY_ALIASES = {"tir.BufferStore": "tir.Store", "tir.BufferLoad": "tir.Load"}


def type_key(node: Any) -> str:
    """TVM's type key of *node* (``tir.For``, ``tir.Add``, ...)."""
    return f"tir.{type(node).__name__}"


def _expr_fields(e: Expr) -> list[Expr]:
    out: list[Expr] = []
    for name in field_names(e):
        value = getattr(e, name)
        if isinstance(value, Expr):
            out.append(value)
        elif isinstance(value, tuple):
            out += [v for v in value if isinstance(v, Expr)]
    return out


def _rebuilt(e: Expr, done: dict[int, Expr]) -> Expr:
    changed: dict[str, Any] = {}
    for name in field_names(e):
        old = getattr(e, name)
        if isinstance(old, Expr) and done[id(old)] is not old:
            changed[name] = done[id(old)]
        elif isinstance(old, tuple) and any(isinstance(v, Expr) and done[id(v)] is not v for v in old):
            changed[name] = tuple(done[id(v)] if isinstance(v, Expr) else v for v in old)
    return replace(e, **changed) if changed else e  # type: ignore[type-var]


def _transform_expr(e: Expr, apply: Callable[[Any, Any], Any], pre: Any, post: Any) -> Expr:
    """*e* with *pre* and *post* applied as :func:`ir_transform` says, on an explicit stack."""
    done: dict[int, Expr] = {}
    stack: list[tuple[Expr, bool]] = [(e, False)]
    while stack:
        node, expanded = stack.pop()
        if id(node) in done and not expanded:
            continue
        if not expanded:
            early = apply(node, pre)
            if early is not None:
                done[id(node)] = early
                continue
            stack.append((node, True))
            stack.extend((c, False) for c in reversed(_expr_fields(node)) if id(c) not in done)
            continue
        rebuilt = _rebuilt(node, done)
        late = apply(rebuilt, post)
        done[id(node)] = late if late is not None else rebuilt
    return done[id(e)]


class _StmtTransform(StmtMutator):
    def __init__(self, apply: Callable[[Any, Callable[[Any], Any] | None], Any], pre: Any, post: Any) -> None:
        self.apply, self.pre, self.post = apply, pre, post

    def dispatch(self, s: Stmt) -> Any:
        early = self.apply(s, self.pre)
        if early is not None:
            return early
        return self._after(s)

    def _after(self, s: Stmt) -> Generator[Any, Any, Stmt]:
        rebuilt = yield from self.visit_default(s)
        late = self.apply(rebuilt, self.post)
        return late if late is not None else rebuilt

    def mutate_expr(self, e: Expr) -> Expr:
        return _transform_expr(e, self.apply, self.pre, self.post)


def ir_transform(stmt: Stmt, preorder: Callable[[Any], Any] | None, postorder: Callable[[Any], Any] | None,
                 only_enable: Sequence[str] | None = None) -> Stmt:
    """TVM's ``tir.stmt_functor.ir_transform``: every statement and expression node under
    *stmt* is offered to *preorder* before its children (a node returned replaces it, and its
    children are not visited) and to *postorder* after them (a node returned replaces the
    rebuilt one); None keeps the node. *only_enable* limits both to those type keys
    (``["tir.For", "tir.Call"]``)."""
    if not isinstance(stmt, Stmt):
        raise TypeError(f"ir_transform: transforms a statement, got {stmt!r}")
    keys = None if only_enable is None else {_TYPE_KEY_ALIASES.get(k, k) for k in only_enable}

    def apply(node: Any, fn: Callable[[Any], Any] | None) -> Any:
        if fn is None or (keys is not None and type_key(node) not in keys):
            return None
        out = fn(node)
        if out is not None and not isinstance(out, (Stmt, Expr)):
            raise TypeError(f"ir_transform: the function returned {out!r} for {type_key(node)}; return a "
                            "statement or expression, or None to keep the node")
        return out
    return _StmtTransform(apply, preorder, postorder)(stmt)



def stored_buffers(body: Stmt) -> set[int]:
    """The ids of the buffers *body* stores into."""
    found: set[int] = set()

    class _Stores(StmtVisitor):
        def visit_store(self, s: Store) -> None:
            found.add(id(s.buffer))

    _Stores()(body)
    return found


def buffers_passed_to_calls(body: Stmt) -> set[int]:
    """The ids of the buffers *body* passes to a call (a packed function may write them)."""
    from_views: set[int] = set()

    def see(e: Expr) -> None:
        if isinstance(e, BufferView):
            from_views.add(id(e.buffer))

    class _Calls(StmtVisitor):
        def visit_expr(self, e: Expr) -> None:
            expr_post_order_visit(e, see)

    _Calls()(body)
    return from_views
