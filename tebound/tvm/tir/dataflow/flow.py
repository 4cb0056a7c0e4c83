"""The analyses a pass asks about one function body, redone when a store is removed."""


from __future__ import annotations

from contextlib import ExitStack

from lower.ir.stmt import Stmt, Store
from schedule.ir.expr import Expr
from tebound.tvm.arith.analyzer import Analyzer
from tebound.tvm.tir.dataflow.knowns import KnownValues
from tebound.tvm.tir.dataflow.unused import UnusedValues


class BufferFlow:
    """The analyses of *body*, made when first asked and again after :meth:`remove_store`."""

    def __init__(self, body: Stmt) -> None:
        self.body = body
        self.removed: set[int] = set()
        self._known: KnownValues | None = None
        self._unused: UnusedValues | None = None

    @property
    def known(self) -> KnownValues:
        if self._known is None:
            self._known = KnownValues(self.body, self.removed)
        return self._known

    @property
    def unused(self) -> UnusedValues:
        if self._unused is None:
            self._unused = UnusedValues(self.body, self.removed)
        return self._unused

    def simplify_in_context(self, e: Expr, at: Stmt, analyzer: Analyzer) -> Expr:
        """*e*, as if evaluated at the start of *at*, with the buffer values known there and
        the assumptions in force (TVM's ``SimplifyInContext``)."""
        state = self.known.state_at(at)
        if state is None:
            return analyzer.simplify(e)
        e = self.known.substitute_known(e, state)
        with ExitStack() as scopes:
            for assumption in state.assumptions:
                scopes.enter_context(analyzer.constraint_scope(assumption))
            return analyzer.simplify(e)

    def overwritten(self, store: Store) -> bool:
        """Whether *store* is overwritten before anything reads what it wrote."""
        return self.unused.overwritten(store)

    def remove_store(self, store: Store) -> None:
        """Analyse again as if *store* were not there (so that two stores of the same value
        do not each justify removing the other)."""
        self.removed.add(id(store))
        self._known = self._unused = None
