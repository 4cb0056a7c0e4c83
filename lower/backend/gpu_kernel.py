"""GPU kernels in a lowered function, and what running one on the CPU needs to know.

A kernel is the subtree of an outermost ``thread_extent`` attribute, as TVM splits device
code from host code. Every thread of every block runs the whole kernel body, with one index
per thread tag (``blockIdx.x``, ``threadIdx.y`` ...) however many IterVars bind it; an
attribute whose extent is below its tag's launch extent runs only for the indices below it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from bound.arith.linear import Linear
from lower.errors import LoweringError
from lower.ir.stmt import AttrStmt, Buffer, Evaluate, LetStmt, Load, Stmt, Store
from lower.ir.stmt_functor import walk
from lower.passes.storage_rewrite import allocation
from lower.passes.thread_sync import is_allreduce, is_barrier
from schedule import arith
from schedule.base.storage_scope import RANKS, per_block, per_thread, scope_rank
from schedule.ir.expr import Expr
from schedule.ir.functor import free_vars, post_order_visit, structural_equal
from schedule.ir.itervar import IterVar

#: The threads of a warp, as CUDA (and TVM's ``thread_warp_size``) counts them.
WARP_SIZE = 32


@dataclass
class Kernel:
    """The launch of one kernel: its grid and block, its buffers by owner, whether it syncs."""

    root: AttrStmt
    body: Stmt  # the root's body without the allocations at its start
    extents: dict[str, list[Expr]] = field(default_factory=dict)  # tag -> its attributes' extents
    threads: list[IterVar] = field(default_factory=list)  # every IterVar bound in the kernel
    per_launch: list[Buffer] = field(default_factory=list)
    per_block: list[Buffer] = field(default_factory=list)
    per_thread: list[Buffer] = field(default_factory=list)
    per_warp: list[Buffer] = field(default_factory=list)  # one copy per group of threadIdx.x
    has_barrier: bool = False  # a tvm_storage_sync or a cross-thread reduction: threads wait there
    has_allreduce: bool = False

    @property
    def block_tags(self) -> list[str]:
        return [t for t in self.extents if t.startswith("blockIdx.")]

    @property
    def thread_tags(self) -> list[str]:
        return [t for t in self.extents if not t.startswith("blockIdx.")]

    def guarded(self, tag: str) -> bool:
        """Whether the attributes of *tag* differ in extent (so the smaller ones need a guard)."""
        return len(self.extents[tag]) > 1

    @property
    def warp_group_tags(self) -> list[str]:
        """The thread tags that tell the warps of a block apart (all but ``threadIdx.x``)."""
        return [t for t in self.thread_tags if t != "threadIdx.x"]


def analyze_kernel(root: AttrStmt) -> Kernel:
    """The launch of the kernel rooted at the thread attribute *root*."""
    body = root.body
    kernel = Kernel(root, body)
    while (buf := allocation(body)) is not None:
        scope = buf.scope
        owner = (kernel.per_thread if per_thread(scope) else
                 kernel.per_warp if RANKS[scope_rank(scope)] == "warp" else
                 kernel.per_block if per_block(scope) else kernel.per_launch)
        owner.append(buf)
        body = body.body.body  # type: ignore[attr-defined]
    kernel.body = body
    seen: set[int] = set()
    for s in walk(root):
        if isinstance(s, AttrStmt) and s.key == "thread_extent" and isinstance(s.node, IterVar):
            extents = kernel.extents.setdefault(s.node.thread_tag, [])
            if not any(structural_equal(s.value, e) for e in extents):
                extents.append(s.value)
            if id(s.node) not in seen:
                seen.add(id(s.node))
                kernel.threads.append(s.node)
        elif isinstance(s, Evaluate) and (is_barrier(s) or is_allreduce(s)):
            kernel.has_barrier = True
            kernel.has_allreduce = kernel.has_allreduce or is_allreduce(s)
    if kernel.per_warp:
        _check_warp_width(kernel)
        _check_warp_stores(kernel)
    return kernel


def _check_warp_width(k: Kernel) -> None:
    """TVM's condition for warp memory: ``threadIdx.x`` is bound in the kernel with a constant
    extent that divides the warp size, so each group of its threads lies within one warp.

    :raises LoweringError: naming the buffer and the extent.
    """
    names = ", ".join(b.name for b in k.per_warp)
    extents = k.extents.get("threadIdx.x")
    if not extents:
        raise LoweringError(f"build: warp memory {names} needs threadIdx.x bound in its kernel (the threads of a "
                            "warp exchange values through it); bind a loop of its stage to threadIdx.x")
    for e in extents:
        value = arith.value_of(e)
        if not isinstance(value, int) or not 0 < value <= WARP_SIZE or WARP_SIZE % value:
            raise LoweringError(f"build: warp memory {names} needs threadIdx.x's extent to be a constant that "
                                f"divides the warp size ({WARP_SIZE}), not {e}; split the loop bound to "
                                f"threadIdx.x by a divisor of {WARP_SIZE}")


def _check_warp_stores(k: Kernel) -> None:
    """TVM's other condition: warp memory is laid out over the lanes by the coefficient of
    ``threadIdx.x`` in the stores into it, one coefficient for every store. A buffer no store
    indexes by ``threadIdx.x`` has no layout (TVM divides by that coefficient, zero), unless the
    group is one lane wide.

    :raises LoweringError: naming the buffer and what its stores lack.
    """
    lanes = {iv.var for iv in k.threads if iv.thread_tag == "threadIdx.x"}
    one_lane = all(arith.value_of(e) == 1 for e in k.extents.get("threadIdx.x", []))
    for buf in k.per_warp:
        coefficients = set()
        for st in walk(k.body):
            if isinstance(st, Store) and st.buffer is buf:
                terms = Linear.of(st.index).terms
                coefficients.add(next((c for v, c in terms.items() if v in lanes), 0))
        if not coefficients or (0 in coefficients and not one_lane):
            lack = "no store writes it" if not coefficients else "a store into it is not indexed by threadIdx.x"
            raise LoweringError(f"build: warp memory {buf.name}: {lack}; each lane writes its own elements of a warp "
                                "buffer (at an index with threadIdx.x), by which the buffer is laid out over the "
                                "lanes (TVM divides by zero here)")
        if len(coefficients) > 1:
            raise LoweringError(f"build: warp memory {buf.name}: its stores index it by threadIdx.x with different "
                                f"coefficients {sorted(coefficients)}; TVM lays it out by one")


def check_races(k: Kernel) -> None:
    """Refuse an accumulation that every thread of a block repeats into memory they share.

    A reduction in shared or global memory computed outside the block's thread loops (none of
    its loops bound to a thread, its elements not indexed by one) runs once per thread: each
    thread adds its terms again, a race on a GPU. Local memory is each thread's own.

    :raises LoweringError: naming the stage.
    """
    if all(arith.value_of(e) == 1 for t in k.thread_tags for e in k.extents[t]):
        return  # one thread per block
    threads = {iv.var for iv in k.threads if not iv.thread_tag.startswith("blockIdx.")}
    for s in walk(k.body):
        if isinstance(s, LetStmt) and set(free_vars([s.value])) & threads:
            threads.add(s.var)
        elif isinstance(s, Store) and not per_thread(s.buffer.scope) and _accumulates(s):
            if not set(free_vars([s.index])) & threads:
                raise LoweringError(
                    f"build: stage '{s.buffer.name}' accumulates into {s.buffer.scope} memory in every thread of "
                    f"the block ({', '.join(k.thread_tags)}), so each thread adds its terms again; bind one of "
                    "its loops to a thread, or store it in 'local' memory")


def _accumulates(s: Store) -> bool:
    """Whether *s* reads the element it writes (a reduction's update)."""
    found = []
    post_order_visit(s.value, lambda x: found.append(x) if isinstance(x, Load) and x.buffer is s.buffer
                     and structural_equal(x.index, s.index) else None)
    return bool(found)
