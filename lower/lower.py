"""``lower``: ScheduleOps, storage flattening and simplification, as TVM's ``lower`` in simple mode."""

from __future__ import annotations

import copy
import gc
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from bound.inference.read_check import ReadCheck
from lower.arguments import argument_list, argument_stages, normalized_tensors, scalar_vars
from lower.errors import OutsideReadWarning
from lower.ir.script.function import function_script, module_script
from lower.ir.stmt import Buffer, Stmt
from lower.operation.loop_nest import has_virtual_threads
from lower.passes.flatten import arg_buffers, flatten, layout_of
from lower.passes.hoist_if import hoist_if_then_else
from lower.passes.loop_partition import loop_partition, partition_options
from lower.passes.narrow_datatype import narrow_datatype
from lower.passes.prefetch import has_prefetch, inject_prefetch
from lower.passes.schedule_ops import build_pipeline, inferred
from lower.passes.simplify_stmt import simplify_stmt
from lower.passes.storage_rewrite import place_allocations
from lower.passes.storage_share import check_memory_bounds, share_storage
from lower.passes.thread_sync import thread_sync
from lower.passes.uniform_barriers import uniform_barriers
from lower.passes.unroll_loop import unroll_loop
from lower.passes.vectorize_check import check_vectorized
from lower.passes.virtual_thread import inject_virtual_thread
from schedule.base.checks import check_flag
from schedule.base.pass_context import default_exact, enabled, options
from schedule.ir.expr import Var
from schedule.operation.tensor import Tensor
from schedule.schedule.schedule import Schedule, check_schedule
from schedule.schedule.stage import AttachType


class LoweredFunc:
    """A lowered function: its arguments, their buffers and the body; ``str()`` is the body's text.

    *params* are the scalar variables a call binds: scalar arguments, then the variables of
    the argument tensors' shapes.
    """

    def __init__(self, args: list[Tensor | Var], buffers: dict[Tensor, Buffer], body: Stmt, exact: bool,
                 layouts: dict | None = None, params: list[Var] | None = None,
                 schedule: Schedule | None = None, reads: ReadCheck | None = None) -> None:
        self.args = args
        self.schedule = schedule  # the normalized schedule it was lowered from
        self.buffers = buffers
        self.body = body
        self.exact = exact
        self.layouts = layouts or {}
        self.params = params if params is not None else scalar_vars(args)
        #: The reads checked at each call, where they depend on the call's variables.
        self.reads = reads

    @property
    def tensors(self) -> list[Tensor]:
        """The tensor arguments, in order."""
        return [a for a in self.args if isinstance(a, Tensor)]

    def with_body(self, body: Stmt) -> LoweredFunc:
        """This function with *body* instead (TVM's ``PrimFunc.with_body``, what a custom pass
        returns)."""
        out = copy.copy(self)
        out.body = body
        return out

    def with_attr(self, key: str, value: Any) -> LoweredFunc:
        """This function with the attribute *key* set (``"global_symbol"`` is its name)."""
        out = copy.copy(self)
        out.attrs = {**getattr(self, "attrs", {}), key: value}  # type: ignore[attr-defined]
        if key == "global_symbol":
            out.name = str(getattr(value, "value", value))
        return out

    #: A read outside a tensor that lowering found (then build refuses the function), or None.
    outside_read: str | None = None

    #: The function's name (``tvm.lower(..., name=)``).
    name = "main"

    #: What ``str()`` gives: the legacy statement text (``"legacy"``, our packages' default),
    #: or TVMScript as a module (``"module"``, what ``tebound.tvm.lower`` returns) or as a
    #: function (``"function"``, that module's ``mod["main"]``).
    printed_as = "legacy"

    def __getitem__(self, name: str) -> LoweredFunc:
        """Itself, as the one function of a module (``tvm.lower(s, args)["main"].body``)."""
        if name not in ("main", self.name):
            raise ValueError(f"the lowered module holds one function, {self.name!r} (also 'main'), not {name!r}")
        if self.printed_as != "module":
            return self
        func = copy.copy(self)
        func.printed_as = "function"
        return func

    def script(self, **options: Any) -> str:
        """TVMScript, as TVM v0.9-v0.14 prints it: an ``@I.ir_module`` where this stands for
        ``tvm.lower``'s module, else the ``@T.prim_func`` alone. TVM's printing *options*
        (``show_meta``, ``verbose_expr`` ...) are accepted and change nothing."""
        if self.printed_as == "module":
            return module_script({self.name: self})
        return function_script(self, self.name)

    def show(self, **options: Any) -> None:
        """Print :meth:`script`."""
        print(self.script(**options))

    def __str__(self) -> str:
        return str(self.body) if self.printed_as == "legacy" else self.script()


