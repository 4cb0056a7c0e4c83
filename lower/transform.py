"""The lowering passes one at a time, as TVM's ``tir.transform``: each entry makes a
:class:`Pass`, which maps a module, a function or a bare statement to the same kind of thing
with its bodies rewritten. Passes read their options from the enclosing ``PassContext``
(``"tir.LoopPartition"``, ``"tir.UnrollLoop"``), as ``lower()`` does."""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

from lower.ir.stmt import Stmt
from lower.ir.stmt_functor import ir_transform as _ir_transform
from lower.module import IRModule, as_stmt
from lower.passes.hoist_if import hoist_if_then_else
from lower.passes.loop_partition import loop_partition, partition_options
from lower.passes.narrow_datatype import narrow_datatype
from lower.passes.prefetch import inject_prefetch
from lower.passes.simplify_stmt import simplify_stmt
from lower.passes.storage_rewrite import place_allocations
from lower.passes.storage_share import share_storage
from lower.passes.thread_sync import thread_sync
from lower.passes.unroll_loop import unroll_loop
from lower.passes.virtual_thread import inject_virtual_thread
from schedule.base.pass_context import PassContext
from schedule.ir.extern_stmt import BodyStmt


class Pass:
    """A statement rewrite applied to every function body of what it is called on."""

    def __init__(self, name: str, rewrite: Callable[[Stmt], Stmt]) -> None:
        self.name, self.rewrite = name, rewrite

    def __call__(self, mod: Any) -> Any:
        if isinstance(mod, (Stmt, BodyStmt)):
            return self.rewrite(as_stmt(mod, self.name))
        if isinstance(mod, IRModule):
            return IRModule({name: self(f) for name, f in mod.items()})
        if hasattr(mod, "body") and isinstance(mod.body, Stmt):
            out = copy.copy(mod)
            out.body = self.rewrite(mod.body)
            return out
        raise TypeError(f"{self.name}: applies to an IRModule, a function (tvm.lower's result, a PrimFunc) or a "
                        f"statement, got {mod!r}")

    def __repr__(self) -> str:
        return f"Pass({self.name})"


class FunctionPass(Pass):
    """A pass over whole functions: ``fn(func, mod, ctx)`` gives each function of a module
    rewritten (TVM's ``prim_func_pass``); it applies to a module or a function, not to a bare
    statement."""

    def __init__(self, name: str, fn: Callable[[Any, IRModule, Any], Any]) -> None:
        super().__init__(name, self._no_statement)
        self.fn = fn

    def _no_statement(self, stmt: Stmt) -> Stmt:
        raise TypeError(f"{self.name}: a function pass applies to an IRModule or a function, not a bare statement")

    def __call__(self, mod: Any) -> Any:
        if isinstance(mod, (Stmt, BodyStmt)):
            self._no_statement(mod)
        if isinstance(mod, IRModule):
            return IRModule({name: self._apply(f, mod) for name, f in mod.items()})
        if hasattr(mod, "body") and isinstance(mod.body, Stmt):
            return self._apply(mod, IRModule({getattr(mod, "name", "main"): mod}))
        raise TypeError(f"{self.name}: applies to an IRModule or a function (tvm.lower's result, a PrimFunc), "
                        f"got {mod!r}")

    def _apply(self, func: Any, mod: IRModule) -> Any:
        out = self.fn(func, mod, PassContext.current() or PassContext())
        if not (hasattr(out, "body") and isinstance(out.body, Stmt)):
            raise TypeError(f"{self.name}: the pass function returns a function (f.with_body(...)), not {out!r}")
        return out


def ir_transform(stmt: Any, preorder: Callable[[Any], Any] | None, postorder: Callable[[Any], Any] | None,
                 only_enable: Sequence[str] | None = None) -> Stmt:
    """:func:`lower.ir.stmt_functor.ir_transform` on a statement or an ``ir_builder`` body."""
    return _ir_transform(as_stmt(stmt, "ir_transform"), preorder, postorder, only_enable)


