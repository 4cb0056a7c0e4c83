"""Python source from a flattened function: one ``def`` compiled once, no tree walk per element.

Buffers are flat Python lists and arithmetic is Python's (exact integers, double-precision
floats), so a run computes exactly what :mod:`lower.reference` computes from the definitions;
values take the tensor's dtype when the caller's arrays are written. With *checks*, every load
and store first checks each logical index against its realized region.

A GPU kernel runs block after block; in a block every thread runs the kernel body with its
own local buffers, sharing the block's shared buffers. Without barriers the threads run one
after another; with barriers each thread is a generator and the block runs them in lock step
(:func:`lower.backend.python.runtime._run_block`).
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import Any

from lower.backend.gpu_kernel import Kernel, analyze_kernel, check_races
from lower.backend.names import Names
from lower.backend.python.expr import ExprSource
from lower.backend.python.runtime import RUNTIME, WRAPS
from lower.errors import LoweringError
from lower.ir.stmt import (
    Allocate,
    AssertStmt,
    AttrStmt,
    Buffer,
    Evaluate,
    For,
    IfThenElse,
    LetStmt,
    ProducerConsumer,
    SeqStmt,
    Stmt,
    Store,
    While,
)
from lower.ir.stmt_functor import StmtFunctor
from lower.passes.thread_sync import contains_barrier, is_allreduce, is_barrier
from schedule.ir.dtype import bits
from schedule.ir.expr import Call, Var
from schedule.ir.itervar import IterVar
from schedule.ir.reduce import CommReducer

#: Python allows only 20 statically nested blocks; deeper nests continue in a helper function.
_MAX_DEPTH = 16

Steps = Generator[Stmt, None, None]


class _StmtSource(StmtFunctor[None]):
    def __init__(self, names: Names, checks: bool) -> None:
        self.names = names
        self.expr = ExprSource(names, checks)
        self.checks = checks
        self.helpers: list[list[str]] = []
        self.lines: list[str] = []
        self.indent = 1
        self.depth = 0
        self.scope: list[str] = []
        self.kernel: Kernel | None = None
        self.hw: dict[str, str] = {}  # thread tag -> the identifier of its index
        self.launch: dict[str, str] = {}  # thread tag -> the identifier of its launch extent
        self.in_generator = False
        self.reducer: CommReducer | None = None  # of the cross-thread reduction being emitted
        self.rendezvous: str | None = None  # the block's table of cross-thread reduction terms
        self.warps: dict[Buffer, str] = {}  # warp buffer -> the block's list of its copies

    # -- emitting ------------------------------------------------------------------------------
    def emit(self, text: str) -> None:
        pad = "    " * self.indent
        self.lines += [pad + line for line in self.expr.take_thunks()]
        self.lines.append(pad + text)

    def define(self, var: Var) -> str:
        """Bring *var* into scope; its Python name."""
        name = self.names(var, var.name)
        self.scope.append(name)
        self.expr.defined[var] = self.expr.defined.get(var, 0) + 1
        return name

    def undefine(self, var: Var) -> None:
        name = self.names(var, var.name)
        del self.scope[len(self.scope) - 1 - self.scope[::-1].index(name)]
        self.expr.defined[var] -= 1

    def block(self, head: str, body: Stmt, new_var: Var | None = None, first: str | None = None) -> Steps:
        """``head:`` then *body* one level in; *first* is a line emitted before the body."""
        self.emit(head)
        self.indent += 1
        self.depth += 1
        mark = len(self.lines)
        if first is not None:
            self.emit(first)
        if self.depth >= _MAX_DEPTH:
            yield from self.outline(body)
        else:
            yield body
        if len(self.lines) == mark:
            self.emit("pass")
        self.indent -= 1
        self.depth -= 1
        if new_var is not None:
            self.undefine(new_var)

    def outline(self, body: Stmt) -> Steps:
        """Continue *body* in a helper function taking every name in scope."""
        name = self.names.fresh(f"_nest{len(self.helpers)}")
        params = ", ".join(dict.fromkeys(self.scope))
        saved = self.lines, self.indent, self.depth
        self.lines, self.indent, self.depth = [], 1, 0
        yield body
        inner = self.lines or ["    pass"]
        self.lines, self.indent, self.depth = saved
        self.helpers.append([f"def {name}({params}):", *inner])
        # A helper that waits at a barrier is a generator of the thread that calls it.
        call = f"yield from {name}({params})" if self.in_generator and contains_barrier(body) else f"{name}({params})"
        self.emit(call)

    def allocate_per_warp(self, buf: Buffer, k: Kernel) -> None:
        """One copy of the warp buffer *buf* per warp of the block; with checks, its elements
        start unwritten, and a load of one raises :class:`UnwrittenReadError`."""
        base = self.warps[buf] = self.names.fresh(f"_{buf.name}_warps")
        size = " * ".join(self.expr(e) for e in buf.extents)
        groups = " * ".join(self.launch[t] for t in k.warp_group_tags) or "1"
        fill = "_UNWRITTEN" if self.checks else "0"
        self.emit(f"{base} = [[{fill}] * ({size}) for _ in range({groups})]")
        self.scope.append(base)

    def allocate(self, buf: Buffer, fill: str = "0") -> None:
        name = self.names(buf, buf.name)
        size = " * ".join(self.expr(e) for e in buf.extents)
        self.emit(f"{name} = _alloc({size}, {buf.name!r}, {max(bits(buf.dtype) // 8, 1)}, {fill})")
        self.scope.append(name)

    # -- statements ----------------------------------------------------------------------------
    def visit_for(self, s: For) -> Steps:
        lo, ext = self.expr(s.min), self.expr(s.extent)
        rng = f"range({ext})" if lo == "0" else f"range({lo}, {lo} + {ext})"
        v = self.define(s.loop_var)
        yield from self.block(f"for {v} in {rng}:", s.body, s.loop_var)

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        if s.key == "thread_extent" and isinstance(s.node, IterVar):
            if self.kernel is None:
                kernel = analyze_kernel(s)
                check_races(kernel)
                yield from self.run_kernel(kernel)
            elif self.kernel.guarded(s.node.thread_tag):
                yield from self.block(f"if {self.names(s.node.var, s.node.var.name)} < {self.expr(s.value)}:",
                                      s.body)
            else:
                yield s.body
        elif s.key == "reduce_scope" and isinstance(s.node, CommReducer):
            saved, self.reducer = self.reducer, s.node
            yield s.body
            self.reducer = saved
        elif s.key == "virtual_thread" and isinstance(s.node, IterVar):
            # Only a virtual thread of non-constant extent is left by then: its copies in turn.
            ext = self.expr(s.value)
            v = self.define(s.node.var)
            yield from self.block(f"for {v} in range({ext}):", s.body, s.node.var)
        else:
            yield s.body

    def run_kernel(self, k: Kernel) -> Steps:
        """Every block of *k*, and in each every thread, runs the kernel body."""
        self.kernel = k
        scope_mark = len(self.scope)
        for tag, extents in k.extents.items():
            self.launch[tag] = self.names.fresh(f"_n_{tag}")
            values = [self.expr(e) for e in extents]
            self.emit(f"{self.launch[tag]} = {values[0] if len(values) == 1 else 'max(' + ', '.join(values) + ')'}")
            self.scope.append(self.launch[tag])
        for buf in k.per_launch:
            self.allocate(buf)
        opened = []
        for tag in k.block_tags:
            self.hw[tag] = self.names.fresh(f"_{tag}")
            self.emit(f"for {self.hw[tag]} in range({self.launch[tag]}):")
            self.scope.append(self.hw[tag])
            self.indent += 1
            self.depth += 1
            opened.append(tag)
        for buf in k.per_block:  # with checks, a read of what no thread of the block wrote raises
            self.allocate(buf, "_UNWRITTEN_BLOCK" if self.checks else "0")
        for buf in k.per_warp:
            self.allocate_per_warp(buf, k)
        if k.has_allreduce:
            self.rendezvous = self.names.fresh("_allreduce")
            self.emit(f"{self.rendezvous} = {{}}")
            self.scope.append(self.rendezvous)
        tags = k.thread_tags
        for tag in tags:
            self.hw[tag] = self.names.fresh(f"_{tag}")
        if k.has_barrier:
            fn = self.names.fresh("_thread")
            self.emit(f"def {fn}({', '.join(self.hw[t] for t in tags)}):")
            self.indent += 1
            self.scope += [self.hw[t] for t in tags]
            self.in_generator = True
            yield from self.thread_body(k)
            self.in_generator = False
            self.indent -= 1
            loops = " ".join(f"for {self.hw[t]} in range({self.launch[t]})" for t in tags)
            self.emit(f"_run_block([{fn}({', '.join(self.hw[t] for t in tags)}) {loops}])")
        else:
            for tag in tags:
                self.emit(f"for {self.hw[tag]} in range({self.launch[tag]}):")
                self.scope.append(self.hw[tag])
                self.indent += 1
                self.depth += 1
            yield from self.thread_body(k)
            self.indent -= len(tags)
            self.depth -= len(tags)
        self.indent -= len(opened)
        self.depth -= len(opened)
        del self.scope[scope_mark:]  # names of the kernel's threads and buffers end with it
        self.kernel, self.hw, self.launch, self.rendezvous, self.warps = None, {}, {}, None, {}

    def thread_body(self, k: Kernel) -> Steps:
        """One thread's run: its local buffers, every bound variable at its index, the body."""
        for buf in k.per_thread:
            self.allocate(buf)
        for buf in k.per_warp:
            group = "0"
            for tag in k.warp_group_tags:
                group = f"({group}) * {self.launch[tag]} + {self.hw[tag]}"
            name = self.names(buf, buf.name)
            self.emit(f"{name} = {self.warps[buf]}[{group}]")
            self.scope.append(name)
        for iv in k.threads:
            self.emit(f"{self.define(iv.var)} = {self.hw[iv.thread_tag]}")
        mark = len(self.lines)
        if k.guarded(k.root.node.thread_tag):  # type: ignore[union-attr]
            yield from self.block(f"if {self.names(k.root.node.var, '')} < {self.expr(k.root.value)}:",  # type: ignore[union-attr]
                                  k.body)
        else:
            yield k.body
        if len(self.lines) == mark:
            self.emit("pass")
        for iv in reversed(k.threads):
            self.undefine(iv.var)

    def visit_allocate(self, s: Allocate) -> Steps:
        self.allocate(s.buffer)
        yield s.body

    def visit_store(self, s: Store) -> None:
        buf = self.names(s.buffer, s.buffer.name)
        index, value = self.expr(s.index), self.expr(s.value)
        if f"_w_{s.buffer.dtype}" in WRAPS:  # an integer wraps around as the C target stores it
            value = f"_w_{s.buffer.dtype}({value})"
        if self.checks:
            self.emit(f"_store({buf}, {index}, {value}, {s.buffer.name!r}, {self.expr._tuple(s.checks)})")
        else:
            self.emit(f"{buf}[{index}] = {value}")

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        yield from self.block(f"if {self.expr(s.condition)}:", s.then_case)
        if s.else_case is not None:
            yield from self.block("else:", s.else_case)

    def visit_while(self, s: While) -> Steps:
        # Tested at the top of each iteration; helper functions it calls are defined before the loop.
        yield from self.block("while True:", s.body, first=f"if not ({self.expr(s.condition)}): break")

    def visit_let_stmt(self, s: LetStmt) -> Steps:
        value = self.expr(s.value)
        v = self.define(s.var)
        self.emit(f"{v} = {value}")
        yield s.body
        self.undefine(s.var)

    def visit_seq_stmt(self, s: SeqStmt) -> Steps:
        for x in s.seq:
            yield x

    def visit_producer_consumer(self, s: ProducerConsumer) -> Steps:
        yield s.body

    def allreduce(self, call: Call) -> None:
        """Each thread files its terms under its group (the threads not reduced over), waits,
        combines the group's terms in thread order, and waits again before the table is reused."""
        if self.kernel is None or self.reducer is None or self.rendezvous is None:
            raise LoweringError("build: tvm_thread_allreduce outside a kernel's reduce_scope")
        size = int(call.args[0].value)  # type: ignore[attr-defined]
        values = [self.expr(a) for a in call.args[1:1 + size]]
        cond = self.expr(call.args[1 + size])
        temps = [self.names(v.buffer, v.buffer.name) for v in call.args[2 + size:2 + 2 * size]]  # type: ignore[attr-defined]
        reduced = call.args[2 + 2 * size:]
        tags = {iv.var: iv.thread_tag for iv in self.kernel.threads}
        over = {tags[v] for v in reduced if isinstance(v, Var) and v in tags}
        group = [self.hw[t] for t in self.kernel.thread_tags if t not in over]
        rank = [self.expr(v) for v in reduced]
        combine = self.combiner(self.reducer)
        identity = "(" + "".join(f"{self.expr(e)}, " for e in self.reducer.identity_element) + ")"
        key, table = f"({''.join(g + ', ' for g in group)})", self.rendezvous
        self.emit(f"{table}.setdefault({key}, {{}})[({''.join(r + ', ' for r in rank)})] = "
                  f"({''.join(v + ', ' for v in values)}) if {cond} else {identity}")
        self.emit("yield")
        acc = self.names.fresh("_acc")
        self.emit(f"{acc} = {identity}")
        rank_name, terms = self.names.fresh("_rank"), self.names.fresh("_term")
        self.emit(f"for {rank_name}, {terms} in sorted({table}[{key}].items()):")
        self.emit(f"    {acc} = {combine}(*{acc}, *{terms})")
        for k, t in enumerate(temps):
            self.emit(f"{t}[0] = {acc}[{k}]")
        self.emit("yield")

    def combiner(self, reducer: CommReducer) -> str:
        """A helper function computing *reducer*'s combination of two tuples of values."""
        name = self.names.fresh("_combine")
        params = [self.define(v) for v in (*reducer.lhs, *reducer.rhs)]
        results = [self.expr(e) for e in reducer.result]
        for v in reversed((*reducer.lhs, *reducer.rhs)):
            self.undefine(v)
        self.helpers.append([f"def {name}({', '.join(params)}):", f"    return ({''.join(r + ', ' for r in results)})"])
        return name

    def visit_evaluate(self, s: Evaluate) -> None:
        if is_allreduce(s):
            self.allreduce(s.value)  # type: ignore[arg-type]
            return
        if is_barrier(s):
            if self.kernel is None:
                raise LoweringError("build: a barrier (tvm_storage_sync) outside any thread-bound loop")
            self.emit("yield")
            return
        self.expr.discarded = s.value
        self.emit(self.expr(s.value))
        self.expr.discarded = None

    def visit_assert_stmt(self, s: AssertStmt) -> None:
        self.emit(f"if not ({self.expr(s.condition)}): raise AssertionError({s.message!r})")

    def visit_default(self, s: Stmt) -> None:
        raise LoweringError(f"build: {type(s).__name__} must be flattened before it can run")


def python_source(body: Stmt, params: Sequence[Buffer], scalars: Sequence[Var] = (), name: str = "kernel", *,
                  checks: bool = True) -> str:
    """The source of ``def <name>(<buffers>, <scalars>)`` running *body* on flat lists.

    :raises LoweringError: if *body* uses a variable that neither a statement nor a
        parameter defines.
    """
    names = Names()
    gen = _StmtSource(names, checks)
    gen.scope = [names(b, b.name) for b in params]
    for v in scalars:
        gen.define(v)
    args = ", ".join(gen.scope)
    gen(body)
    lines = [f"def {name}({args}):", *(gen.lines or ["    pass"])]
    for helper in gen.helpers:
        lines = [*helper, "", *lines]
    return "\n".join(lines) + "\n"


def compile_source(source: str, name: str = "kernel") -> Any:
    """The function *name* defined by *source*, with the runtime helpers in scope."""
    namespace: dict[str, Any] = dict(RUNTIME)
    exec(compile(source, f"<lowered {name}>", "exec"), namespace)  # noqa: S102 - our own generated code
    return namespace[name]
