"""How each loop of a lowered nest touches memory, as TVM's autotvm features describe it
(``autotvm.feature``): per loop its length, depth, kind, the products of the lengths above
and below it, its float additions, multiplications and divisions; and per memory access under
it (``C_0``, ``C_1``: the buffer's name and the access's rank in the nest) the loop variable's
stride in the index, how many distinct elements the loops inside it and itself touch
(``count``) and how often each is touched again (``reuse``), and the same counted from the
enclosing thread loop (``thread_count``, ``thread_reuse``).

The nest is read iteratively, so any depth of loops or expression works.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from lower.ir.stmt import AttrStmt, For, ForKind, Load, Stmt, Store
from lower.ir.stmt_functor import stmt_children, stmt_exprs
from schedule.ir.dtype import is_float
from schedule.ir.expr import Add, Div, IntImm, Mod, Mul, Sub, Var
from schedule.ir.functor import children

#: The kinds of loop, in the order of the features' one-hot annotation.
ANNOTATIONS = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z", "unrolled",
               "vectorized", "parallel", "serial", "vthread")
_KINDS = {ForKind.SERIAL: "serial", ForKind.PARALLEL: "parallel", ForKind.VECTORIZED: "vectorized",
          ForKind.UNROLLED: "unrolled"}
_ARITH = {Add: "add", Sub: "add", Mul: "mul", Div: "div", Mod: "div"}


def _parallel_level(ann: str) -> int:
    """2 for blocks, 1 for threads and parallel loops, 0 for the rest."""
    return 2 if ann.startswith("blockIdx") else 1 if ann.startswith("threadIdx") or ann == "parallel" else 0


@dataclass
class Touch:
    """One access's pattern along one loop."""

    stride: int = 0
    mod: int = -1  # -1: no modulus
    count: int = 1
    reuse: int = 1
    thread_count: int = 0
    thread_reuse: int = 0

    def values(self) -> list[int]:
        return [self.stride, self.mod, self.count, self.reuse, self.thread_count, self.thread_reuse]


@dataclass
class Loop:
    """The features of one loop (or thread binding) of the nest."""

    var: Var
    length: int
    nest_level: int
    ann: str
    topdown: int
    order: int
    bottomup: int = 0
    arith: dict[str, int] = field(default_factory=lambda: {"add": 0, "mul": 0, "div": 0})
    touch: dict[str, Touch] = field(default_factory=dict)


def strides(index: Any) -> dict[Var, int]:
    """Each variable of *index* with its stride, read as TVM does: the constant of a
    ``var * c`` that first names the variable, else 1 (nodes in visiting order)."""
    found: dict[Var, int] = {}
    pending = 1
    stack = [index]
    while stack:
        e = stack.pop()
        if isinstance(e, Var):
            if e not in found:
                found[e], pending = pending, 1
            continue
        if isinstance(e, Mul) and isinstance(e.a, Var) and isinstance(e.b, IntImm):
            pending = e.b.value
        stack.extend(reversed(children(e)))
    return found


