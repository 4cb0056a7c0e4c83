"""Which arguments of a function may be one array: an input read only where an output is stored.

A call whose input and output arrays overlap is refused (see :mod:`lower.call_checks`), unless
they are the same array (same start, shape and strides) and the function is in place for that
pair: every element of the input is read only by the one statement that stores the same
element of the output, and that statement stores each element once. The input's element is
then read before the output's store overwrites it, and never again, as in ``B[i] = A[i] + 1``.
"""

from __future__ import annotations

from collections.abc import Sequence

from bound.isl import one_to_one
from lower.ir.stmt import AttrStmt, Buffer, BufferView, For, Load, Stmt, Store
from lower.ir.stmt_functor import stmt_children, stmt_exprs
from schedule import arith
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import distinct_post_order, structural_equal
from schedule.ir.itervar import IterVar

#: A loop (or a thread index) around a statement: its variable, first value and extent.
Loop = tuple[Var, Expr, Expr]


class InPlace:
    """One walk of *body* that answers :meth:`pair` for every pair of buffers: which buffers each
    statement reads or hands to a function, and the stores into each buffer with their loops."""

    def __init__(self, body: Stmt) -> None:
        self.stores: dict[Buffer, list[tuple[Store, list[Loop]]]] = {}
        #: Per buffer, the statements reading it (by id); per buffer, whether any passes it.
        self.readers: dict[Buffer, set[int]] = {}
        self.passed: set[Buffer] = set()
        stack: list[tuple[Stmt, list[Loop]]] = [(body, [])]
        while stack:
            s, loops = stack.pop()
            if isinstance(s, Store):
                self.stores.setdefault(s.buffer, []).append((s, loops))
            for e in stmt_exprs(s):
                for x in distinct_post_order(e):
                    if isinstance(x, (Load, BufferView)):
                        self.readers.setdefault(x.buffer, set()).add(id(s))
                    if isinstance(x, BufferView):
                        self.passed.add(x.buffer)
            inner = loops
            if isinstance(s, For):
                inner = [*loops, (s.loop_var, s.min, s.extent)]
            elif isinstance(s, AttrStmt) and s.key in ("thread_extent", "virtual_thread") and \
                    isinstance(s.node, IterVar):
                inner = [*loops, (s.node.var, arith.const(0), s.value)]  # threads are loops here
            stack.extend((c, inner) for c in stmt_children(s))

    def pair(self, read: Buffer, written: Buffer) -> bool:
        """Whether the body computes the same when *read* and *written* are one array."""
        stores = self.stores.get(written, [])
        if len(stores) != 1 or read in self.passed or written in self.passed:
            return False
        store, loops = stores[0]
        if self.readers.get(read, set()) - {id(store)}:
            return False  # another statement reads it
        if _reads(store.index, read) or any(_reads(c, read) for c in store.checks) or not _same_element(store, read):
            return False
        domain: list[Expr] = []
        for v, lo, extent in loops:
            domain += [arith.ge(v, lo), arith.lt(v, arith.add(lo, extent))]
        return one_to_one(domain, [v for v, _, _ in loops], _element(store))


def in_place(body: Stmt, read: Buffer, written: Buffer) -> bool:
    """Whether *body* computes the same when *read* and *written* are one array (see the module);
    :class:`InPlace` answers many pairs with one walk."""
    return InPlace(body).pair(read, written)


def _element(access: Load | Store) -> Sequence[Expr]:
    """The indices of the element *access* reaches: per dimension where known, else flat."""
    return access.checks[0::3] if access.checks else (access.index,)


def _same_element(store: Store, read: Buffer) -> bool:
    """Whether every load of *read* in *store*'s value reads the element *store* writes."""
    target = _element(store)
    for x in distinct_post_order(store.value):
        if isinstance(x, Load) and x.buffer is read:
            got = _element(x)
            if len(got) != len(target) or not all(structural_equal(a, b) for a, b in zip(got, target)):
                return False
        if isinstance(x, BufferView) and x.buffer in (read, store.buffer):
            return False
    return True


def _reads(e: Expr, buf: Buffer) -> bool:
    return any(isinstance(x, (Load, BufferView)) and x.buffer is buf for x in distinct_post_order(e))
