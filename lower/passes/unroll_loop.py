"""Loop unrolling (TVM's UnrollLoop pass).

A serial loop of constant extent is unrolled when it is marked ``unroll``, or automatically
when the steps it would unroll (its extent times the stores and calls of its body) stay within
``auto_max_step``, no ordinary loop lies inside it, and at most ``auto_max_depth`` unrolled
loops nest, or (with ``unroll_local_access``) when its variable indexes local memory;
``pragma_auto_unroll_max_step`` and ``pragma_unroll_explicit`` set those options for a loop's
body. A vectorized loop counts as its body's statements and no loop, as in TVM, where the loops
are vectorized before this pass. Unrolled loops are written out, a copy of the body per iteration, or with
``explicit_unroll`` off kept as ``unrolled`` loops for the compiler.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import replace
from typing import Any

from bound import simplify
from lower.ir.stmt import AttrStmt, DeclStore, Evaluate, For, ForKind, Load, SeqStmt, Stmt, Store, seq
from lower.ir.stmt_functor import StmtMutator
from lower.ir.substitute import substitute_stmt
from schedule import arith
from schedule.base.pass_context import options
from schedule.base.storage_scope import RANKS, scope_rank
from schedule.ir.expr import Var
from schedule.ir.functor import distinct_post_order, free_vars

Steps = Generator[Any, Any, Stmt]


def unroll_loop(stmt: Stmt) -> tuple[Stmt, bool]:
    """*stmt* with its loops unrolled as above, and whether any was written out."""
    u = _Unroller(**options("tir.UnrollLoop"))
    out = u(stmt)
    return out, u.wrote_out


class _Unroller(StmtMutator):
    def __init__(self, auto_max_step: int, auto_max_depth: int, auto_max_extent: int, explicit_unroll: bool,
                 unroll_local_access: bool) -> None:
        self.auto_max_step = int(auto_max_step)
        self.auto_max_depth = int(auto_max_depth)
        self.auto_max_extent = int(auto_max_extent)
        self.explicit = bool(explicit_unroll)
        self.local_access = bool(unroll_local_access)
        self.touched_local: set[Var] = set()  # variables that index local memory
        self.step_count = 0
        self.unroll_depth = 0
        self.normal_depth = 0
        self.wrote_out = False

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        if s.key not in ("pragma_auto_unroll_max_step", "pragma_unroll_explicit"):
            return (yield from self.visit_default(s))
        value = arith.value_of(s.value)
        if value is None:
            return (yield from self.visit_default(s))
        if s.key == "pragma_auto_unroll_max_step":
            saved, self.auto_max_step = self.auto_max_step, int(value)
            body = yield s.body
            self.auto_max_step = saved
        else:
            saved_explicit, self.explicit = self.explicit, bool(value)
            body = yield s.body
            self.explicit = saved_explicit
        return body  # the pragma has done its work, as in TVM

    def visit_store(self, s: Store) -> Stmt:
        self.step_count += 1
        if self.local_access:  # a loop indexing local memory is unrolled, so it can live in registers
            loads = [x for x in distinct_post_order(s.value) if isinstance(x, Load)]
            for buffer, index in [(s.buffer, s.index), *((x.buffer, x.index) for x in loads)]:
                if RANKS[scope_rank(buffer.scope)] in ("local", "warp"):
                    self.touched_local.update(free_vars([index]))
        return s

    def visit_evaluate(self, s: Evaluate) -> Stmt:
        self.step_count += 1
        return s

    def visit_decl_store(self, s: DeclStore) -> Stmt:  # a store of an ir_builder body, one step too
        self.step_count += 1
        return s

    def visit_seq_stmt(self, s: SeqStmt) -> Steps:
        out = []
        for x in s.seq:
            counts = self.step_count, self.unroll_depth, self.normal_depth
            self.step_count = self.unroll_depth = self.normal_depth = 0
            out.append((yield x))
            self.step_count += counts[0]
            self.unroll_depth = max(self.unroll_depth, counts[1])
            self.normal_depth = max(self.normal_depth, counts[2])
        return s if all(a is b for a, b in zip(out, s.seq)) else SeqStmt(tuple(out))

    def visit_for(self, s: For) -> Steps:
        body = yield s.body
        new = s if body is s.body else replace(s, body=body)
        if s.kind == ForKind.VECTORIZED:  # one vector statement per store, as after TVM's VectorizeLoop
            return new
        value = arith.value_of(simplify(s.extent))  # ((n + 2) - n) is 2
        extent = int(value) if isinstance(value, int) else -1
        auto = (s.kind == ForKind.SERIAL and extent >= 0 and self.normal_depth == 0
                and self.unroll_depth <= self.auto_max_depth
                and (extent * self.step_count <= self.auto_max_step or extent <= self.auto_max_extent))
        if (s.kind == ForKind.UNROLLED and extent >= 0) or (self.local_access and extent > 0
                                                             and s.loop_var in self.touched_local):
            auto = True
        if auto:
            self.step_count *= extent
            self.unroll_depth += 1
        else:
            self.normal_depth += 1
        if (auto and self.explicit) or (0 <= extent <= self.auto_max_extent == 1):
            self.wrote_out = True
            return seq(*(substitute_stmt(new.body, {s.loop_var: arith.add(s.min, k)}) for k in range(extent)))
        if auto and s.kind != ForKind.UNROLLED:
            return replace(new, kind=ForKind.UNROLLED)
        return new
