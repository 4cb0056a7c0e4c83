"""Storage flattening: tensors become flat row-major buffers.

Argument tensors bind to compact buffers of their full shape (their realize disappears);
every other realize becomes ``// attr [T] storage_scope = "..."`` and ``allocate T[...]`` of
the largest size its region takes, in place (:mod:`lower.passes.storage_rewrite` moves it). Provides
and reads become stores and loads at ``sum((index_k - min_k) * stride_k)``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bound import Analyzer, IntervalSet, eval_set, simplify
from bound.inference.exact import largest_expr_over_loops, largest_over_loops
from bound.inference.thread_scope import RANK_NAME, default_storage_rank, thread_rank
from lower.errors import LoweringError
from lower.ir.stmt import (
    Allocate,
    AttrStmt,
    Buffer,
    BufferBind,
    BufferView,
    DeclStore,
    For,
    Load,
    Prefetch,
    Provide,
    Realize,
    Stmt,
    Store,
)
from lower.ir.stmt_functor import StmtMutator, walk
from lower.ir.substitute import substitute_stmt
from lower.layout.index_map_layout import IndexMapLayout
from lower.layout.layout import Layout
from lower.passes.prefetch import prefetch_calls
from schedule import arith
from schedule.ir.buffer import BufferArg
from schedule.ir.expr import Call, Expr, IntImm, ProducerLoad, StringImm, Var
from schedule.ir.extern_stmt import ElemLoad
from schedule.ir.functor import ExprMutator, free_vars, substitute
from schedule.ir.itervar import IterVar, Range
from schedule.operation.tensor import Tensor
from schedule.schedule.schedule import Schedule


def buffer_name(t: Tensor) -> str:
    """A tensor's buffer name: its op's name, with ``.v<k>`` for outputs of a multi-output op."""
    return t.op.name if t.op.num_outputs == 1 else f"{t.op.name}.v{t.value_index}"


def arg_buffers(args: Sequence[Tensor], layouts: Mapping[Tensor, Layout] | None = None) -> dict[Tensor, Buffer]:
    """One compact buffer per argument tensor (its padded size when it has a layout)."""
    out: dict[Tensor, Buffer] = {}
    for t in args:
        lay = (layouts or {}).get(t)
        extents = (arith.const(lay.physical_size),) if lay is not None else tuple(t.shape)
        out[t] = Buffer(buffer_name(t), t.dtype, extents, "global", t)
    return out


def layout_of(stage: Any, t: Tensor) -> Layout | IndexMapLayout | None:
    """The Layout of a stage's tensor, if the schedule gave it one (a tiled layout, or a
    transform_layout)."""
    transform = getattr(stage, "layout_transform", None)
    if transform is not None:
        return IndexMapLayout(t.dtype, tuple(int(arith.value_of(e)) for e in t.shape), transform)  # type: ignore[arg-type]
    spec = getattr(stage, "layout", None)
    if spec is None:
        return None
    dims = tuple(int(arith.value_of(e)) for e in t.shape)  # type: ignore[arg-type]
    return Layout(t.dtype, dims, spec.minor_to_major, spec.tiles)


#: Constant bounds at or above this say "unbounded" (an int32 variable's largest value).
_UNBOUNDED = 2**31 - 1


class _Region:
    """Where a tensor's buffer lives and how logical indices map into it.

    *sizes* are the row-major sizes the strides are products of (the region's extents, or the
    allocated box's); *aligns* maps a dimension to ``(factor, offset)`` of ``storage_align``.
    """

    def __init__(self, buffer: Buffer, mins: Sequence[Expr], extents: Sequence[Expr],
                 layout: Layout | None = None, sizes: Sequence[Expr] | None = None,
                 aligns: Mapping[int, tuple[int, int]] | None = None, order: Sequence[int] | None = None) -> None:
        self.buffer = buffer
        self.mins = tuple(mins)
        self.extents = tuple(extents)
        self.layout = layout
        self.sizes = tuple(sizes) if sizes is not None else self.extents
        # Flat indices of a buffer of 2**31 elements or more are computed in int64, as TVM does.
        self.dtype = "int64" if _too_big_for_int32(self.sizes) else "int32"
        if order is None:
            self.steps = element_strides(self.sizes, aligns or {}, self.dtype)[0]
        else:  # the dimensions stored in *order*, outermost first (a permuting layout)
            steps = element_strides([self.sizes[d] for d in order], {}, self.dtype)[0]
            self.steps = [steps[order.index(d)] for d in range(len(order))]

    def flat(self, indices: Sequence[Expr]) -> tuple[Expr, tuple[Expr, ...]]:
        checks: list[Expr] = []
        for i, lo, ext in zip(indices, self.mins, self.extents):
            checks += [i, lo, ext]
        if self.layout is not None:
            return self.layout.linear_index_expr([arith.sub(i, lo) for i, lo in zip(indices, self.mins)]), \
                tuple(checks)
        dtype = self.dtype
        index: Expr = arith.const(0, dtype)
        for i, lo, stride in zip(indices, self.mins, self.steps):
            offset = arith.sub(i, lo)
            index = arith.add(index, arith.mul(arith.cast(dtype, offset) if offset.dtype != dtype else offset, stride))
        return index, tuple(checks)


def permutation(lay: Layout | IndexMapLayout) -> list[int] | None:
    """The logical dimension at each physical position, if *lay* only permutes the axes."""
    transform = getattr(lay, "transform", None)
    if transform is None or len(transform.physical) != len(transform.logical):
        return None
    position = {v: k for k, v in enumerate(transform.logical)}
    order = [position.get(e, -1) if isinstance(e, Var) else -1 for e in transform.physical]
    return order if sorted(order) == list(range(len(order))) else None


def element_strides(sizes: Sequence[Expr], aligns: Mapping[int, tuple[int, int]], dtype: str = "int32"
                    ) -> tuple[list[Expr], Expr]:
    """The stride of each dimension of a row-major buffer of *sizes*, and its whole size.

    A dimension ``k`` in *aligns* gets the smallest stride at least the compact one that is
    ``offset`` modulo ``factor`` (TVM's storage_align, which pads rows to avoid bank conflicts).
    """
    def cast(e: Expr) -> Expr:
        return arith.cast(dtype, e) if e.dtype != dtype else e
    if not aligns:
        steps: list[Expr] = []
        for k in range(len(sizes)):
            stride: Expr = arith.const(1, dtype)
            for e in sizes[k + 1:]:
                stride = arith.mul(stride, cast(e))
            steps.append(stride)
        total: Expr = arith.mul(steps[0], cast(sizes[0])) if sizes else arith.const(1, dtype)
        return steps, total
    stride = arith.const(1, dtype)
    rsteps: list[Expr] = []
    for k in reversed(range(len(sizes))):
        if k in aligns:
            factor, offset = (arith.const(v, dtype) for v in aligns[k])
            stride = simplify(arith.add(stride, arith.floormod(
                arith.sub(arith.add(factor, offset), arith.floormod(stride, factor)), factor)))
        rsteps.append(stride)
        stride = simplify(arith.mul(stride, cast(sizes[k])))
    return rsteps[::-1], stride


def _too_big_for_int32(extents: Sequence[Expr]) -> bool:
    size = 1
    for e in extents:
        v = arith.value_of(e)
        if v is not None:
            size *= max(int(v), 0)
    return size > _UNBOUNDED


class _Flatten(StmtMutator):
    def __init__(self, s: Schedule, buffers: Mapping[Tensor, Buffer], box_strides: bool) -> None:
        self.box_strides = box_strides
        self.stages = {st.op: st for st in s.stages}
        self.regions: dict[Tensor, _Region] = {
            t: _Region(b, [arith.const(0, "int32")] * len(t.shape), t.shape, layout_of(self.stages.get(t.op), t))
            for t, b in buffers.items()}
        self.bound_args = set(buffers)
        self.bindings = {decl: t for st in s.stages for decl, t in st.op.bindings().items()}
        self.views: dict[Any, BufferView] = {}  # buffers bound to regions (tensorize)
        self.analyzer = Analyzer()
        # Shapes are never negative: knowing it keeps symbolic allocations simple.
        shapes = [e for st in s.stages for k in range(st.op.num_outputs) for e in st.op.output(k).shape]
        self.shape_vars = free_vars(shapes)
        for v in self.shape_vars:
            self.analyzer.bind(v, Range.from_min_extent(0, arith.const(_UNBOUNDED, v.dtype)))
        self.loop_sets: dict[Var, IntervalSet] = {}
        self.loop_ranges: dict[Var, Range] = {}
        self.thread_ranks: list[int] = []
        self.loads = _Loads(self)

    def bind_threads(self, stmt: Stmt) -> None:
        """Every thread index of *stmt* takes its values throughout its kernel, so a region that
        depends on one (exact mode: a local stage of a thread bound further in) is allocated
        for the largest value it takes, wherever the allocation is placed."""
        for v, extent in _thread_extents(stmt).items():
            r = Range.from_min_extent(0, extent)
            self.analyzer.bind(v, r)
            self.loop_sets[v] = IntervalSet.from_range(r)
            self.loop_ranges[v] = r

    def visit_for(self, s: For) -> Stmt:
        self.analyzer.bind(s.loop_var, Range.from_min_extent(s.min, s.extent))
        self.loop_sets[s.loop_var] = IntervalSet.from_range(Range.from_min_extent(s.min, s.extent))
        self.loop_ranges[s.loop_var] = Range.from_min_extent(s.min, s.extent)
        return super().visit_default(s)

    def visit_attr_stmt(self, s: AttrStmt) -> Stmt:
        if s.key == "buffer_bind_scope":
            return (yield from self._bind_scope(s))
        if s.key not in ("thread_extent", "virtual_thread") or not isinstance(s.node, IterVar):
            return (yield super().visit_default(s))
        self.analyzer.bind(s.node.var, Range.from_min_extent(0, s.value))
        self.loop_sets[s.node.var] = IntervalSet.from_range(Range.from_min_extent(0, s.value))
        self.loop_ranges[s.node.var] = Range.from_min_extent(0, s.value)
        self.thread_ranks.append(thread_rank(s.node.thread_tag)[0])
        try:
            return (yield super().visit_default(s))
        finally:
            self.thread_ranks.pop()

    def _bind_scope(self, s: AttrStmt) -> Any:
        """The body of a ``buffer_bind_scope`` with its buffer seen as the region it stands for:
        the buffer's symbolic strides, offset and shape take their values (TVM's ArgBinder)."""
        spec = s.node
        assert isinstance(spec, BufferBind) and isinstance(s.value, Call)
        decl, tensor = spec.buffer, spec.tensor
        items = s.value.args
        mins, extents = list(items[0::2]), list(items[1::2])
        view, vmap = self._bound_view(decl, tensor, mins, extents)
        old = self.views.get(decl)
        self.views[decl] = view
        try:
            return (yield substitute_stmt(s.body, vmap) if vmap else s.body)
        finally:
            if old is None:
                self.views.pop(decl)
            else:
                self.views[decl] = old

    def _bound_view(self, decl: Any, tensor: Tensor, mins: list[Expr], extents: list[Expr]
                    ) -> tuple[BufferView, dict[Var, Expr]]:
        region = self._region(tensor)
        where = f"buffer '{decl.name}' bound to tensor '{tensor.name}'"
        if region.layout is not None:
            raise LoweringError(f"{where}: the tensor has a tiled layout, which a buffer cannot see through")
        start = len(mins) - decl.ndim
        steps = [self.analyzer.simplify(st) for st in region.steps]
        offset = self.analyzer.simplify(region.flat(mins)[0])
        vmap: dict[Var, Expr] = {}

        def bind(declared: Expr, actual: Expr, what: str) -> None:
            declared = substitute(declared, vmap) if vmap else declared
            if isinstance(declared, Var) and declared not in self.loop_ranges and declared not in self.shape_vars:
                vmap[declared] = actual
            elif arith.value_of(self.analyzer.simplify(arith.sub(declared, actual))) != 0:
                raise LoweringError(f"{where}: its {what} is {declared}, but the region it stands for has "
                                    f"{actual}")
        for j in range(decl.ndim):
            bind(decl.shape[j], extents[start + j], f"extent {j}")
        if decl.strides:
            for j in range(decl.ndim):
                bind(decl.strides[j], steps[start + j], f"stride {j}")
        else:
            compact = element_strides(extents[start:], {})[0]
            for k in range(start, len(mins)):
                if arith.value_of(self.analyzer.simplify(arith.sub(compact[k - start], steps[k]))) != 0:
                    raise LoweringError(f"{where}: the buffer is compact, but the region it stands for is not "
                                        "contiguous in the storage; declare the buffer with strides "
                                        "(strides=[te.var('s'), 1])")
        bind(decl.elem_offset, offset, "element offset")
        if decl.offset_factor > 1:
            rest = arith.value_of(self.analyzer.simplify(arith.floormod(offset, decl.offset_factor)))
            if rest is not None and rest != 0:
                raise LoweringError(f"{where}: its offset {offset} is not a multiple of its offset_factor "
                                    f"{decl.offset_factor}")
        shape = tuple(substitute(d, vmap) for d in decl.shape)
        return BufferView(region.buffer, region.buffer.name, shape, tuple(steps[start:]), offset), vmap

    def visit_prefetch(self, s: Prefetch) -> Stmt:
        region = self._region(s.tensor)

        def load(indices: list[Expr]) -> Load:
            index, checks = region.flat(indices)
            return Load(region.buffer, index, checks)
        return prefetch_calls(s, load)

    def visit_realize(self, s: Realize) -> Stmt:
        t = s.op.output(s.value_index)
        if t in self.bound_args:
            return (yield s.body)
        stage = self.stages.get(s.op)
        scope = stage.scope if stage is not None and stage.scope else \
            RANK_NAME[default_storage_rank(max(self.thread_ranks, default=-1))]
        lay = layout_of(stage, t)
        order = None
        if lay is not None and not all(arith.value_of(r.min) == 0 and arith.value_of(r.extent) == n
                                       for r, n in zip(s.bounds, lay.dims)):
            # A region of the tensor: a layout that only permutes the axes stores it permuted.
            order = permutation(lay)
            if order is None:
                raise LoweringError(f"stage '{t.op.name}' has a layout that splits or fuses axes, which needs "
                                    "the whole tensor realized at once; compute it at the root")
            lay = None
        extents = [r.extent for r in s.bounds] if lay is not None else self._allocation(t, s.bounds)
        aligns = _aligns(stage, s.op)
        if aligns and (lay is not None or order is not None):
            raise LoweringError(f"stage '{t.op.name}' has both a layout and storage_align; give it one of them")
        if aligns:
            size = self.analyzer.simplify(element_strides(extents, aligns)[1])
        else:
            size = arith.const(lay.physical_size) if lay is not None else self._size(extents)
        buf = Buffer(buffer_name(t), t.dtype, (size,), scope, t)
        old = self.regions.get(t)
        # Strides are the region's extents, as TVM flattens; with box strides, the allocated box's.
        sizes = extents if self.box_strides else [r.extent for r in s.bounds]
        self.regions[t] = _Region(buf, [r.min for r in s.bounds], [r.extent for r in s.bounds], lay, sizes, aligns,
                                  order)
        try:
            body = yield s.body
            return AttrStmt(buf, "storage_scope", StringImm(buf.scope), Allocate(buf, body))
        finally:
            if old is None:
                self.regions.pop(t)
            else:
                self.regions[t] = old

    def _allocation(self, t: Tensor, bounds: Sequence[Range]) -> list[Expr]:
        """Per dimension, the largest extent *bounds* takes inside the loops around it.

        An extent free of loop variables is allocated as it is (symbolic shapes stay
        symbolic); one that varies takes its largest value over the loops (isl), or its
        constant bound, or else its bound over the loops.
        """
        out = []
        for d, r in enumerate(bounds):
            extent = r.extent
            if any(v in self.loop_sets for v in free_vars([extent])):
                hi = _smallest(self._const_bound(extent), largest_over_loops(extent, self.loop_ranges))
                if hi is not None:
                    extent = arith.const(max(hi, 0))
                elif (best := largest_expr_over_loops(extent, self.loop_ranges, self.shape_vars)) is not None:
                    extent = self.analyzer.simplify(arith.max_expr(best, 0))
                else:
                    s = eval_set(extent, self.loop_sets, self.analyzer)
                    if not s.has_upper_bound() or any(v in self.loop_sets for v in free_vars([s.max_value])):
                        raise LoweringError(f"stage '{t.op.name}': the extent {r.extent} of dimension {d} "
                                            "of its region has no upper bound to allocate")
                    extent = self.analyzer.simplify(arith.max_expr(s.max_value, 0))
            out.append(extent)
        return out

    def _size(self, extents: Sequence[Expr]) -> Expr:
        constant = 1  # the constant factors, multiplied exactly (no int32 overflow)
        size: Expr | None = None
        for extent in extents:
            if arith.value_of(extent) is not None:
                constant *= max(int(arith.value_of(extent)), 0)
            else:
                size = extent if size is None else arith.mul(size, extent)
        total: Expr = arith.const(constant)
        if size is not None:
            total = arith.mul(total, size)
        return self.analyzer.simplify(total)

    def _const_bound(self, e: Expr) -> int | None:
        """A constant upper bound of *e* that holds for any shape: one that comes from a shape
        variable's int32 range (``n / 3`` is below 715827883) is no size to allocate."""
        hi = self.analyzer.const_bound(e)[1]
        if hi is None or hi >= _UNBOUNDED:
            return None
        if self.shape_vars:  # the same bound with smaller shapes, or it came from their range
            small = self.analyzer.copy()
            for v in self.shape_vars:
                small.bind(v, Range.from_min_extent(0, arith.const(2**20, v.dtype)))
            if small.const_bound(e)[1] != hi:
                return None
        return hi

    def visit_provide(self, s: Provide) -> Stmt:
        t = s.op.output(s.value_index)
        region = self._region(t)
        index, checks = region.flat([self.mutate_expr(i) for i in s.indices])
        return Store(region.buffer, self.mutate_expr(s.value), index, checks)

    def visit_decl_store(self, s: DeclStore) -> Stmt:
        buf, index, checks = self.element(s.buffer, self.mutate_expr(s.index))
        return Store(buf, self.mutate_expr(s.value), index, checks, checked=True)

    def element(self, decl: Any, index: Expr) -> tuple[Buffer, Expr, tuple[Expr, ...]]:
        """Where element *index* of the storage of the tensor *decl* is bound to lives: as
        ``ir_builder.buffer_ptr`` sees it, the storage from its start, in elements."""
        tensor = self.bindings.get(decl)
        if tensor is None:
            raise LoweringError(f"buffer '{decl.name}' is read or written but bound to no tensor; declare it "
                                "in te.extern's in_buffers or out_buffers")
        region = self._region(tensor)
        if region.layout is not None:
            raise LoweringError(f"buffer '{decl.name}': tensor '{tensor.name}' has a tiled layout, which an "
                                "extern's loads and stores cannot see through")
        size = self.analyzer.simplify(region.buffer.size)
        return region.buffer, index, (index, arith.const(0, index.dtype), size)

    def _region(self, t: Tensor) -> _Region:
        region = self.regions.get(t)
        if region is None:
            raise LoweringError(f"tensor '{t.name}' is used but neither realized nor an argument of "
                                "lower; pass every input placeholder in args")
        return region

    def mutate_expr(self, e: Expr) -> Expr:
        return self.loads(e)


def _smallest(*bounds: int | None) -> int | None:
    known = [b for b in bounds if b is not None]
    return min(known) if known else None


class _Loads(ExprMutator):
    def __init__(self, owner: _Flatten) -> None:
        self.owner = owner

    def visit_producer_load(self, e: ProducerLoad) -> Expr:
        region = self.owner._region(e.producer)
        index, checks = region.flat([self(i) for i in e.indices])
        return Load(region.buffer, index, checks)

    def visit_call(self, e: Call) -> Expr:
        if e.name != "tvm_access_ptr":
            return self.visit_default(e)
        _, arg, offset, extent, mask = (self(a) for a in e.args)
        if not isinstance(arg, BufferView):
            raise LoweringError(f"access_ptr: {e.args[0]} is not a buffer")
        start = self.owner.analyzer.simplify(arith.add(arg.offset, offset))
        flat = BufferView(arg.buffer, arg.buffer.name, (extent,), (arith.const(1),), start)
        return Call("handle", "tvm_access_ptr", (StringImm(arg.buffer.dtype), flat, start, extent, mask))

    def visit_elem_load(self, e: ElemLoad) -> Expr:
        buf, index, checks = self.owner.element(e.buffer, self(e.index))
        return Load(buf, index, checks, checked=True)

    def visit_buffer_arg(self, e: BufferArg) -> Expr:
        decl = e.buffer
        view = self.owner.views.get(decl)
        if view is not None:
            return view
        tensor = self.owner.bindings.get(decl)
        if tensor is None:
            raise LoweringError(f"buffer '{decl.name}' is passed to a call but bound to no tensor; declare "
                                "it in te.extern's in_buffers or out_buffers")
        region = self.owner._region(tensor)
        if region.layout is not None:
            raise LoweringError(f"buffer '{decl.name}': tensor '{tensor.name}' has a tiled layout, which an "
                                "extern call cannot see through a buffer")
        # Symbolic strides and offsets are bound here: the storage starts at 0.
        strides = tuple(st if isinstance(st, IntImm) else c for st, c in zip(decl.strides, region.steps)) \
            if decl.strides else tuple(region.steps)
        offset = decl.elem_offset if isinstance(decl.elem_offset, IntImm) else arith.const(0)
        return BufferView(region.buffer, decl.name, decl.shape, strides, offset)


def _aligns(stage: Any, op: Any) -> dict[int, tuple[int, int]]:
    """``storage_align`` of the dimensions of *op*'s buffer: dimension -> (factor, offset)."""
    if stage is None:
        return {}
    out = {}
    for k, iv in enumerate(getattr(op, "axis", ())):
        attr = stage.iter_var_attrs.get(iv)
        if attr is not None and attr.dim_align_factor:
            out[k] = (attr.dim_align_factor, attr.dim_align_offset)
    return out


def flatten(stmt: Stmt, s: Schedule, buffers: Mapping[Tensor, Buffer], box_strides: bool = False) -> Stmt:
    """*stmt* with flat buffers, each allocated where it was realized (see :mod:`lower.passes.storage_rewrite`).

    With *box_strides* (exact mode), a buffer whose region varies with the loops is indexed
    with the strides of its allocated box rather than of each iteration's region: the same
    storage, and indices that do not repeat the region's extent expressions.
    """
    f = _Flatten(s, buffers, box_strides)
    f.bind_threads(stmt)
    return f(stmt)


def _thread_extents(stmt: Stmt) -> dict[Var, Expr]:
    """Each thread variable bound in *stmt*, with the extent of its first attribute."""
    found: dict[Var, Expr] = {}
    for s in walk(stmt):
        if isinstance(s, AttrStmt) and s.key in ("thread_extent", "virtual_thread") and isinstance(s.node, IterVar):
            found.setdefault(s.node.var, s.value)
    return found
