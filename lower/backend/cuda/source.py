"""CUDA C source of the kernels of a lowered function, named and written as TVM's CUDA code is:
``extern "C" __global__ void __launch_bounds__(64) default_function_kernel(float* __restrict__ A, ...)``,
thread indices as ``((int)threadIdx.x)``, ``__shared__`` arrays, ``__syncthreads()``.

A tag bound with several extents in one kernel launches with the largest; an attribute with a
smaller one runs only for the indices below it, as on the CPU. Cross-thread reductions are
:mod:`lower.backend.cuda.reduce`'s, warp memory :mod:`lower.backend.cuda.warp`'s and vector
loops :mod:`lower.backend.cuda.vector`'s.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from dataclasses import dataclass
from typing import Any

from lower.backend.c.expr import c_type
from lower.backend.cuda.expr import HALF, PRELUDE, CudaExprSource
from lower.backend.cuda.reduce import (
    element_bytes,
    fits_warp,
    int_product,
    linear_index,
    shared_allreduce,
    warp_allreduce,
)
from lower.backend.cuda.split import BLOCK, DeviceKernel, split_host_device
from lower.backend.cuda.vector import COMPONENTS, VectorPlan, plan_vector, vector_buffers
from lower.backend.cuda.warp import shuffle_layout
from lower.backend.cuda.wmma import check_kernel, declare_fragments, wmma_text
from lower.backend.names import Names
from lower.errors import GpuLimitError, LoweringError
from lower.ir.stmt import (
    Allocate,
    AssertStmt,
    AttrStmt,
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
    Store,
    While,
)
from lower.ir.stmt_functor import StmtFunctor, stmt_exprs, walk
from lower.passes.tensor_core import infer_fragments, wmma_call
from lower.passes.thread_sync import is_allreduce, is_barrier
from schedule import arith
from schedule.base.storage_scope import per_thread
from schedule.ir.expr import Call, Expr, IntImm, StringImm, Var
from schedule.ir.functor import distinct_post_order, free_vars, structural_equal
from schedule.ir.reduce import CommReducer

Steps = Generator[Any, Any, None]

#: Identifiers the kernel text may not take.
_CUDA_WORDS = {"threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize", "half", "float4", "int4", "min", "max",
               "__syncthreads", "__shared__", "__global__", "__device__", "new", "delete", "class", "template",
               "namespace", "this", "operator", "private", "public", "protected", "virtual", "friend"}


@dataclass(frozen=True)
class Limits:
    """What one block may use: TVM's target attributes ``max_num_threads`` and
    ``max_shared_memory_per_block`` (static shared memory: 48 KiB on every architecture)."""

    threads: int = 1024
    shared_bytes: int = 48 * 1024


class CudaNames(Names):
    """Identifiers that are no CUDA builtin or keyword, nor a kernel's name."""

    def __init__(self, kernels: Sequence[str]) -> None:
        super().__init__()
        self._used |= _CUDA_WORDS | set(kernels)


class CudaSource:
    """The CUDA translation unit of a lowered function: :attr:`text`, and :attr:`kernels` in
    the order the host launches them."""

    def __init__(self, body: Stmt, name: str = "default_function", arguments: Sequence[Any] = (),
                 limits: Limits | None = None, fast_math: bool = False) -> None:
        self.kernels: list[DeviceKernel] = split_host_device(body, name)
        order = {id(b): k for k, b in enumerate(arguments)}
        for k in self.kernels:  # the function's arguments first, in its order
            k.buffers.sort(key=lambda b: order.get(id(b), len(order)))
        names = CudaNames([k.name for k in self.kernels])
        parts: list[str] = []
        helpers: dict[str, None] = {}
        #: The compute capability the kernels need (70 for float16 tensor cores; 0: any).
        self.min_arch = 0
        for k in self.kernels:
            gen = _KernelSource(names, k, limits or Limits(), fast_math)
            text = gen.function()
            helpers.update(dict.fromkeys(gen.expr.device_helpers()))
            parts.append(text)
            self.min_arch = max(self.min_arch, gen.min_arch)
        body = "\n".join([*helpers, *parts])
        half = HALF if "_Float16" in body or "nvcuda::wmma" in body else ""
        mma = "#include <mma.h>\n" if "nvcuda::wmma" in body else ""
        self.text = "\n".join([PRELUDE + half + mma, body])


