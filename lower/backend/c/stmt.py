"""C source from a flattened function: one C99 function over the arguments' data pointers.

Loops keep their kinds: ``parallel`` is an OpenMP parallel loop, ``vectorized`` an OpenMP
``simd`` loop, ``unrolled`` loops of a small constant extent are written out iteration by
iteration. Small constant allocations live on the stack, others on the heap, 64-byte aligned.
GPU kernels run on the CPU as :mod:`lower.backend.c.threads` describes.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass, replace
from typing import Any

from bound import simplify
from lower.backend.c.callback import PythonCall
from lower.backend.c.compile import native_vector_bytes, vector_registers
from lower.backend.c.edges import cut_edges
from lower.backend.c.expr import CExprSource, c_type
from lower.backend.c.extremum import Extremum, plan_extremum
from lower.backend.c.extremum import helper as extremum_helper
from lower.backend.c.outline import needs, own_sequences, parts
from lower.backend.c.registers import promote
from lower.backend.c.runtime import ASSERT, C_RUNTIME, Site, needs_guard
from lower.backend.c.threads import KernelSource
from lower.backend.c.vector import LoadTable, VectorLoop, plan_vector_loop, shared_loads, vector_statements, vector_type
from lower.backend.c.vector_math import use_vector_math
from lower.backend.names import Names
from lower.errors import LoweringError
from lower.ir.stmt import (
    Allocate,
    AssertStmt,
    Buffer,
    Evaluate,
    For,
    ForKind,
    IfThenElse,
    LetStmt,
    Load,
    ProducerConsumer,
    SeqStmt,
    Stmt,
    Store,
    While,
)
from lower.ir.stmt_functor import StmtFunctor, stmt_exprs, walk
from lower.ir.substitute import substitute_stmt
from lower.passes.thread_sync import is_allreduce, is_barrier
from schedule import arith
from schedule.ir.dtype import bits
from schedule.ir.expr import And, Call, Expr, IntImm, Or, Select, Var
from schedule.ir.functor import children, distinct_post_order, free_vars, substitute

#: Allocations of at most this many bytes, of a constant size, go on the stack.
STACK_BYTES = 64 * 1024
#: Unrolled loops of at most this many iterations are written out in the source.
UNROLL_LIMIT = 64
#: A parallel loop of at most this many iterations hands them out one at a time (OpenMP's
#: dynamic schedule); longer or symbolic ones in shrinking chunks (guided). On a host whose
#: cores are sometimes taken away, static halves lose the most: the 64x64 blur (32 row tiles)
#: 2.6 -> 2.1-2.4 ms dynamic, conv2d 1.64 -> 1.53 guided, while dynamic cost the softmax's 4096
#: short rows 1.5 -> 2.6 ms and guided 1.5 -> 1.46.
DYNAMIC_ITERATIONS = 256
#: A vector loop of more groups of lanes than this stays a loop (over the groups).
MAX_VECTOR_GROUPS = 8
#: The name of the compiled function.
ENTRY = "tb_main"

_C_WORDS = {
    "auto", "break", "case", "char", "const", "continue", "default", "do", "double", "else", "enum", "extern",
    "float", "for", "goto", "if", "inline", "int", "long", "register", "restrict", "return", "short", "signed",
    "sizeof", "static", "struct", "switch", "typedef", "union", "unsigned", "void", "volatile", "while", "bool",
    "true", "false", "main", "free", "malloc", "abs", "tb_ctx", "tb_ctx_t", "tb_call", "tb_fail", "tb_failed",
    "tb_signals_at_start", "tb_stopped", "tb_signals", "tb_interrupt",
    "tb_within", "tb_unwritten", "tb_alloc", "tb_p", "tb_i", "tb_f", "tb_fres", "tb_ires", "tb_callback_t",
    *(f"{n}{s}" for n in (
        "exp", "exp2", "exp10", "log", "log2", "log10", "log1p", "sqrt", "sin", "cos", "tan", "sinh", "cosh",
        "tanh", "asin", "acos", "atan", "erf", "floor", "ceil", "round", "trunc", "fabs", "pow", "fmod",
        "nearbyint", "asinh", "acosh", "atanh", "atan2", "hypot", "copysign", "nextafter", "ldexp")
        for s in ("", "f")),
}

_HEADER = """#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
"""

Steps = Generator[Stmt, None, None]


class CNames(Names):
    """Identifiers that are no C keyword, libm function or helper."""

    def __init__(self) -> None:
        super().__init__()
        self._used |= _C_WORDS | {ENTRY}


class _StmtSource(KernelSource, StmtFunctor[None]):
    def __init__(self, names: Names, checked: bool = True) -> None:
        self.names = names
        self.expr = CExprSource(names, checked)
        self.lines: list[str] = []
        self.indent = 1
        #: The function's array arguments: their data may start anywhere.
        self.arguments: set[Buffer] = set()
        #: Whether loops emitted now are tb_main's own (see :meth:`stop_check`).
        self.interruptible = False
        #: The ids of the sequences of tb_main's own code, which may be cut into parts.
        self.own_sequences: set[int] = set()
        self.init_kernel_state()

    def emit(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def block(self, head: str, body: Any, tail: Sequence[str] = (), first: Sequence[str] = ()) -> Steps:
        """``head { first body tail }``; *body* is a statement or a generator the driver runs."""
        self.emit(head + " {")
        self.indent += 1
        for line in first:
            self.emit(line)
        yield body
        for line in tail:
            self.emit(line)
        self.indent -= 1
        self.emit("}")

    def if_else(self, condition: str, then: Any, otherwise: Any | None) -> Steps:
        """``if (condition) { then } else { otherwise }``; each a statement or a generator."""
        self.emit(f"if ({condition}) {{")
        self.indent += 1
        yield then
        self.indent -= 1
        if otherwise is not None:
            self.emit("} else {")
            self.indent += 1
            yield otherwise
            self.indent -= 1
        self.emit("}")

    def let(self, var: Var, value: Expr, body: Any) -> Steps:
        """*body* (a statement or a generator) in a scope where *var* is the constant *value*."""
        self.emit("{")
        self.indent += 1
        self.emit(f"const {c_type(var.dtype)} {self.names(var, var.name)} = {self.expr(value)};")
        yield body
        self.indent -= 1
        self.emit("}")

    def stop_check(self, s: For) -> list[str]:
        """The test that skips the rest of an outer loop once a SIGINT arrived (see
        :mod:`lower.backend.c.interrupts`): in ``tb_main``'s own code, at loops holding loops."""
        if not self.interruptible or s.kind not in (ForKind.SERIAL, ForKind.PARALLEL) or \
                not any(isinstance(x, For) for x in walk(s.body)):
            return []
        return ["if (tb_stopped(tb_signals_at_start)) continue;"]

    def hoist_guards(self, s: For) -> list[tuple[str, str, str, str, str]]:
        """The run-time checks of indices from data that every iteration of *s* makes alike,
        made once before it: an embedding lookup ``E[Tok[t], d]`` checks ``Tok[t]`` once per
        row, not once per element. An access qualifies when its statement is one of the loop
        body's own (not under a condition, a select or another loop) and its checked index uses
        neither the loop variable nor an array the loop writes. The flag is true for an empty
        loop (nothing to check); a failing check is recorded once, as the first of its
        iterations would record it."""
        if not self.expr.checked:
            return []
        body = s.body.seq if isinstance(s.body, SeqStmt) else [s.body]
        if not all(isinstance(x, Store) for x in body):
            return []
        written = {x.buffer for x in body}
        accesses: list[Load | Store] = []
        for st in body:
            accesses.append(st)
            accesses += _unconditional_loads(st)
        keys = []
        extent = self.expr.exact(s.extent)
        for access in accesses:
            if not needs_guard(access) or access.checked:
                continue
            for test, exprs in self.expr.guard_tests(access):
                if test in self.expr.hoisted or any(
                        s.loop_var in free_vars([e]) or any(isinstance(x, Load) and x.buffer in written
                                                            for x in distinct_post_order(e)) for e in exprs):
                    continue
                flag = self.names.fresh("tb_ok")
                kind, where, index, lo, ext = test
                self.emit(f"const bool {flag} = ({extent}) <= 0 || "
                          f"tb_within(tb_ctx, {self.expr.site(kind, where)}, {index}, {lo}, {ext});")
                # The checked index itself, or the region's start where the check failed: the
                # loop reads through it unconditionally (and vectorizes as an unchecked loop).
                i_expr, lo_expr, _ = exprs
                clamped = Var("tb_i", i_expr.dtype)
                name = self.names(clamped, clamped.name)
                saved, self.expr.wide = self.expr.wide, False
                try:
                    self.emit(f"const {c_type(i_expr.dtype)} {name} = {flag} ? {self.expr(i_expr)} : "
                              f"({c_type(i_expr.dtype)})({self.expr(lo_expr)});")
                finally:
                    self.expr.wide = saved
                self.expr.hoisted[test] = flag
                self.expr.hoisted_vars[test] = clamped
                keys.append(test)
        return keys

    def loop_head(self, s: For) -> str:
        """``for (...)`` over the iterations of *s*."""
        v, t = self.names(s.loop_var, s.loop_var.name), c_type(s.loop_var.dtype)
        lo, extent = self.expr.exact(s.min), self.expr.exact(s.extent)
        end = f"{lo} + {extent}" if lo != "0" else extent
        return f"for ({t} {v} = {lo}; {v} < {end}; ++{v})"

    def visit_seq_stmt(self, s: SeqStmt) -> Steps:
        groups = parts(s) if id(s) in self.own_sequences else [list(s.seq)]
        if len(groups) == 1:
            yield from self.sequence(groups[0])
            return
        for group in groups:
            yield from self.part(group)

    def sequence(self, body: list[Stmt]) -> Steps:
        """*body* in order, each run of consecutive written-out vector loops of one vector type
        together, a vector that two of their statements load loaded once before them."""
        run: list[VectorLoop] = []
        for st in [*body, None]:
            plan = self.written_out(st) if isinstance(st, For) else None
            if plan is not None and (not run or run[0].type_name == plan.type_name):
                run.append(plan)
                continue
            if run:
                self.vector_run(run)
            run = [plan] if plan is not None else []
            if st is not None and plan is None:
                yield st

    def written_out(self, s: For) -> VectorLoop | None:
        """The plan of *s* if it is a vectorized loop written out group by group."""
        if s.kind != ForKind.VECTORIZED or (plan := plan_vector_loop(s)) is None:
            return None
        return plan if plan.groups <= MAX_VECTOR_GROUPS or self.touches_registers(s) else None

    def vector_run(self, plans: list[VectorLoop]) -> None:
        """The statements of written-out vector loops *plans*, one after the other, the vectors
        several of them load (:func:`shared_loads`) loaded once first."""
        vt = plans[0].type_name
        self.expr.helpers.setdefault(vt, plans[0].typedef())
        table: LoadTable[str] = LoadTable()
        shared = [(buf, index) for buf, index in shared_loads(plans) if buf not in self.expr.registers.lanes]
        if shared:
            self.emit("{")
            self.indent += 1
        # in registers, as many as leave most of them to the statements (else GCC spills)
        pinned = len(shared) <= vector_registers() // 4 and \
            plans[0].lanes * bits(plans[0].dtype) // 8 <= native_vector_bytes()
        for buf, index in shared:
            name = self.names.fresh("tb_v")
            self.emit(f"{vt} {name} = {self.vector_access(buf, vt, index)};")
            if pinned:
                self.emit(f"TB_IN_REGISTER({name});")
            table.set(buf, index, name)

        def access(buf: Buffer, t: str, index: Expr) -> str:
            return table.get(buf, index) or self.vector_access(buf, t, index)
        for plan in plans:
            for line in vector_statements(plan, self.expr, access, self.expr.helpers):
                self.emit(line)
        if shared:
            self.indent -= 1
            self.emit("}")

    def part(self, body: list[Stmt]) -> Steps:
        """*body*, statements of ``tb_main``'s own, as a function of its own that it calls
        (see :mod:`lower.backend.c.outline`); inline when it cannot be one."""
        params = self.outlined_parameters(body)
        if params is None:
            yield from body
            return
        fn = self.names.fresh("tb_part")
        saved = self.lines, self.indent
        self.lines, self.indent = [], 1
        yield from body
        lines, (self.lines, self.indent) = self.lines, saved
        params.append(("tb_ctx_t* tb_ctx", "tb_ctx"))
        params.append(("int32_t tb_signals_at_start", "tb_signals_at_start"))
        signature = ", ".join(p for p, _ in params)
        # Not inlined: GCC would put a part called once back into tb_main.
        self.expr.helpers[fn] = "\n".join([f"__attribute__((noinline)) static void {fn}({signature}) {{", *lines, "}"])
        self.emit(f"{fn}({', '.join(a for _, a in params)});")

    def visit_producer_consumer(self, s: ProducerConsumer) -> Steps:
        if s.is_producer:
            self.emit(f"// produce {s.op.name}")
        yield s.body

    def open_alloc(self, name: str, dtype: str, size: Expr) -> list[str]:
        """Declare *size* elements of *dtype* as *name*: on the stack when small and constant,
        else on the heap, where the code that uses them runs only if the memory was there (the
        call then raises MemoryError); the lines that close that and free them."""
        t = c_type(dtype)
        count = arith.value_of(size)
        if count is not None and count * max(bits(dtype) // 8, 1) <= STACK_BYTES:
            self.emit(f"{t} {name}[{max(int(count), 1)}] __attribute__((aligned(64)));")
            return []
        site = self.expr.site("alloc", name)
        count = self.expr.index(Buffer(name, dtype, (size,)), size)
        self.emit(f"{t}* {name} = ({t}*)tb_alloc(tb_ctx, {site}, (int64_t)({count}), sizeof({t}));")
        self.emit(f"if ({name}) {{")
        return [f"free({name});", "}"]

    def touches_registers(self, s: For) -> bool:
        """Whether *s* reads or writes a buffer held in variables at an index that depends on its
        loop variable (the index must be constant: the loop is written out)."""
        regs = self.expr.registers.lanes
        if not regs:
            return False
        v = s.loop_var
        for x in walk(s):
            if isinstance(x, Store) and x.buffer in regs and v in free_vars([x.index]):
                return True
            for e in stmt_exprs(x):
                if any(isinstance(y, Load) and y.buffer in regs and v in free_vars([y.index])
                       for y in distinct_post_order(e)):
                    return True
        return False

    def vector_access(self, buf: Buffer, vt: str, index: Expr) -> str:
        """The vector of *buf*'s elements from *index* on: a variable, or memory."""
        if buf in self.expr.registers.lanes:
            return self.expr.registers.vector(buf, index)
        return f"*({vt}*)&{self.expr.buffer_name(buf)}[{self.expr.index(buf, index)}]"

    def visit_allocate(self, s: Allocate) -> Steps:
        buf = s.buffer
        regs = self.expr.registers
        if buf in regs.lanes:
            lanes = regs.lanes[buf]
            count = int(arith.value_of(buf.size)) // lanes  # type: ignore[arg-type]
            base = self.names(buf, buf.name)
            regs.names[buf] = [self.names.fresh(f"{base}_r{k}") for k in range(count)]
            t = c_type(buf.dtype)
            if lanes > 1:
                t, typedef = vector_type(buf.dtype, lanes)
                self.expr.helpers.setdefault(t, typedef)
            self.emit(f"{t} {', '.join(n + ' = {0}' if lanes > 1 else n + ' = 0' for n in regs.names[buf])};")
            yield s.body
            return
        closer = self.open_alloc(self.names(buf, buf.name), buf.dtype, buf.size)
        yield s.body
        self.close(closer)

    def visit_for(self, s: For) -> Steps:
        count = arith.value_of(s.extent)
        if s.kind == ForKind.UNROLLED and count is not None and int(count) <= UNROLL_LIMIT:
            for k in range(int(count)):
                value = arith.add(s.min, IntImm(s.loop_var.dtype, k))
                yield substitute_stmt(s.body, {s.loop_var: value})
            return
        if (plan := self.written_out(s)) is not None:
            self.vector_run([plan])
            return
        if (extremum := plan_extremum(s, self.expr.registers.lanes)) is not None:
            yield from self.extremum(s, extremum)
            return
        if s.kind == ForKind.VECTORIZED and (plan := plan_vector_loop(s)) is not None:
            self.expr.helpers.setdefault(plan.type_name, plan.typedef())
            target = next((st for st in plan.stores if st.buffer in self.arguments), None)
            if target is None:
                self.vector_groups(plan, str(plan.groups))
            else:
                yield from self.aligned_vector_loop(plan, target)
            return
        if s.kind == ForKind.PARALLEL:
            count = arith.value_of(s.extent)
            kind = "dynamic" if isinstance(count, int) and count <= DYNAMIC_ITERATIONS else "guided"
            self.emit(f"#pragma omp parallel for schedule({kind})")
            yield from self.parallel_body(s)
            return
        keys = self.hoist_guards(s)  # before a pragma, which must be right above its loop
        if s.kind == ForKind.VECTORIZED:
            self.emit("#pragma omp simd")
        elif s.kind == ForKind.UNROLLED:
            self.emit("#pragma GCC unroll 8")
        yield from self.block(self.loop_head(s), s.body, first=self.stop_check(s))
        for key in keys:
            del self.expr.hoisted[key], self.expr.hoisted_vars[key]

    def extremum(self, s: For, plan: Extremum) -> Steps:
        """*s*, a max or min over a contiguous row: by vectors, else (the held value untouched)
        as written (see :mod:`lower.backend.c.extremum`)."""
        name, text = extremum_helper(plan.kind)
        self.expr.helpers.setdefault(name, text)
        acc = self.expr.registers.element(plan.store.buffer, plan.store.index)
        row = f"&{self.expr.buffer_name(plan.row.buffer)}[{self.expr.index(plan.row.buffer, plan.first)}]"
        serial = self.block(self.loop_head(s), s.body, first=self.stop_check(s))
        yield from self.block(f"if (!{name}(&{acc}, {row}, (int64_t)({self.expr.exact(s.extent)})))", serial)

    def vector_groups(self, plan: VectorLoop, count: str) -> None:
        """A loop over *count* (C text) groups of lanes of *plan*, from its loop's start on."""
        group = Var(f"{plan.loop.loop_var.name}_v", plan.loop.loop_var.dtype)
        g = self.names(group, group.name)
        self.emit(f"for ({c_type(group.dtype)} {g} = 0; {g} < {count}; ++{g}) {{")
        self.indent += 1
        for line in vector_statements(plan, self.expr, self.vector_access, self.expr.helpers, group):
            self.emit(line)
        self.indent -= 1
        self.emit("}")

    def aligned_vector_loop(self, plan: VectorLoop, target: Store) -> Steps:
        """*plan*'s groups of lanes shifted so that *target*'s stores are aligned to the vector's
        size, the elements before the first boundary and after the last group computed one by
        one: the same operations, so the same values (a ``fast_math`` build may contract their
        multiply-adds differently, as it may anywhere). An argument's data may start anywhere
        (NumPy's large arrays start 16 bytes into a page), and vector stores across two cache
        lines cost the softmax's output loop 12% (7.2 against 6.4 ms at 4096x1024)."""
        loop, v = plan.loop, plan.loop.loop_var
        t, size = c_type(v.dtype), plan.lanes * bits(plan.dtype) // 8
        head, tail = Var(f"{v.name}_head", v.dtype), Var(f"{v.name}_tail", v.dtype)
        h, e = self.names(head, head.name), self.names(tail, tail.name)
        first = simplify(substitute(target.index, {v: loop.min}))
        address = f"&{self.expr.buffer_name(target.buffer)}[{self.expr.index(target.buffer, first)}]"
        self.emit("{")
        self.indent += 1
        self.emit(f"// {h} elements before {self.expr.buffer_name(target.buffer)}'s first {size}-byte boundary")
        self.emit(f"const {t} {h} = ({t})((-(uintptr_t){address} & {size - 1}) / {bits(plan.dtype) // 8});")
        self.emit(f"const {t} {e} = ({plan.lanes} - {h}) & {plan.lanes - 1};")
        yield replace(loop, extent=head, kind=ForKind.SERIAL)
        self.vector_groups(replace(plan, loop=replace(loop, min=arith.add(loop.min, head))),
                           f"{plan.groups} - ({h} != 0)")
        end = arith.add(loop.min, loop.extent)
        yield replace(loop, min=arith.sub(end, tail), extent=tail, kind=ForKind.SERIAL)
        self.indent -= 1
        self.emit("}")

    def parallel_body(self, s: For) -> Steps:
        """A parallel loop whose body is a function taking the arrays it reaches as restrict
        parameters. OpenMP moves the body into a function that receives the pointers in a
        struct, where the restrict of our parameters is lost; without it the compiler must
        assume that a store may change any other array, and reloads and stores back what it
        could keep in registers (gcc keeps the restrict of an inlined function's parameters)."""
        params = self.outlined_parameters([s.body], [s.loop_var])
        if params is None:
            yield from self.block(self.loop_head(s), s.body, first=self.stop_check(s))
            return
        fn = self.names.fresh("tb_parallel_body")
        saved = self.lines, self.indent, self.interruptible
        self.lines, self.indent, self.interruptible = [], 1, False  # a function of its own: no start count
        yield s.body
        body, (self.lines, self.indent, self.interruptible) = self.lines, saved
        if any("tb_ctx" in line for line in body):
            params.append(("tb_ctx_t* tb_ctx", "tb_ctx"))
        signature = ", ".join(p for p, _ in params)
        self.expr.helpers[fn] = "\n".join([f"static inline void {fn}({signature}) {{", *body, "}"])
        self.emit(self.loop_head(s) + " {")
        if self.interruptible:
            self.emit("  if (tb_stopped(tb_signals_at_start)) continue;")
        self.emit(f"  {fn}({', '.join(a for _, a in params)});")
        self.emit("}")

    def outlined_parameters(self, body: Sequence[Stmt], bound: Sequence[Var] = ()) -> list[tuple[str, str]] | None:
        """The parameters of *body* as a function, *bound* (loop variables) first: the scalars
        defined outside it, the arrays from outside it; None when it holds what a function
        cannot take (thread-bound kernels, arrays held in variables or with written flags)."""
        found = needs(body, bound)
        if found is None or any(b in self.expr.registers.lanes or b in self.expr.written for b in found.buffers):
            return None
        params = []
        for v in (*bound, *found.scalars):
            name = self.names(v, v.name)
            params.append((f"{c_type(v.dtype)} {name}", name))
        arrays: dict[str, str] = {}
        for b in found.buffers:
            name = self.expr.buffer_name(b)
            if name in arrays:
                if arrays[name] != b.dtype:
                    return None  # one array seen as two types: no restrict parameter says that
                continue
            arrays[name] = b.dtype
            params.append((f"{c_type(b.dtype)}* restrict {name}", name))
        return params

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        yield from self.if_else(self.expr(s.condition), s.then_case, s.else_case)

    def visit_while(self, s: While) -> Steps:
        yield from self.block(f"while ({self.expr(s.condition)})", s.body)

    def visit_let_stmt(self, s: LetStmt) -> Steps:
        yield from self.let(s.var, s.value, s.body)

    def visit_store(self, s: Store) -> None:
        value = self.expr(s.value)
        if s.value.dtype != s.buffer.dtype:
            value = f"(({c_type(s.buffer.dtype)}){value})"
        if s.buffer in self.expr.registers.lanes:
            self.emit(f"{self.expr.registers.element(s.buffer, s.index)} = {value};")
            return
        guard = self.expr.access_guard(s)
        index = self.expr.index(s.buffer, s.index)
        store = f"{self.expr.buffer_name(s.buffer)}[{index}] = {value};"
        if s.buffer in self.expr.written and self.expr.checked:
            store = f"{{ {store} {self.expr.written[s.buffer]}[{index}] = 1; }}"
        self.emit(store if guard is None else f"if ({guard}) {store}")

    def visit_assert_stmt(self, s: AssertStmt) -> None:
        site = self.expr.site("assert", s.message)
        self.emit(f"if (__builtin_expect(!({self.expr(s.condition)}), 0)) tb_fail(tb_ctx, {ASSERT}, {site}, 0, 0, 0);")

    def visit_evaluate(self, s: Evaluate) -> None:
        if is_barrier(s) or is_allreduce(s):
            raise LoweringError("build: a barrier (tvm_storage_sync) outside any thread-bound loop")
        if isinstance(s.value, IntImm):
            return
        self.expr.discarded = s.value
        self.emit(f"(void){self.expr(s.value)};")
        self.expr.discarded = None


@dataclass(frozen=True)
class CProgram:
    """The C source of a function, the Python functions it calls and what its run-time checks
    guard, by index."""

    source: str
    calls: tuple[PythonCall, ...]
    sites: tuple[Site, ...]


def _unconditional_loads(st: Store) -> list[Load]:
    """The loads a store always makes (not those under a select, a conditional call or a
    short-circuit operator), its index's included."""
    out, stack = [], [st.value, st.index, *st.checks]
    while stack:
        e = stack.pop()
        if isinstance(e, (Select, And, Or)) or (isinstance(e, Call) and e.name in ("tvm_if_then_else", "likely")):
            continue
        if isinstance(e, Load):
            out.append(e)
        stack.extend(children(e))
    return out


def c_source(body: Stmt, buffers: Sequence[Buffer], params: Sequence[Var], checked: bool = True,
             libm: bool = False) -> CProgram:
    """The C translation unit of a flattened function:
    ``int32_t tb_main(buffers..., params..., tb_ctx_t* tb_ctx)``; without *checked*, divisions,
    indices computed from data and reads of memory threads share are not checked while running;
    without *libm*, vector loops compute exp, log, tanh and erf by polynomial (see
    :mod:`lower.backend.c.vector_math`)."""
    names = CNames()
    args = [f"{c_type(b.dtype)}* restrict {names(b, b.name)}" for b in buffers]
    # A float16 scalar comes as a double (ctypes has no half type) and is narrowed on entry.
    args += [f"double {names(v, v.name)}_half" if v.dtype == "float16" else f"{c_type(v.dtype)} {names(v, v.name)}"
             for v in params]
    args.append("tb_ctx_t* tb_ctx")
    halves = [f"  const _Float16 {names(v, v.name)} = (_Float16){names(v, v.name)}_half;" for v in params
              if v.dtype == "float16"]
    gen = _StmtSource(names, checked)
    gen.interruptible = True
    gen.expr.params = set(params)
    gen.arguments = set(buffers)
    body = cut_edges(body)
    if not libm:
        body = use_vector_math(body)
    body, lanes = promote(body)
    gen.own_sequences = own_sequences(body)
    gen.expr.registers.lanes.update(lanes)
    gen(body)
    helpers = [C_RUNTIME, *gen.expr.helpers.values()]
    start = "  const int32_t tb_signals_at_start = tb_signals();"
    text = "\n".join([_HEADER, *helpers, "", f"int32_t {ENTRY}({', '.join(args)}) {{", start, *halves, *gen.lines,
                       "  return tb_stopped(tb_signals_at_start) ? 2 : 0;", "}", ""])
    return CProgram(text, tuple(gen.expr.calls), tuple(gen.expr.sites))