def Sequential(passes: Sequence[Pass], opt_level: int = 2, name: str = "Sequential") -> Pass:  # noqa: N802
    """The passes one after the other."""
    chosen = list(passes)
    if not all(isinstance(p, Pass) for p in chosen):
        raise TypeError(f"Sequential: a list of passes (tir.transform.X()), got {passes!r}")

    if any(isinstance(p, FunctionPass) for p in chosen):
        def each(func: Any, mod: IRModule, ctx: Any) -> Any:
            for p in chosen:
                func = p(func)
            return func
        return FunctionPass(name, each)

    def run(stmt: Stmt) -> Stmt:
        for p in chosen:
            stmt = p.rewrite(stmt)
        return stmt
    return Pass(name, run)


def Simplify() -> Pass:  # noqa: N802
    """Expressions simplified, statements that do nothing removed; loops of one iteration stay,
    as TVM's Simplify keeps them."""
    return Pass("Simplify", lambda s: simplify_stmt(s, keep_trivial=True))


def RemoveNoOp() -> Pass:  # noqa: N802
    """Statements that do nothing removed (with the simplifier, which does that here)."""
    return Pass("RemoveNoOp", lambda s: simplify_stmt(s, keep_trivial=True))


def StorageFlatten(cache_line_size: int = 64, create_bound_attribute: bool = False) -> Pass:  # noqa: N802
    """Nothing: ``lower`` flattens the buffers already (the pass is kept for TVM's pipelines)."""
    return Pass("StorageFlatten", lambda s: s)


def VectorizeLoop(enable_vectorize: bool = True) -> Pass:  # noqa: N802
    """Nothing: a vectorized loop stays a loop here, and the backends emit its vector code."""
    return Pass("VectorizeLoop", lambda s: s)


def LoopPartition() -> Pass:  # noqa: N802
    return Pass("LoopPartition",
                lambda s: loop_partition(s, **partition_options()))


def UnrollLoop() -> Pass:  # noqa: N802
    return Pass("UnrollLoop", lambda s: unroll_loop(s)[0])


def NarrowDataType(target_bits: int = 32) -> Pass:  # noqa: N802
    """Wider loop variables made ``int<target_bits>`` (8, 16 or 32) where their ranges fit."""
    if target_bits not in (8, 16, 32):
        raise ValueError(f"NarrowDataType: target_bits must be 8, 16 or 32, got {target_bits!r}")
    return Pass("NarrowDataType", lambda s: narrow_datatype(s, target_bits))


def StorageRewrite() -> Pass:  # noqa: N802
    return Pass("StorageRewrite", lambda s: share_storage(place_allocations(s)))


def HoistIfThenElse(variant: str | None = None) -> Pass:  # noqa: N802
    """Guards moved out of the loops they do not depend on; *variant* is TVM's and is ignored."""
    return Pass("HoistIfThenElse", hoist_if_then_else)


def InjectVirtualThread() -> Pass:  # noqa: N802
    return Pass("InjectVirtualThread", inject_virtual_thread)


def InjectPrefetch() -> Pass:  # noqa: N802
    return Pass("InjectPrefetch", inject_prefetch)


def ThreadSync(storage_scope: str = "shared") -> Pass:  # noqa: N802
    """The barriers of every scope that needs them, at once (TVM runs it once per scope)."""
    if storage_scope not in ("shared", "global", "warp"):
        raise ValueError(f"ThreadSync: storage_scope is 'shared', 'global' or 'warp', got {storage_scope!r}")
    return Pass("ThreadSync", thread_sync)


__all__ = ["HoistIfThenElse", "InjectPrefetch", "InjectVirtualThread", "LoopPartition", "NarrowDataType", "Pass",
           "RemoveNoOp", "Sequential", "Simplify", "StorageFlatten", "StorageRewrite", "ThreadSync", "UnrollLoop",
           "VectorizeLoop"]