class TouchAnalysis:
    """The loops of a lowered statement and their touch patterns (:meth:`loops`, in the order
    they first appear)."""

    def __init__(self, stmt: Stmt) -> None:
        self.all: list[Loop] = []
        self.current: dict[Var, Loop] = {}
        self.stack: list[Loop] = []
        self.skipped: list[int] = []
        self.topdown = 1
        self.counter: dict[str, int] = {}
        for event, node in self._events(stmt):
            if event == "enter":
                self._enter(*node)
            elif event == "exit":
                self._exit()
            elif event == "mem":
                self._memory(*node)
            else:
                self._count(node)

    def loops(self) -> list[Loop]:
        return sorted(self.all, key=lambda lp: lp.order)

    # -- the walk ------------------------------------------------------------------------------
    def _events(self, stmt: Stmt) -> Iterator[tuple[str, Any]]:
        """("enter", (var, length, ann)), ("exit", None), ("mem", (buffer name, index)) and
        ("expr", node) in the order TVM's visitor meets them."""
        work: list[tuple[str, Any]] = [("stmt", stmt)]
        while work:
            what, node = work.pop()
            if what == "exit":
                yield "exit", None
                continue
            if what == "expr":
                if isinstance(node, Load):
                    yield "mem", (node.buffer.name, node.index)
                    work.append(("expr", node.index))
                    continue
                yield "expr", node
                work.extend(("expr", c) for c in reversed(children(node)))
                continue
            loop = self._loop_of(node)
            if loop is not None:
                yield "enter", loop
                work.append(("exit", None))
            if isinstance(node, Store):
                yield "mem", (node.buffer.name, node.index)
                work += [("expr", node.index), ("expr", node.value)]
                continue
            inner = [("stmt", c) for c in reversed(stmt_children(node))]
            work += inner
            work += [("expr", e) for e in reversed(stmt_exprs(node)) if not isinstance(node, (For, AttrStmt))]

    @staticmethod
    def _loop_of(node: Stmt) -> tuple[Var, int, str] | None:
        if isinstance(node, For):
            length = node.extent.value if isinstance(node.extent, IntImm) else -1
            return node.loop_var, length, _KINDS[node.kind]
        if isinstance(node, AttrStmt) and node.key in ("thread_extent", "virtual_thread"):
            var = node.node.var
            length = node.value.value if isinstance(node.value, IntImm) else -1
            if node.key == "virtual_thread" or var.name.startswith("vthread"):
                return var, length, "vthread"
            return var, length, var.name if var.name in ANNOTATIONS else "parallel"
        return None

    # -- the rules -----------------------------------------------------------------------------
    def _enter(self, var: Var, length: int, ann: str) -> None:
        if ann == "vthread" and var in self.current:  # a virtual thread met again is not a new loop
            self.skipped.append(len(self.stack))
            return
        self.topdown *= length
        loop = Loop(var, length, len(self.stack) + 1, ann, self.topdown, len(self.all))
        self.stack.append(loop)
        self.current[var] = loop  # a variable bound twice: the earlier loop stays as it was
        self.all.append(loop)

    def _exit(self) -> None:
        if self.skipped and self.skipped[-1] == len(self.stack):
            self.skipped.pop()
            return
        loop = self.stack[-1]
        for name, pattern in loop.touch.items():
            for outer in self.stack:  # this loop and those around it
                if pattern.stride != 0:
                    outer.touch[name].count *= loop.length
                else:
                    outer.touch[name].reuse *= loop.length
        self.stack.pop()
        if loop.length != 0:
            self.topdown //= loop.length
        loop.bottomup = max((t.count * t.reuse for t in loop.touch.values()), default=-1)
        level = _parallel_level(loop.ann)
        if self.stack and _parallel_level(self.stack[-1].ann) == level + 1:
            # the loop just inside a thread level: its counts are the base of the thread loops'
            for name, pattern in loop.touch.items():
                for outer in self.stack:
                    if _parallel_level(outer.ann) == level + 1:
                        outer.touch[name].thread_reuse = -pattern.reuse
                        outer.touch[name].thread_count = -pattern.count
        for pattern in loop.touch.values():
            if pattern.thread_count < 0:
                pattern.thread_count = pattern.count // -pattern.thread_count
                pattern.thread_reuse = pattern.reuse // -pattern.thread_reuse

    def _memory(self, buffer: str, index: Any) -> None:
        rank = self.counter.get(buffer, 0)
        self.counter[buffer] = rank + 1
        name = f"{buffer}_{rank}"
        found = strides(index)
        for loop in self.stack:
            loop.touch[name] = Touch(stride=found.get(loop.var, 0))

    def _count(self, e: Any) -> None:
        kind = _ARITH.get(type(e))
        if kind is not None and self.stack and is_float(e.dtype):
            self.stack[-1].arith[kind] += 1


def transform(x: int, take_log: bool) -> float:
    """*x*, or its log2 (of ``x + 1``; a negative x gives ``-log2(1 - x)``)."""
    if not take_log:
        return x
    return -math.log2(-x + 1) if x < 0 else math.log2(x + 1)
