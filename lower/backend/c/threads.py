"""GPU kernels in C: blocks as an OpenMP parallel loop, the threads of a block as loops.

A kernel without barriers runs each thread's whole body in a loop over the threads. A kernel
with barriers (``tvm_storage_sync`` or a cross-thread reduction) is cut at them: the code
between two barriers runs for every thread before any thread goes on, so each stretch is a
loop over the threads, and the statements around barriers (loops, conditions, lets that are
the same in every thread) run once per block around those loops. What a thread keeps across
a barrier (its local buffers, its lets) lives in arrays with one slot per thread. A condition
that differs between threads is checked in every stretch it covers.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from lower.backend.c.expr import c_type
from lower.backend.gpu_kernel import Kernel, analyze_kernel, check_races
from lower.errors import LoweringError
from lower.ir.stmt import (
    Allocate,
    AttrStmt,
    Buffer,
    BufferView,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    Load,
    ProducerConsumer,
    SeqStmt,
    Stmt,
)
from lower.passes.thread_sync import barrier_holders, is_allreduce
from schedule import arith
from schedule.base.storage_scope import per_thread
from schedule.ir.expr import LT, Call, Expr, Max, Not, Var
from schedule.ir.functor import post_order_visit
from schedule.ir.itervar import IterVar
from schedule.ir.reduce import CommReducer

Steps = Generator[Any, Any, None]


class KernelSource:
    """The kernel part of the C statement source (mixed into it; uses its emit, expr, names)."""

    # Provided by the statement source it is mixed into.
    emit: Any
    expr: Any
    names: Any
    indent: int
    open_alloc: Any  # (name, dtype, size) -> the lines that free the allocation
    block: Any
    if_else: Any
    let: Any
    loop_head: Any

    def init_kernel_state(self) -> None:
        self.kernel: Kernel | None = None
        self.hw: dict[str, str] = {}  # thread tag -> the C name of its index
        self.launch: dict[str, str] = {}  # thread tag -> the C name of its launch extent
        self.launch_extent: dict[str, Expr] = {}  # thread tag -> its launch extent
        self.threads_per_block: Expr = arith.const(1)
        self.tid = ""  # the linear index of a thread in its block, where threads keep state
        self.n_threads = ""
        self.variant: set[Var] = set()  # variables whose value differs between threads
        self.spilled: list[tuple[Var, str]] = []  # per-thread lets kept across barriers
        self.private: list[tuple[Buffer, str, str]] = []  # per-thread buffers: base array, size
        self.warps: list[tuple[Buffer, str, str]] = []  # per-warp buffers: base array, size
        self.written_bases: dict[Buffer, str] = {}  # per-warp buffer -> its written flags' base array
        self.conds: list[str] = []  # conditions that differ between threads, checked per stretch
        self.holders: set[int] = set()
        self.first: dict[str, IterVar] = {}  # thread tag -> the first IterVar bound to it
        self.reducer: CommReducer | None = None

    def close(self, lines: list[str]) -> None:
        for line in lines:
            self.emit(line)

    # -- attributes ----------------------------------------------------------------------------
    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        if s.key == "thread_extent" and isinstance(s.node, IterVar):
            if self.kernel is None:
                yield from self.run_kernel(analyze_kernel(s))
            elif self.kernel.guarded(s.node.thread_tag):
                yield from self.if_else(f"{self.names(s.node.var, s.node.var.name)} < {self.expr(s.value)}",
                                        s.body, None)
            else:
                yield s.body
        elif s.key == "virtual_thread" and isinstance(s.node, IterVar):
            loop = For(s.node.var, arith.const(0), s.value, ForKind.SERIAL, s.body)
            yield from self.block(self.loop_head(loop), s.body)
        elif s.key == "reduce_scope" and isinstance(s.node, CommReducer):
            saved, self.reducer = self.reducer, s.node
            yield s.body
            self.reducer = saved
        else:
            yield s.body

    # -- a kernel --------------------------------------------------------------------------------
    def run_kernel(self, k: Kernel) -> Steps:
        """Every block of *k* (in parallel), in each every thread, runs the kernel body."""
        check_races(k)
        self.kernel = k
        self.emit("{")
        self.indent += 1
        for tag, extents in k.extents.items():
            self.launch[tag] = self.names.fresh(f"n_{tag}")
            extent = extents[0]
            for e in extents[1:]:
                extent = Max(extent, e)
            self.emit(f"const int32_t {self.launch[tag]} = {self.expr(extent)};")
            self.launch_extent[tag] = extent
            if not tag.startswith("blockIdx."):
                self.threads_per_block = arith.mul(self.threads_per_block, extent)
        closers = [self.open_alloc(self.names(b, b.name), b.dtype, b.size) for b in k.per_launch]
        blocks = k.block_tags
        if blocks:
            collapse = f" collapse({len(blocks)})" if len(blocks) > 1 else ""
            self.emit(f"#pragma omp parallel for{collapse} schedule(static)")
        # Each tag's index is named after the first IterVar bound to it; others are copies.
        self.first = {}
        for iv in k.threads:
            self.first.setdefault(iv.thread_tag, iv)
        for tag in blocks:
            self.hw[tag] = h = self.names(self.first[tag].var, self.first[tag].var.name)
            self.emit(f"for (int32_t {h} = 0; {h} < {self.launch[tag]}; ++{h}) {{")
            self.indent += 1
        self.define_copies(blocks)
        block_closers = [self.open_alloc(self.names(b, b.name), b.dtype, b.size) + self.open_written(b, b.size)
                         for b in k.per_block]
        for b in k.per_block:
            if self.expr.checked:
                self.expr.written[b] = self.written_bases[b]
        block_closers += [self.open_per_warp(b, k) for b in k.per_warp]
        for tag in k.thread_tags:
            self.hw[tag] = self.names(self.first[tag].var, self.first[tag].var.name)
        self.variant = {iv.var for iv in k.threads if iv.thread_tag not in blocks}
        root = k.root.node
        body: Stmt = k.body
        if k.guarded(root.thread_tag):
            body = IfThenElse(LT(root.var, k.root.value), body)
        if not k.has_barrier:
            n = self.open_threads()
            thread_closers = [self.open_alloc(self.names(b, b.name), b.dtype, b.size) for b in k.per_thread]
            yield body
            for lines in reversed(thread_closers):
                self.close(lines)
            self.close_threads(n)
        else:
            self.holders = barrier_holders(body)
            self.tid = self.names.fresh("tid")
            self.n_threads = self.names.fresh("n_threads")
            count = " * ".join(self.launch[t] for t in k.thread_tags) or "1"
            self.emit(f"const int32_t {self.n_threads} = {count};")
            private = [self.open_private(b) for b in k.per_thread]
            yield self.phased(body)
            for lines in reversed(private):
                self.close(lines)
            del self.private[:]
        for lines in reversed(block_closers):
            self.close(lines)
        for _ in blocks:
            self.indent -= 1
            self.emit("}")
        for lines in reversed(closers):
            self.close(lines)
        self.indent -= 1
        self.emit("}")
        self.init_kernel_state()

    def open_threads(self) -> int:
        """Open the loops over a block's threads and define what a thread sees; the number of
        braces to close."""
        k = self.kernel
        assert k is not None
        opened = 0
        for tag in k.thread_tags:
            h = self.hw[tag]
            self.emit(f"for (int32_t {h} = 0; {h} < {self.launch[tag]}; ++{h}) {{")
            self.indent += 1
            opened += 1
        if not opened:  # a scope of its own all the same, for the names it defines
            self.emit("{")
            self.indent += 1
            opened = 1
        if self.tid:
            self.emit(f"const int32_t {self.tid} = {self.linear(self.hw)};")
        self.define_copies(k.thread_tags)
        for var, array in self.spilled:
            self.emit(f"const {c_type(var.dtype)} {self.names(var, var.name)} = {array}[{self.tid}];")
        for buf, base, size in self.private:
            t = c_type(buf.dtype)
            self.emit(f"{t}* restrict {self.names(buf, buf.name)} = {base} + (size_t){self.tid} * ({size});")
        if self.warps:
            group = self.linear(self.hw, k.warp_group_tags)
            for buf, base, size in self.warps:
                name = self.names(buf, buf.name)
                self.emit(f"{c_type(buf.dtype)}* {name} = {base} + (size_t)({group}) * ({size});")
                if self.expr.checked:
                    flags = self.expr.written[buf] = self.names.fresh(f"{name}_written")
                    self.emit(f"uint8_t* {flags} = {self.written_bases[buf]} + (size_t)({group}) * ({size});")
        if self.conds:
            self.emit(f"if ({' && '.join(self.conds)}) {{")
            self.indent += 1
            opened += 1
        return opened

    def define_copies(self, tags: list[str]) -> None:
        """Define each IterVar bound to one of *tags* other than the first as that tag's index."""
        assert self.kernel is not None
        for iv in self.kernel.threads:
            if iv.thread_tag in tags and iv is not self.first[iv.thread_tag]:
                self.emit(f"const {c_type(iv.var.dtype)} {self.names(iv.var, iv.var.name)} = {self.hw[iv.thread_tag]};")

    def close_threads(self, opened: int) -> None:
        for _ in range(opened):
            self.indent -= 1
            self.emit("}")

    def linear(self, index: dict[str, str], tags: list[str] | None = None) -> str:
        """The linear index of the per-tag indices *index* over *tags* (default: all thread tags)."""
        k = self.kernel
        assert k is not None
        text = ""
        for tag in k.thread_tags if tags is None else tags:
            text = index[tag] if not text else f"({text}) * {self.launch[tag]} + {index[tag]}"
        return text or "0"

    def varies(self, e: Expr) -> bool:
        """Whether *e* may differ between the threads of a block."""
        found = []
        private = {id(b) for b, _, _ in self.private}

        def visit(x: Expr) -> None:
            if (isinstance(x, Var) and x in self.variant) or (isinstance(x, Load) and id(x.buffer) in private):
                found.append(x)

        post_order_visit(e, visit)
        return bool(found)

    def open_per_warp(self, buf: Buffer, k: Kernel) -> list[str]:
        """One copy of the warp buffer *buf* per warp of the block (per index of the thread tags
        other than threadIdx.x)."""
        base = self.names.fresh(f"{buf.name}_warps")
        groups: Expr = arith.const(1)
        for tag in k.warp_group_tags:
            groups = arith.mul(groups, self.launch_extent[tag])
        self.warps.append((buf, base, self.expr(buf.size)))
        closer = self.open_alloc(base, buf.dtype, arith.mul(buf.size, groups))
        return closer + self.open_written(buf, arith.mul(buf.size, groups))

    def open_written(self, buf: Buffer, size: Expr) -> list[str]:
        """Flags of the elements of *buf* (memory threads share) a thread wrote, all clear: a read
        of another is an UnwrittenReadError, as on the checked Python target."""
        flags = self.written_bases[buf] = self.names.fresh(f"{buf.name}_written")
        if not self.expr.checked:
            return []
        closer = self.open_alloc(flags, "uint8", size)
        self.emit(f"memset({flags}, 0, (size_t)({self.expr.index(buf, size)}));")
        return closer

    def open_private(self, buf: Buffer) -> list[str]:
        """One copy of the per-thread buffer *buf* for each thread of the block."""
        base = self.names.fresh(f"{buf.name}_threads")
        size = buf.size
        closer = self.open_alloc(base, buf.dtype, arith.mul(size, self.threads_per_block))
        self.private.append((buf, base, self.expr(size)))
        return closer

    # -- a kernel cut at its barriers -------------------------------------------------------------
    def phased(self, s: Stmt) -> Steps:
        """Emit *s*, a part of a kernel's body, for every thread of the block in stretches."""
        if id(s) not in self.holders:
            opened = self.open_threads()
            yield s
            self.close_threads(opened)
        elif isinstance(s, SeqStmt):
            run: list[Stmt] = []
            for x in (*s.seq, None):
                if x is None or id(x) in self.holders:
                    if run:
                        yield self.phased(run[0] if len(run) == 1 else SeqStmt(tuple(run)))
                        run = []
                    if x is not None:
                        yield self.phased(x)
                else:
                    run.append(x)
        elif isinstance(s, Evaluate):
            if is_allreduce(s):
                self.allreduce(s.value)  # type: ignore[arg-type]
            # A barrier is the end of one stretch and the start of the next.
        elif isinstance(s, For):
            if self.varies(s.min) or self.varies(s.extent):
                raise LoweringError("build: target 'c' needs the loops around a barrier to run the same "
                                    f"iterations in every thread; loop '{s.loop_var.name}' does not")
            yield from self.block(self.loop_head(s), self.phased(s.body))
        elif isinstance(s, IfThenElse):
            yield from self.phased_if(s)
        elif isinstance(s, LetStmt):
            yield from self.phased_let(s)
        elif isinstance(s, Allocate):
            closer = (self.open_private(s.buffer) if per_thread(s.buffer.scope)
                      else self.open_alloc(self.names(s.buffer, s.buffer.name), s.buffer.dtype, s.buffer.size))
            yield self.phased(s.body)
            if per_thread(s.buffer.scope):
                self.private.pop()
            self.close(closer)
        elif isinstance(s, AttrStmt):
            yield from self.phased_attr(s)
        elif isinstance(s, ProducerConsumer):
            yield self.phased(s.body)
        else:
            raise LoweringError(f"build: target 'c' cannot run a {type(s).__name__} around a barrier")

    def phased_if(self, s: IfThenElse) -> Steps:
        cond = self.expr(s.condition)
        if not self.varies(s.condition):
            otherwise = self.phased(s.else_case) if s.else_case is not None else None
            yield from self.if_else(cond, self.phased(s.then_case), otherwise)
            return
        self.conds.append(cond)
        yield self.phased(s.then_case)
        self.conds.pop()
        if s.else_case is not None:
            self.conds.append(self.expr(Not(s.condition)))
            yield self.phased(s.else_case)
            self.conds.pop()

    def phased_let(self, s: LetStmt) -> Steps:
        if not self.varies(s.value):
            yield from self.let(s.var, s.value, self.phased(s.body))
            return
        t = c_type(s.var.dtype)
        array = self.names.fresh(f"{s.var.name}_threads")
        self.emit("{")
        self.indent += 1
        self.emit(f"{t} {array}[{self.n_threads}];")
        opened = self.open_threads()
        self.emit(f"{array}[{self.tid}] = {self.expr(s.value)};")
        self.close_threads(opened)
        self.spilled.append((s.var, array))
        self.variant.add(s.var)
        yield self.phased(s.body)
        self.spilled.pop()
        self.variant.discard(s.var)
        self.indent -= 1
        self.emit("}")

    def phased_attr(self, s: AttrStmt) -> Steps:
        k = self.kernel
        assert k is not None
        if s.key == "thread_extent" and isinstance(s.node, IterVar) and k.guarded(s.node.thread_tag):
            yield from self.phased_if(IfThenElse(LT(s.node.var, s.value), s.body))
        elif s.key == "reduce_scope" and isinstance(s.node, CommReducer):
            saved, self.reducer = self.reducer, s.node
            yield self.phased(s.body)
            self.reducer = saved
        elif s.key == "virtual_thread" and isinstance(s.node, IterVar):
            yield self.phased(For(s.node.var, arith.const(0), s.value, ForKind.SERIAL, s.body))
        else:
            yield self.phased(s.body)

    def allreduce(self, call: Call) -> None:
        """Every thread files its term; then each combines its group's terms (the threads that
        differ only in the reduced indices) in the order of those indices."""
        k, reducer = self.kernel, self.reducer
        if k is None or reducer is None:
            raise LoweringError("build: tvm_thread_allreduce outside a kernel's reduce_scope")
        size = int(call.args[0].value)  # type: ignore[attr-defined]
        values = call.args[1:1 + size]
        cond = self.expr(call.args[1 + size])
        temps = [v.buffer for v in call.args[2 + size:2 + 2 * size] if isinstance(v, BufferView)]
        tags = {iv.var: iv.thread_tag for iv in k.threads}
        over = [tags[v] for v in call.args[2 + 2 * size:] if isinstance(v, Var) and v in tags]
        types = [c_type(v.dtype) for v in values]
        identity = [self.expr(e) for e in reducer.identity_element]
        stages = [self.names.fresh("stage") for _ in values]
        self.emit("{")
        self.indent += 1
        i = self.names.fresh("i")
        for t, st, ident in zip(types, stages, identity):
            self.emit(f"{t} {st}[{self.n_threads}];")
            self.emit(f"for (int32_t {i} = 0; {i} < {self.n_threads}; ++{i}) {st}[{i}] = {ident};")
        opened = self.open_threads()
        self.emit(f"if ({cond}) {{")
        for st, v in zip(stages, values):
            self.emit(f"  {st}[{self.tid}] = {self.expr(v)};")
        self.emit("}")
        self.close_threads(opened)
        opened = self.open_threads()
        accs = [self.names.fresh("acc") for _ in values]
        for t, acc, ident in zip(types, accs, identity):
            self.emit(f"{t} {acc} = {ident};")
        rank = dict(self.hw)
        for tag in dict.fromkeys(over):
            rank[tag] = r = self.names.fresh("r")
            self.emit(f"for (int32_t {r} = 0; {r} < {self.launch[tag]}; ++{r}) {{")
            self.indent += 1
        at = self.linear(rank)
        self.emit("{")
        self.indent += 1
        for v, acc in zip(reducer.lhs, accs):
            self.emit(f"const {c_type(v.dtype)} {self.names(v, v.name)} = {acc};")
        for v, st in zip(reducer.rhs, stages):
            self.emit(f"const {c_type(v.dtype)} {self.names(v, v.name)} = {st}[{at}];")
        new = [self.names.fresh("next") for _ in values]
        for t, n, e in zip(types, new, reducer.result):
            self.emit(f"const {t} {n} = {self.expr(e)};")
        for acc, n in zip(accs, new):
            self.emit(f"{acc} = {n};")
        self.indent -= 1
        self.emit("}")
        for _ in dict.fromkeys(over):
            self.indent -= 1
            self.emit("}")
        for buf, acc in zip(temps, accs):
            self.emit(f"{self.names(buf, buf.name)}[0] = {acc};")
        self.close_threads(opened)
        self.indent -= 1
        self.emit("}")