class _KernelSource(StmtFunctor[None]):
    def __init__(self, names: Names, k: DeviceKernel, limits: Limits, fast_math: bool) -> None:
        self.k = k
        self.limits = limits
        self.shared: list[tuple[str, int]] = []  # the kernel's shared arrays and their bytes
        self.dynamic = False  # whether the launch's dynamic shared memory is declared
        self.names = names
        self.expr = CudaExprSource(names, fast_math)
        self.lines: list[str] = []
        self.indent = 1
        self.reducer: CommReducer | None = None
        #: The statements under a condition that differs between the threads of a block.
        self.divergent = {id(s) for s, divergent in k.divergence if divergent}
        #: The arrays vectorized loops touch (declared 16-byte aligned), and those that start
        #: aligned (the arguments, from cuMemAlloc, and those declarations).
        self.vector_buffers = vector_buffers(k.kernel.root)
        self.vectorizable = set(k.buffers)
        #: The arrays the kernel reads (element by element, or through a call's pointer).
        self.read = {_read_buffer(x) for st in walk(k.kernel.root) for e in stmt_exprs(st)
                     for x in distinct_post_order(e) if _read_buffer(x) is not None}
        for iv in k.kernel.threads:
            names.fix(iv.var, f"((int){iv.thread_tag})")
        #: Tensor-core fragments by buffer (see lower.backend.cuda.wmma).
        self.fragments = infer_fragments(k.kernel.root)
        self.min_arch = check_kernel(k, self.fragments)

    def function(self) -> str:
        k = self.k
        params = [f"{c_type(b.dtype)}* __restrict__ {self.expr.buffer_name(b)}" for b in k.buffers]
        params += [f"{c_type(v.dtype)} {self.names(v, v.name)}" for v in k.scalars]
        threads = arith.value_of(_product(k.block()))
        bounds = f" __launch_bounds__({threads})" if isinstance(threads, int) and threads > 1 else ""
        if isinstance(threads, int) and threads > self.limits.threads:
            raise GpuLimitError(f"build: target 'cuda': kernel {k.name} launches {threads} threads per block "
                                f"({self._launch_text(BLOCK)}); the target allows at most {self.limits.threads}")
        kernel = k.kernel
        for buf in kernel.per_block:
            self.declare(buf, shared=True)
        for buf in kernel.per_thread:
            self.declare(buf, shared=False)
        for buf in kernel.per_warp:
            self.declare_warp(buf)
        self(self._guarded_root())
        used = sum(n for _, n in self.shared)
        if used > self.limits.shared_bytes:
            arrays = ", ".join(f"{name} {n} B" for name, n in self.shared)
            raise GpuLimitError(f"build: target 'cuda': kernel {k.name} needs {used} bytes of shared memory per "
                                f"block ({arrays}); the target allows {self.limits.shared_bytes}: split the stages "
                                "that fill them by smaller factors")
        head = f'extern "C" __global__ void{bounds} {k.name}({", ".join(params)}) {{'
        return "\n".join([head, *self.lines, "}", ""])

    def _guarded_root(self) -> Stmt:
        """The kernel's body under its root attribute (kept, for its extent's guard)."""
        root = self.k.kernel.root
        return AttrStmt(root.node, root.key, root.value, self.k.kernel.body)

    def _launch_text(self, tags: Sequence[str]) -> str:
        return " x ".join(f"{t} {self.expr(self.k.launch[t])}" for t in tags if t in self.k.launch)

    # -- output ----------------------------------------------------------------------------------
    def emit(self, text: str) -> None:
        self.lines.append("  " * self.indent + text)

    def nested(self, head: str, body: Any) -> Steps:
        self.emit(head + " {")
        self.indent += 1
        yield body
        self.indent -= 1
        self.emit("}")

    def declare(self, buf: Any, shared: bool) -> None:
        if buf.scope.startswith("wmma."):
            self.emit(declare_fragments(buf, self.fragments, self.expr.buffer_name(buf)))
            return
        count = arith.value_of(buf.size)
        if not isinstance(count, int) and shared:
            self.declare_dynamic(buf)
            return
        if not isinstance(count, int):
            raise LoweringError(f"build: target 'cuda': '{buf.name}' in {buf.scope} memory has the symbolic size "
                                f"{buf.size}; give its stage a constant extent (split by a constant factor)")
        # An array written and never read (a value the outputs do not need) would warn.
        prefix = ("" if buf in self.read else "[[maybe_unused]] ") + ("__shared__ " if shared else "")
        if buf in self.vector_buffers:
            prefix += "__align__(16) "
            self.vectorizable.add(buf)
        self.emit(f"{prefix}{c_type(buf.dtype)} {self.expr.buffer_name(buf)}[{max(count, 1)}];")
        if shared:
            self.shared.append((buf.name, max(count, 1) * element_bytes(buf.dtype)))

    def declare_dynamic(self, buf: Any) -> None:
        """A shared array of symbolic size: a slice of the launch's dynamic shared memory, whose
        bytes the host computes from the same scalars (each slice starts 16-byte aligned)."""
        k = self.k
        outside = [v for v in free_vars([buf.size]) if v not in k.scalars]
        if outside:
            raise LoweringError(f"build: target 'cuda': shared array '{buf.name}' has a size ({buf.size}) that "
                                f"depends on {', '.join(v.name for v in outside)}, which the host does not know "
                                "at launch; give it a size in the kernel's shapes")
        if not self.dynamic:
            self.emit("extern __shared__ __align__(16) unsigned char tb_dynamic_shared[];")
            self.dynamic = True
        offset = k.dynamic_shared
        nbytes = arith.mul(arith.max_expr(buf.size, arith.const(1, buf.size.dtype)), element_bytes(buf.dtype))
        aligned = arith.mul(arith.floordiv(arith.add(nbytes, 15), 16), 16)
        k.dynamic_shared = arith.add(offset, aligned)
        t = c_type(buf.dtype)
        name = self.expr.buffer_name(buf)
        self.emit(f"{t}* {name} = ({t}*)(tb_dynamic_shared + {self.expr(offset)});")

    def declare_warp(self, buf: Any) -> None:
        """Warp memory: in registers where its accesses allow (:mod:`lower.backend.cuda.warp`);
        else one copy per group of ``threadIdx.x`` (the threads that agree on the other thread
        indices, within one warp) in shared memory, its users seeing their group's."""
        layout = shuffle_layout(self.k, buf)
        if layout is not None:
            name = self.expr.buffer_name(buf)
            self.emit(f"{c_type(buf.dtype)} {name}[{layout.per_lane}];")
            self.expr.shuffled[buf] = layout
            return
        groups = {t: arith.value_of(self.k.launch[t]) for t in BLOCK[1:] if t in self.k.launch}
        count = arith.value_of(buf.size)
        if not isinstance(count, int) or not all(isinstance(g, int) for g in groups.values()):
            raise LoweringError(f"build: target 'cuda': warp memory '{buf.name}' needs a constant size and "
                                f"constant threadIdx.y/z extents, not {buf.size} and {self._launch_text(BLOCK[1:])}")
        base = self.names.fresh(buf.name)
        total = max(count, 1) * int_product(groups.values())
        self.emit(f"__shared__ {c_type(buf.dtype)} {base}[{total}];")
        self.shared.append((buf.name, total * element_bytes(buf.dtype)))
        group = linear_index({t: f"((int){t})" for t in groups}, list(groups), groups)
        self.names.fix(buf, base if group == "0" else f"({base} + ({group}) * {max(count, 1)})")

    # -- statements ------------------------------------------------------------------------------
    def visit_seq_stmt(self, s: SeqStmt) -> Steps:
        yield from s.seq

    def visit_producer_consumer(self, s: ProducerConsumer) -> Steps:
        yield s.body

    def visit_attr_stmt(self, s: AttrStmt) -> Steps:
        if s.key == "thread_extent":
            tag = s.node.thread_tag  # type: ignore[attr-defined]
            if structural_equal(s.value, self.k.launch[tag]):
                yield s.body
                return
            yield from self.nested(f"if ({self.names(s.node.var, '')} < {self.expr(s.value)})", s.body)  # type: ignore[attr-defined]
        elif s.key == "reduce_scope" and isinstance(s.node, CommReducer):
            saved, self.reducer = self.reducer, s.node
            yield s.body
            self.reducer = saved
        elif s.key == "virtual_thread":
            raise LoweringError("build: target 'cuda': a virtual thread is left in the kernel")
        else:
            yield s.body

    def visit_allocate(self, s: Allocate) -> Steps:
        if s.buffer.scope == "warp":
            self.declare_warp(s.buffer)
            yield s.body
            return
        if not per_thread(s.buffer.scope) and not s.buffer.scope.startswith("shared"):
            raise LoweringError(f"build: target 'cuda': '{s.buffer.name}' is allocated in {s.buffer.scope} memory "
                                "inside a kernel; a kernel allocates only 'shared' and 'local' memory")
        self.declare(s.buffer, shared=not per_thread(s.buffer.scope))
        yield s.body

    def visit_for(self, s: For) -> Steps:
        plan = plan_vector(s, self.vectorizable) if s.kind == ForKind.VECTORIZED else None
        if plan is not None:
            self.vector_store(plan)
            return
        v = self.names(s.loop_var, s.loop_var.name)
        lo, extent = self.expr(s.min), self.expr(s.extent)
        if s.kind == ForKind.UNROLLED:
            self.emit("#pragma unroll")
        end = extent if lo == "0" else f"{lo} + {extent}"
        yield from self.nested(f"for ({c_type(s.loop_var.dtype)} {v} = {lo}; {v} < {end}; ++{v})", s.body)

    def vector_store(self, plan: VectorPlan) -> None:
        """The loop *plan* describes as one vector store of lanes computed from vector loads."""
        t = plan.vtype
        self.emit("{")
        self.indent += 1
        components: list[list[Var]] = []
        for load, base in plan.loads:
            name = self.names.fresh("tb_vec")
            address = f"{self.expr.buffer_name(load.buffer)} + {self.expr.index(load.buffer, base)}"
            self.emit(f"const {t} {name} = *(const {t}*)({address});")
            lanes = []
            for lane in range(plan.lanes):
                var = Var(f"{name}_{lane}", load.dtype)
                self.names.fix(var, f"{name}.{COMPONENTS[lane]}")
                lanes.append(var)
            components.append(lanes)
        out = self.names.fresh("tb_vec")
        self.emit(f"{t} {out};")
        for lane in range(plan.lanes):
            value = plan.lane_value(lane, [c[lane] for c in components])
            self.emit(f"{out}.{COMPONENTS[lane]} = {self.expr(value)};")
        store = plan.store
        self.emit(f"*({t}*)({self.expr.buffer_name(store.buffer)} + {self.expr.index(store.buffer, plan.base)}) "
                  f"= {out};")
        self.indent -= 1
        self.emit("}")

    def visit_if_then_else(self, s: IfThenElse) -> Steps:
        yield from self.nested(f"if ({_bare(self.expr(s.condition))})", s.then_case)
        if s.else_case is not None:
            self.lines[-1] += " else {"
            self.indent += 1
            yield s.else_case
            self.indent -= 1
            self.emit("}")

    def visit_let_stmt(self, s: LetStmt) -> Steps:
        self.emit(f"{c_type(s.var.dtype)} {self.names(s.var, s.var.name)} = {self.expr(s.value)};")
        yield s.body

    def visit_while(self, s: While) -> Steps:
        yield from self.nested(f"while ({_bare(self.expr(s.condition))})", s.body)

    def visit_store(self, s: Store) -> None:
        value = self.expr(s.value)
        if s.value.dtype != s.buffer.dtype:
            value = f"(({c_type(s.buffer.dtype)}){value})"
        layout = self.expr.shuffled.get(s.buffer)
        index = s.index if layout is None else layout.place(s.index)[1]
        self.emit(f"{self.expr.buffer_name(s.buffer)}[{self.expr.index(s.buffer, index)}] = {value};")

    def visit_assert_stmt(self, s: AssertStmt) -> Steps:
        yield s.body  # a kernel cannot raise: the CPU run of the same schedule checks it

    def visit_evaluate(self, s: Evaluate) -> None:
        if is_barrier(s) or is_allreduce(s):
            if id(s) in self.divergent:
                raise LoweringError(f"build: target 'cuda': kernel {self.k.name} has a barrier under a condition "
                                    "that differs between the threads of a block, where the threads that skip it "
                                    "never arrive; move the condition inside the stage, or bind every thread")
        if is_barrier(s):
            scope = s.value.args[0]  # type: ignore[attr-defined]
            kind = scope.value if isinstance(scope, StringImm) else ""
            if kind == "global":
                raise LoweringError("build: target 'cuda' has no barrier across blocks (a 'global' storage sync)")
            self.emit("__syncwarp();" if kind == "warp" else "__syncthreads();")
            return
        if is_allreduce(s):
            self.allreduce(s.value)  # type: ignore[arg-type]
            return
        if isinstance(s.value, IntImm):
            return
        call = wmma_call(s)
        self.emit(wmma_text(call, self.expr) if call is not None else f"(void){self.expr(s.value)};")

    def allreduce(self, call: Call) -> None:
        """A cross-thread reduction (see :mod:`lower.backend.cuda.reduce`)."""
        reducer = self.reducer
        if reducer is None:
            raise LoweringError("build: tvm_thread_allreduce outside a kernel's reduce_scope")
        size = int(call.args[0].value)  # type: ignore[attr-defined]
        values = call.args[1:1 + size]
        cond = self.expr(call.args[1 + size])
        temps = [v.buffer for v in call.args[2 + size:2 + 2 * size] if isinstance(v, BufferView)]
        tags = {iv.var: iv.thread_tag for iv in self.k.kernel.threads}
        over = list(dict.fromkeys(tags[v] for v in call.args[2 + 2 * size:] if isinstance(v, Var) and v in tags))
        block = [t for t in BLOCK if t in self.k.launch]
        extents = {t: arith.value_of(self.k.launch[t]) for t in block}
        if not all(isinstance(x, int) for x in extents.values()):
            raise LoweringError(f"build: target 'cuda': the cross-thread reduction of kernel {self.k.name} needs "
                                f"constant thread extents, not {self._launch_text(block)}")
        self.emit("{")
        self.indent += 1
        if fits_warp(over, extents, list(values)):
            others = [t for t in block if t != "threadIdx.x"]
            groups = linear_index({t: f"((int){t})" for t in others}, others, extents)
            warp_allreduce(self, reducer, list(values), cond, temps, extents["threadIdx.x"], groups,
                           int_product(extents[t] for t in others))
        else:
            shared_allreduce(self, reducer, list(values), cond, temps, over, block, extents)
        self.indent -= 1
        self.emit("}")


def _read_buffer(x: Expr) -> Any:
    """The array *x* reads: a load's, or that of a pointer a call reads through."""
    if isinstance(x, Load):
        return x.buffer
    if isinstance(x, Call) and x.name == "tvm_access_ptr" and isinstance(x.args[1], BufferView) \
            and arith.value_of(x.args[4]) != 2:
        return x.args[1].buffer
    return None


def _bare(text: str) -> str:
    """*text* without the parentheses around all of it, if it has them (``if ((a < b))``)."""
    if not (text.startswith("(") and text.endswith(")")):
        return text
    depth = 0
    for k, ch in enumerate(text):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and k < len(text) - 1:
            return text  # the first parenthesis closes before the end: (a) < (b)
    return text[1:-1]


def _product(xs: Sequence[Expr]) -> Expr:
    out: Expr = arith.const(1)
    for x in xs:
        out = arith.mul(out, x)
    return out
