"""Host and device code of a lowered function, split as TVM's SplitHostDevice splits them.

Each outermost ``thread_extent`` attribute roots a kernel; what lies around the kernels is the
host's: the sequence of launches, and the loops, conditions and lets around them. The host
touches no array: code that reads or writes memory outside every thread-bound loop has nothing
to run on (TVM refuses it too, asking whether a bind was forgotten).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from lower.backend.c.outline import needs
from lower.backend.gpu_kernel import Kernel, analyze_kernel
from lower.errors import LoweringError
from lower.ir.stmt import Allocate, AttrStmt, Buffer, For, IfThenElse, LetStmt, Load, Stmt, Store, While
from lower.ir.stmt_functor import stmt_children, stmt_exprs
from schedule import arith
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import distinct_post_order, free_vars, structural_equal

#: The thread tags of a launch, in the order of CUDA's grid and block dimensions.
GRID = ("blockIdx.x", "blockIdx.y", "blockIdx.z")
BLOCK = ("threadIdx.x", "threadIdx.y", "threadIdx.z")


@dataclass
class DeviceKernel:
    """One kernel: its name, what it is (see :class:`~lower.backend.gpu_kernel.Kernel`), the
    arrays and scalars it takes, and its launch extents by tag (the largest of its attributes)."""

    name: str
    kernel: Kernel
    buffers: list[Buffer]
    scalars: list[Var]
    launch: dict[str, Expr]
    #: Bytes of dynamic shared memory a launch asks for (shared arrays of symbolic size).
    dynamic_shared: Expr = field(default_factory=lambda: arith.const(0))

    def grid(self) -> list[Expr]:
        return [self.launch.get(t, arith.const(1)) for t in GRID]

    @functools.cached_property
    def divergence(self) -> list[tuple[Stmt, bool]]:
        """Every statement of the kernel, with whether a condition that differs between the
        threads of a block encloses it: on a thread index or a value computed from one, a loop
        whose bounds depend on one, or an attribute of a tag below its launch extent."""
        return self._divergence(lambda tag: not tag.startswith("blockIdx."))

    @functools.cached_property
    def lane_divergence(self) -> list[tuple[Stmt, bool]]:
        """As :attr:`divergence`, for conditions that differ between the lanes of a warp where
        a warp is 32 consecutive ``threadIdx.x`` (the other indices agree within it)."""
        return self._divergence(lambda tag: tag == "threadIdx.x")

    def _divergence(self, varies: Callable[[str], bool]) -> list[tuple[Stmt, bool]]:
        varying = {iv.var for iv in self.kernel.threads if varies(iv.thread_tag)}
        out: list[tuple[Stmt, bool]] = []
        stack: list[tuple[Stmt, bool]] = [(self.kernel.root, False)]
        while stack:
            s, divergent = stack.pop()
            out.append((s, divergent))
            inner = divergent
            if isinstance(s, (IfThenElse, While)):
                inner = divergent or bool(set(free_vars([s.condition])) & varying)
            elif isinstance(s, For) and set(free_vars([s.min, s.extent])) & varying:
                inner = True
            elif isinstance(s, LetStmt) and set(free_vars([s.value])) & varying:
                varying.add(s.var)
            elif isinstance(s, AttrStmt) and s.key == "thread_extent" and varies(s.node.thread_tag):  # type: ignore[attr-defined]
                inner = divergent or not structural_equal(s.value, self.launch[s.node.thread_tag])  # type: ignore[attr-defined]
            stack.extend((c, inner) for c in reversed(stmt_children(s)))
        return out

    def block(self) -> list[Expr]:
        return [self.launch.get(t, arith.const(1)) for t in BLOCK]


def split_host_device(body: Stmt, name: str) -> list[DeviceKernel]:
    """The kernels of *body* in the order they run, named ``{name}_kernel``, ``{name}_kernel_1``...

    :raises HostAccessError: for memory that host code touches, naming the array.
    :raises LoweringError: for what else a kernel cannot hold.
    """
    roots: list[AttrStmt] = []
    stack: list[Stmt] = [body]
    touched = host_access(body)
    if touched is not None:
        raise _host_access(touched)
    while stack:
        s = stack.pop()
        if isinstance(s, AttrStmt) and s.key == "thread_extent":
            roots.append(s)
            continue
        if isinstance(s, Allocate) and s.buffer.scope not in ("global", ""):
            raise LoweringError(f"build: target 'cuda': '{s.buffer.name}' is allocated in {s.buffer.scope} memory "
                                "outside every kernel; compute it at a loop bound to a thread")
        stack.extend(reversed(stmt_children(s)))
    kernels = []
    for k, root in enumerate(roots):
        kernel = analyze_kernel(root)
        if kernel.per_launch:
            names = ", ".join(b.name for b in kernel.per_launch)
            raise LoweringError(f"build: target 'cuda': {names} is allocated in global memory inside a kernel; "
                                "a kernel cannot allocate global memory (compute it at the root, or in 'shared' "
                                "or 'local' memory)")
        found = needs([root], kernels=True)
        assert found is not None
        launch = {tag: _largest(extents) for tag, extents in kernel.extents.items()}
        kernels.append(DeviceKernel(f"{name}_kernel" + (f"_{k}" if k else ""), kernel, found.buffers,
                                    [v for v in found.scalars if v not in {iv.var for iv in kernel.threads}],
                                    launch))
    return kernels


def host_access(body: Stmt) -> Buffer | None:
    """The first buffer *body* loads or stores outside every thread-bound loop (where only the
    host runs), if there is one."""
    stack: list[Stmt] = [body]
    while stack:
        s = stack.pop()
        if isinstance(s, AttrStmt) and s.key == "thread_extent":
            continue
        if isinstance(s, Store):
            return s.buffer
        for e in stmt_exprs(s):
            for x in distinct_post_order(e):
                if isinstance(x, Load):
                    return x.buffer
        stack.extend(reversed(stmt_children(s)))
    return None


def _largest(extents: list[Expr]) -> Expr:
    out = extents[0]
    for e in extents[1:]:
        out = arith.max_expr(out, e)
    return out


class HostAccessError(LoweringError):
    """Memory that host code reads or writes: no CUDA program runs such a function."""


def _host_access(buf: Buffer) -> LoweringError:
    return HostAccessError(
        f"build: target 'cuda': '{buf.name}' is read or written outside every thread-bound loop, where only the "
        f"host runs and it cannot touch GPU memory; bind the loops of the stage that computes it to blockIdx and "
        f"threadIdx (TVM: 'Did you forget to bind?')")