def lower(s: Schedule, args: Sequence[Any], *, simple_mode: bool = True, exact: bool | None = None,
          debug_keep_trivial_loop: bool = False) -> LoweredFunc:
    """The flattened, simplified loop nests of *s*, reading and writing the tensors in *args*.

    *args* are the tensors the user holds (whatever primitives rebuilt their operations) and
    optionally scalar ``te.var`` arguments.

    :arg simple_mode: accepted for TVM compatibility; the result is always the statement form.
    :raises TypeError: for a schedule or an argument of the wrong kind.
    :raises ValueError: for an argument that is not part of *s* or is inlined.
    :raises LoweringError: if the schedule cannot be lowered (naming the stage or tensor).
    :warns OutsideReadWarning: when the schedule reads outside a tensor (build refuses it).
    """
    func = lower_quietly(s, args, exact=exact, debug_keep_trivial_loop=debug_keep_trivial_loop)
    if func.outside_read is not None:
        warnings.warn(f"lower: {func.outside_read}; a read outside a tensor reads memory that is not its own, "
                      "and build refuses this schedule", OutsideReadWarning, stacklevel=2)
    return func


def lower_quietly(s: Schedule, args: Sequence[Any], *, exact: bool | None = None,
                  debug_keep_trivial_loop: bool = False) -> LoweredFunc:
    """:func:`lower` without its warning of a read outside a tensor (``build``, which refuses
    such a function, lowers this way)."""
    check_schedule("lower", s)
    exact = default_exact("lower", exact)
    check_flag("lower", "debug_keep_trivial_loop", debug_keep_trivial_loop)
    debug_keep_trivial_loop = debug_keep_trivial_loop or options("tir.debug_keep_trivial_loop")
    arg_list = argument_list("lower", args)
    stages = argument_stages("lower", s, arg_list)
    with collector_paused():
        return _lower(s, arg_list, stages, debug_keep_trivial_loop, exact)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cycle collector off for a while: lowering allocates many small immutable
    nodes and hardly a cycle, and the collector's passes over them cost about a tenth of its
    time; what cycles there are go at the next collection."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def lower_for_analysis(s: Schedule, args: Any) -> Stmt:
    """The loop nest of *s* as TVM's autotvm features read it: every loop kept (extent 1 too),
    a reduction without its init, buffers flattened and indices simplified; loops keep their
    kinds and virtual threads their attributes (nothing unrolled, partitioned or injected)."""
    check_schedule("lower_for_analysis", s)
    arg_list = argument_list("lower_for_analysis", args)
    stages = argument_stages("lower_for_analysis", s, arg_list)
    with collector_paused():
        _, _, _, _, _, body = _flat_body(s, arg_list, stages, True, False)
        return simplify_stmt(body, keep_trivial=True)


def _flat_body(s: Schedule, arg_list: list, stages: dict, keep_trivial: bool, exact: bool) -> tuple:
    """The schedule normalized, the arguments' layouts and buffers, its reads to check, the
    first read outside a tensor (or None), and its loop nest over flat buffers."""
    tensors = [a for a in arg_list if isinstance(a, Tensor)]
    layouts = {t: lay for t in tensors if (lay := layout_of(stages[t], t)) is not None}
    buffers = arg_buffers(tensors, layouts)
    sn = s.normalize()
    current = normalized_tensors(s, sn, stages)
    inlined = (AttachType.Inline, AttachType.InlinedAlready)
    reads = ReadCheck([st.op for st in sn.stages if st.attach_type not in inlined],
                      [current[t] for t in tensors if stages[t] is not None])
    outside = reads.find()  # TVM lowers such a schedule; lower() warns, and build refuses it
    regions: dict = {}
    bounds = inferred(sn, exact, regions)
    body = build_pipeline(sn, bounds, keep_trivial, exact, regions)
    if has_prefetch(sn.stages):
        body = inject_prefetch(body)
    body = flatten(body, sn, {current[t]: b for t, b in buffers.items()}, box_strides=exact)
    return sn, layouts, buffers, reads, outside, body


def _lower(s: Schedule, arg_list: list, stages: dict, debug_keep_trivial_loop: bool, exact: bool) -> LoweredFunc:
    sn, layouts, buffers, reads, outside, body = _flat_body(s, arg_list, stages, debug_keep_trivial_loop, exact)
    if has_virtual_threads(sn.stages):
        body = inject_virtual_thread(body)
    body = simplify_stmt(body, keep_trivial=debug_keep_trivial_loop)
    check_vectorized(body)
    if enabled("tir.LoopPartition"):
        chosen = partition_options()
        body = loop_partition(body, **chosen)
        body = simplify_stmt(body, keep_trivial=debug_keep_trivial_loop or chosen["no_unroll_loop_with_extent_one"])
    body = place_allocations(body)
    body = share_storage(body)
    check_memory_bounds(body)
    body = narrow_datatype(body)
    body, unrolled = unroll_loop(body)
    if unrolled:  # the copies' indices, with the loop variable a constant in each
        body = simplify_stmt(body, keep_trivial=debug_keep_trivial_loop)
    body = thread_sync(body)
    body = uniform_barriers(body)
    body = hoist_if_then_else(body)
    func = LoweredFunc(arg_list, buffers, body, exact, layouts, schedule=sn, reads=reads if reads.variables else None)
    func.outside_read = None if outside is None else str(outside)
    return func
