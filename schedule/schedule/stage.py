"""A stage of a schedule and its primitives (split, fuse, reorder, compute_at ...).

Every primitive checks all of its arguments before it changes anything, so a
:class:`~schedule.base.errors.ScheduleError` leaves the stage exactly as it was.
"""

from __future__ import annotations

import enum
import warnings
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.base.storage_scope import check_scope
from schedule.ir import arith
from schedule.ir.dtype import bits
from schedule.ir.expr import Expr, IntImm, StringImm, Var
from schedule.ir.itervar import IterVar, IterVarType, Range
from schedule.operation.compute import ComputeOp
from schedule.operation.placeholder import PlaceholderOp
from schedule.operation.tensor import Operation, Tensor
from schedule.operation.tensor_compute import tensorize_at_creation
from schedule.operation.tensor_intrin import TensorIntrin
from schedule.schedule.layout_spec import LayoutSpec, check_layout, parse_layout
from schedule.schedule.record import recorded
from schedule.schedule.relations import Fuse, IterVarRelation, Rebase, Singleton, Split
from schedule.schedule.transform_layout import transform_layout

if TYPE_CHECKING:
    from schedule.schedule.schedule import Schedule


class AttachType(enum.IntEnum):
    """Where a stage is computed, with TVM's numbering."""

    GroupRoot = 1
    Inline = 2
    InlinedAlready = 3
    Scope = 4
    ScanUpdate = 5


#: Attach types of a stage computed inside another stage's loops.
ATTACHED = (AttachType.Scope, AttachType.ScanUpdate)



class PragmaKey(str):
    """A pragma's key: a string that also reads as TVM's ``StringImm`` (``key.value``)."""

    __slots__ = ()

    @property
    def value(self) -> str:
        return str(self)


@dataclass(frozen=True)
class IterVarAttr:
    """Per-IterVar schedule annotations: loop kind, bound thread, pragmas."""

    iter_type: IterVarType = IterVarType.DataPar
    bind_thread: IterVar | None = None
    pragma_keys: tuple[str, ...] = ()
    pragma_values: tuple[Any, ...] = ()
    tensor_intrin: Any = None  # a TensorIntrin for a tensorized leaf
    dim_align_factor: int = 0  # storage_align of a root axis: its stride is offset modulo factor
    dim_align_offset: int = 0
    prefetch_data: tuple[Any, ...] = ()  # tensors to prefetch in this loop, and how far ahead
    prefetch_offset: tuple[Expr, ...] = ()


_SPLITTABLE = (IterVarType.DataPar, IterVarType.CommReduce, IterVarType.Ordered)
_REORDERABLE = (IterVarType.DataPar, IterVarType.CommReduce, IterVarType.ThreadIndex)
_VECTORIZABLE = (IterVarType.DataPar, IterVarType.Opaque, IterVarType.Unrolled, IterVarType.Vectorized,
                 IterVarType.Tensorized, IterVarType.Parallelized)


class Stage:
    """The schedule of one operation: its IterVars, their relations, and where it is computed.

    ``all_iter_vars`` holds the root IterVars followed by every IterVar a primitive created;
    ``leaf_iter_vars`` is the current loop order, outermost first.
    """

    def __init__(self, op: Operation, schedule: Schedule | None = None) -> None:
        self.op = op
        self.origin_op = op
        self.all_iter_vars: list[IterVar] = list(op.root_iter_vars)
        self.leaf_iter_vars: list[IterVar] = [iv for iv in self.all_iter_vars
                                              if iv.iter_type != IterVarType.Opaque]
        self.relations: list[IterVarRelation] = []
        self.attach_type = AttachType.GroupRoot
        self.attach_ivar: IterVar | None = None
        self.attach_stage: Stage | None = None
        self.scope = ""
        self.layout = None
        self.layout_transform = None  # schedule.schedule.transform_layout.LayoutTransform, if transformed
        self.iter_var_attrs: dict[IterVar, IterVarAttr] = {iv: IterVarAttr(iter_type=kind)
                                                            for iv, kind in op.annotated_axes().items()}
        self.is_output = False
        self.group: Any = None  # the Group this stage is in (schedule.schedule.group)
        self.step_of: Stage | None = None  # the scan whose body this stage is part of
        self.store_predicate: Expr | None = None
        self._schedule = schedule
        # The IterVar normalize rebases each root to; shared by copies of this stage, so that
        # every normalized copy of a schedule uses the same loop variables.
        self._rebased: dict[IterVar, IterVar] = {}
        if "tensor_intrin" in getattr(op, "attrs", {}):  # a tensor intrinsic called in te.compute

            tensorize_at_creation(self)

    @property
    def rebased_iter_vars(self) -> dict[IterVar, IterVar]:
        """Each root IterVar normalize rebased to start at 0, and the IterVar it was rebased to."""
        return dict(self._rebased)

    @property
    def name(self) -> str:
        return self.origin_op.name

    def __repr__(self) -> str:
        return f"stage({self.name}, {self.op!r})"

    def bound_thread(self, iv: IterVar) -> IterVar | None:
        """The thread IterVar *iv* is bound to, if any."""
        attr = self.iter_var_attrs.get(iv)
        return attr.bind_thread if attr is not None else None

    # ------------------------------------------------------------------ checks

    def _error(self, primitive: str, iv: Any, problem: str) -> ScheduleError:
        if iv is None:
            return ScheduleError(f"{primitive}: stage '{self.name}' {problem}")
        return ScheduleError(f"{primitive}: stage '{self.name}', IterVar '{_name(iv)}' {problem}")

    def _leaf_position(self, iv: Any, primitive: str) -> int:
        """Position of *iv* among the leaves, or a ScheduleError that says why it is not a leaf."""
        if not isinstance(iv, IterVar):
            raise ScheduleTypeError(f"{primitive}: stage '{self.name}': expected an IterVar (such as "
                                    f"C.op.axis[0]), got {type(iv).__name__}")
        for pos, leaf in enumerate(self.leaf_iter_vars):
            if leaf is iv:
                return pos
        leaves = ", ".join(x.name for x in self.leaf_iter_vars)
        if any(x is iv for x in self.all_iter_vars):
            problem = f"{self._consumed_by(iv)}; use one of its leaves (leaves: {leaves})"
        else:
            problem = f"does not belong to this stage (leaves: {leaves})"
        raise self._error(primitive, iv, problem)

    def _consumed_by(self, iv: IterVar) -> str:
        for rel in self.relations:
            match rel:
                case Split(parent=p) if p is iv:
                    return "was already split"
                case Fuse(outer=o, inner=i, fused=f) if iv is o or iv is i:
                    return f"was already fused into '{f.name}'"
                case Rebase(parent=p) if p is iv:
                    return "was already rebased"
        return "is not a leaf"

    def _check_kind(self, primitive: str, iv: IterVar, allowed: tuple[IterVarType, ...]) -> None:
        if iv.iter_type not in allowed:
            kinds = ", ".join(k.name for k in allowed)
            raise self._error(primitive, iv, f"is {iv.iter_type.name}; {primitive} accepts {kinds}")

    def _check_factor(self, primitive: str, iv: IterVar, name: str, value: Any) -> Expr:
        if isinstance(value, (bool, float)) or not arith.is_expr_like(value):
            raise ScheduleTypeError(f"{primitive}: stage '{self.name}', IterVar '{iv.name}': {name}="
                                    f"{value!r} is not a positive integer")
        e = arith.convert(value)
        if not e.dtype.startswith(("int", "uint")):
            raise ScheduleTypeError(f"{primitive}: stage '{self.name}', IterVar '{iv.name}': {name}={e} "
                                    f"is {e.dtype}, not a positive integer")
        if isinstance(e, IntImm) and e.value <= 0:
            raise self._error(primitive, iv, f"cannot be split with {name}={e.value}; "
                                             f"{name} must be a positive integer")
        return e

    # ------------------------------------------------------------------ loop structure

    @recorded
    def split(self, parent: IterVar, factor: Any = None, nparts: Any = None) -> tuple[IterVar, IterVar]:
        """Split *parent* into ``(outer, inner)`` with ``parent = outer * inner_extent + inner``.

        Give exactly one of *factor* (extent of *inner*) and *nparts* (extent of *outer*).

        :returns: the new leaves, named ``<parent>.outer`` and ``<parent>.inner``.
        :raises ScheduleError: on a bad argument or a non-leaf *parent*; the stage is then unchanged.
        """
        pos = self._leaf_position(parent, "split")
        if (factor is None) == (nparts is None):
            raise self._error("split", parent, "needs exactly one of factor= and nparts=")
        self._check_kind("split", parent, _SPLITTABLE)
        f = None if factor is None else self._check_factor("split", parent, "factor", factor)
        n = None if nparts is None else self._check_factor("split", parent, "nparts", nparts)
        outer = IterVar(None, Var(f"{parent.name}.outer", parent.var.dtype), parent.iter_type)
        inner = IterVar(None, Var(f"{parent.name}.inner", parent.var.dtype), parent.iter_type)
        # -- all checks done; state changes only below --
        self.relations.append(Split(parent, outer, inner, f, n))
        self.all_iter_vars.extend((outer, inner))
        self.leaf_iter_vars[pos:pos + 1] = [outer, inner]
        return outer, inner

    @recorded
    def fuse(self, *args: IterVar) -> IterVar:
        """Fuse consecutive leaves, given outermost first, into one ``a.b.fused`` IterVar.

        With one argument it is returned unchanged; with none a ``singleton`` loop of extent 1 is
        inserted outermost.
        """
        if not args:
            singleton = IterVar(Range.from_min_extent(0, 1), Var("singleton"), IterVarType.DataPar)
            self.relations.append(Singleton(singleton))
            self.all_iter_vars.append(singleton)
            self.leaf_iter_vars.insert(0, singleton)
            return singleton
        positions = [self._leaf_position(iv, "fuse") for iv in args]
        for iv in args:
            self._check_kind("fuse", iv, _SPLITTABLE)
        for (a, pa), (b, pb) in zip(zip(args, positions), zip(args[1:], positions[1:])):
            if pb != pa + 1:
                order = "is given after" if pb < pa else "is not next to"
                raise self._error("fuse", b, f"{order} '{a.name}' among the leaves; fuse takes "
                                             "consecutive leaves, outermost first")
        fused = args[0]
        # -- all checks done; state changes only below --
        for inner in args[1:]:
            fused = self._fuse_pair(fused, inner)
        return fused

    def _fuse_pair(self, outer: IterVar, inner: IterVar) -> IterVar:
        dtype = outer.var.dtype if bits(outer.var.dtype) >= bits(inner.var.dtype) else inner.var.dtype
        kind = max(outer.iter_type, inner.iter_type)
        fused = IterVar(None, Var(f"{outer.name}.{inner.name}.fused", dtype), kind)
        pos = self.leaf_iter_vars.index(outer)
        self.relations.append(Fuse(outer, inner, fused))
        self.all_iter_vars.append(fused)
        self.leaf_iter_vars[pos:pos + 2] = [fused]
        return fused

    @recorded
    def reorder(self, *args: IterVar) -> None:
        """Put the given leaves in the given order, in the slots they occupy together."""
        positions = [self._leaf_position(iv, "reorder") for iv in args]
        seen: set[int] = set()
        for iv in args:
            self._check_kind("reorder", iv, _REORDERABLE)
            if id(iv) in seen:
                raise self._error("reorder", iv, "appears more than once")
            seen.add(id(iv))
        # -- all checks done; state changes only below --
        for pos, iv in zip(sorted(positions), args):
            self.leaf_iter_vars[pos] = iv

    def tile(self, x_parent: IterVar, y_parent: IterVar, x_factor: Any, y_factor: Any
             ) -> tuple[IterVar, IterVar, IterVar, IterVar]:
        """Split *x_parent* and *y_parent* and order the loops ``x.outer, y.outer, x.inner, y.inner``."""
        self._leaf_position(x_parent, "tile")
        self._leaf_position(y_parent, "tile")
        if x_parent is y_parent:
            raise self._error("tile", x_parent, "is given as both x_parent and y_parent")
        for iv, factor in ((x_parent, x_factor), (y_parent, y_factor)):
            self._check_kind("tile", iv, _SPLITTABLE)
            self._check_factor("tile", iv, "factor", factor)
        for iv in (x_parent, y_parent):
            self._check_kind("tile", iv, _REORDERABLE)
        # -- all checks done; state changes only below --
        xo, xi = self.split(x_parent, factor=x_factor)
        yo, yi = self.split(y_parent, factor=y_factor)
        self.reorder(xo, yo, xi, yi)
        return xo, yo, xi, yi

    # ------------------------------------------------------------------ placement

    @recorded
    def compute_at(self, parent: Stage, scope: IterVar) -> None:
        """Compute this stage inside the loop *scope* of the stage *parent*.

        *parent* must consume this stage (directly or through other stages) and must not be
        attached, directly or transitively, inside this stage.
        """
        if not isinstance(parent, Stage):
            raise ScheduleTypeError(f"compute_at: stage '{self.name}': the target must be a Stage "
                                    f"(s[C]), not {type(parent).__name__}")
        if not isinstance(scope, IterVar):
            raise ScheduleTypeError(f"compute_at: stage '{self.name}': the attach point must be an "
                                    f"IterVar of stage '{parent.name}', not {type(scope).__name__}")
        if parent._schedule is not self._schedule:
            raise self._error("compute_at", None, f"and the target stage '{parent.name}' belong to "
                                                  "different schedules")
        if parent is self:
            raise self._error("compute_at", scope, "is an axis of the stage itself; a stage cannot "
                                                   "be computed inside its own loops")
        if not isinstance(self.op, ComputeOp):
            kind = "a placeholder" if isinstance(self.op, PlaceholderOp) else "not a compute"
            raise self._error("compute_at", None, f"is {kind}; only compute stages can be attached")
        self._require_movable("compute_at")
        if self.is_output:
            raise self._error("compute_at", None, "is an output of the schedule; outputs are "
                                                  "computed at the root")
        check_same_group(f"compute_at: stage '{self.name}'", self, parent)
        if not any(leaf is scope for leaf in parent.leaf_iter_vars):
            where = (parent._consumed_by(scope) if any(x is scope for x in parent.all_iter_vars)
                     else "does not belong to it")
            leaves = ", ".join(x.name for x in parent.leaf_iter_vars)
            raise self._error("compute_at", scope, f"is not a leaf of the target stage "
                                                   f"'{parent.name}': it {where} (leaves: {leaves})")
        if parent.attach_type in (AttachType.Inline, AttachType.InlinedAlready):
            raise self._error("compute_at", None, f"cannot be attached to '{parent.name}', which is "
                                                  "inlined and has no loops")
        s: Stage | None = parent
        while s is not None and s.attach_type in ATTACHED:
            s = s.attach_stage
            if s is self:
                raise self._error("compute_at", None, f"cannot be attached to '{parent.name}', which is "
                                                      f"itself attached inside '{self.name}'")
        assert self._schedule is not None
        if not self._schedule.reads_transitively(parent, self):
            raise self._error("compute_at", None, f"is not read by '{parent.name}' (directly or through "
                                                  "other stages); attach it to a stage that consumes it")
        # -- all checks done; state changes only below --
        self.attach_type = AttachType.Scope
        self.attach_ivar = scope
        self.attach_stage = parent

    def _require_movable(self, primitive: str) -> None:
        """A scan's update is computed at each step of the scan and stays there."""
        if self.attach_type != AttachType.ScanUpdate or self.attach_stage is None:
            return
        scan = self.attach_stage
        if any(t.op is self.op for t in getattr(scan.op, "update", ())):
            raise self._error(primitive, None, f"is the update of scan '{scan.name}', computed at each "
                                               "of its steps; it cannot be moved")

    @recorded
    def set_store_predicate(self, predicate: Any) -> None:
        """Store the stage's values only where *predicate* holds (after a cross-thread
        reduction, one thread writes what all threads computed)."""
        try:
            cond = arith.convert(predicate)
        except TypeError as err:
            raise ScheduleTypeError(f"set_store_predicate: stage '{self.name}': {err}") from None
        if cond.dtype != "bool":
            raise ScheduleTypeError(f"set_store_predicate: stage '{self.name}': the predicate must be a "
                                    f"condition, not a {cond.dtype} expression")
        self.store_predicate = cond

    @recorded
    def compute_inline(self) -> None:
        """Substitute this stage's body into its consumers (done by ``Schedule.normalize``)."""
        self._require_movable("compute_inline")
        if not isinstance(self.op, ComputeOp):
            kind = "a placeholder" if isinstance(self.op, PlaceholderOp) else "an extern stage"
            raise self._error("compute_inline", None, f"is {kind}; only compute stages can be inlined")
        if self.op.num_outputs != 1:
            raise self._error("compute_inline", None, f"has {self.op.num_outputs} outputs; only "
                                                      "single-output computes can be inlined")
        if self.op.reduce_axis:
            raise self._error("compute_inline", None, "is a reduction; a reduction cannot be inlined "
                                                      "into its consumers")
        if self.is_output:
            raise self._error("compute_inline", None, "is an output of the schedule; outputs must be "
                                                      "computed")
        assert self._schedule is not None
        for other in self._schedule.stages:
            if other.attach_type == AttachType.Scope and other.attach_stage is self:
                raise self._error("compute_inline", None, f"is the compute_at target of '{other.name}'; "
                                                          "move that stage first")
        # -- all checks done; state changes only below --
        self.attach_type = AttachType.Inline
        self.attach_ivar = self.attach_stage = None

    @recorded
    def compute_root(self) -> None:
        """Compute this stage at the root, before its consumers; for a member of a group, where
        its group is computed (a scan's body: at each step of the scan)."""
        self._require_movable("compute_root")
        self.attach_type = AttachType.GroupRoot
        self.attach_ivar = self.attach_stage = None

    # ------------------------------------------------------------------ annotations

    @recorded
    def bind(self, ivar: IterVar, thread_ivar: IterVar) -> None:
        """Bind the leaf *ivar* to the thread axis *thread_ivar* (from ``te.thread_axis``)."""
        self._leaf_position(ivar, "bind")
        self._check_kind("bind", ivar, (IterVarType.DataPar, IterVarType.CommReduce))
        if not isinstance(thread_ivar, IterVar) or thread_ivar.iter_type != IterVarType.ThreadIndex:
            shown = thread_ivar.name if isinstance(thread_ivar, IterVar) else type(thread_ivar).__name__
            raise self._error("bind", ivar, f"cannot be bound to '{shown}', which is not a thread axis; "
                                            "create one with te.thread_axis('threadIdx.x')")
        # Hardware threads are one index per tag; virtual threads one per IterVar.
        virtual = thread_ivar.thread_tag.startswith(("vthread", "cthread"))
        for other, attr in self.iter_var_attrs.items():
            bound = attr.bind_thread
            same = bound is thread_ivar or (not virtual and bound is not None
                                            and bound.thread_tag == thread_ivar.thread_tag)
            if other is not ivar and same and any(leaf is other for leaf in self.leaf_iter_vars):
                raise self._error("bind", ivar, f"cannot be bound to '{thread_ivar.thread_tag}': the leaf "
                                                f"'{other.name}' of this stage is already bound to it, and one "
                                                "thread index cannot run two loops (fuse them first)")
        old = self.iter_var_attrs.get(ivar, IterVarAttr())
        if old.bind_thread is not None and old.bind_thread is not thread_ivar:
            warnings.warn(f"bind: stage '{self.name}', IterVar '{ivar.name}' was bound to "
                          f"'{old.bind_thread.name}' and is now bound to '{thread_ivar.name}'", stacklevel=2)
        self.iter_var_attrs[ivar] = replace(old, bind_thread=thread_ivar)

    def _set_iter_type(self, primitive: str, iv: IterVar, kind: IterVarType) -> None:
        self._leaf_position(iv, primitive)
        old = self.iter_var_attrs.get(iv, IterVarAttr())
        self.iter_var_attrs[iv] = replace(old, iter_type=kind)

    @recorded
    def vectorize(self, iv: IterVar) -> None:
        """Mark the leaf *iv* as a vectorized loop."""
        self._leaf_position(iv, "vectorize")
        if iv.iter_type not in _VECTORIZABLE:
            raise self._error("vectorize", iv, f"is {iv.iter_type.name}; a reduction axis cannot be "
                                               "vectorized")
        self._set_iter_type("vectorize", iv, IterVarType.Vectorized)

    @recorded
    def tensorize(self, iv: IterVar, intrin: Any) -> None:
        """Compute the loops from the leaf *iv* inward with the tensor intrinsic *intrin*
        (``te.decl_tensor_intrin``); lowering checks that it computes the same thing."""
        self._leaf_position(iv, "tensorize")
        if not isinstance(intrin, TensorIntrin):
            raise ScheduleTypeError(f"tensorize: stage '{self.name}': expected a tensor intrinsic from "
                                    f"te.decl_tensor_intrin, not {type(intrin).__name__}")
        if not isinstance(self.op, ComputeOp):
            raise self._error("tensorize", iv, "belongs to a stage that is not a compute; only computes "
                                               "can be tensorized")
        self._check_kind("tensorize", iv, (IterVarType.DataPar, IterVarType.CommReduce))
        for other, attr in self.iter_var_attrs.items():
            if other is not iv and attr.iter_type == IterVarType.Tensorized \
                    and any(leaf is other for leaf in self.leaf_iter_vars):
                raise self._error("tensorize", iv, f"cannot be tensorized: '{other.name}' already is, and a "
                                                   "stage has one tensorized loop")
        old = self.iter_var_attrs.get(iv, IterVarAttr())
        self.iter_var_attrs[iv] = replace(old, iter_type=IterVarType.Tensorized, tensor_intrin=intrin)

    @recorded
    def unroll(self, iv: IterVar) -> None:
        """Mark the leaf *iv* as an unrolled loop."""
        self._set_iter_type("unroll", iv, IterVarType.Unrolled)

    @recorded
    def parallel(self, iv: IterVar) -> None:
        """Mark the leaf *iv* as a parallel loop."""
        self._leaf_position(iv, "parallel")
        if iv.iter_type == IterVarType.CommReduce:
            raise self._error("parallel", iv, "is a reduction axis; its iterations update the same "
                                              "element and cannot run in parallel")
        self._set_iter_type("parallel", iv, IterVarType.Parallelized)

    @recorded
    def pragma(self, iv: IterVar, key: str, value: Any = None) -> None:
        """Attach a pragma to the leaf *iv*; ``"unroll"`` and ``"vectorize"`` act as those primitives."""
        if key == "unroll":
            self.unroll(iv)
            return
        if key == "vectorize":
            self.vectorize(iv)
            return
        self._leaf_position(iv, "pragma")
        if not isinstance(key, str) or not key:
            raise self._error("pragma", iv, f"needs a non-empty string key, not {key!r}")
        if isinstance(value, str):
            value = StringImm(value)
        elif value is not None:
            try:
                value = arith.convert(value)
            except TypeError:
                raise ScheduleTypeError(f"pragma '{key}' on '{iv.var.name}': the value is a number, an expression "
                                        f"or text, not {type(value).__name__}") from None
        old = self.iter_var_attrs.get(iv, IterVarAttr())
        self.iter_var_attrs[iv] = replace(old, pragma_keys=(*old.pragma_keys, PragmaKey(key)),
                                          pragma_values=(*old.pragma_values, value))

    @recorded
    def prefetch(self, tensor: Any, var: IterVar, offset: Any) -> None:
        """Hint that each iteration of the leaf *var* reads *tensor* where iteration ``var +
        offset`` will read it (a prefetch of those elements at the start of the iteration)."""
        self._leaf_position(var, "prefetch")
        if not isinstance(tensor, Tensor):
            raise ScheduleTypeError(f"prefetch: stage '{self.name}': expected the tensor to prefetch, not "
                                    f"{type(tensor).__name__}")
        if not any(t == tensor for t in self.op.input_tensors):
            raise self._error("prefetch", var, f"cannot prefetch '{tensor.name}', which the stage does not read")
        try:
            ahead = arith.as_index(offset, f"prefetch: stage '{self.name}': offset")
        except TypeError as err:
            raise ScheduleTypeError(str(err)) from None
        old = self.iter_var_attrs.get(var, IterVarAttr())
        self.iter_var_attrs[var] = replace(old, prefetch_data=(*old.prefetch_data, tensor),
                                           prefetch_offset=(*old.prefetch_offset, ahead))

    @recorded
    def storage_align(self, axis: IterVar, factor: int, offset: int) -> None:
        """Pad the buffer's stride in dimension *axis* (an axis of the stage's compute) to the
        smallest value that is *offset* modulo *factor*, as TVM's storage_align (a padded row
        of shared memory avoids bank conflicts)."""
        if not isinstance(axis, IterVar):
            raise ScheduleTypeError(f"storage_align: stage '{self.name}': expected an axis (B.op.axis[k]), "
                                    f"not {type(axis).__name__}")
        if not any(axis is iv for iv in getattr(self.op, "axis", ())):
            raise self._error("storage_align", axis, "is not an axis of the stage's compute; storage_align takes "
                                                     "one of op.axis, the dimensions of its buffer")
        for name, value in (("factor", factor), ("offset", offset)):
            if isinstance(value, bool) or not isinstance(value, int):
                raise ScheduleTypeError(f"storage_align: stage '{self.name}': {name} must be an integer, not "
                                        f"{value!r}")
        if factor <= 0:
            raise self._error("storage_align", axis, f"cannot be aligned to factor {factor}; the factor must be "
                                                     "positive")
        old = self.iter_var_attrs.get(axis, IterVarAttr())
        self.iter_var_attrs[axis] = replace(old, dim_align_factor=factor, dim_align_offset=offset % factor)

    @recorded
    def set_scope(self, scope: str) -> None:
        """Store this stage's buffer in *scope* ("global", "shared", "local" ...)."""
        try:
            check_scope("set_scope", scope, allow_empty=True)
        except ScheduleError as err:
            raise self._error("set_scope", None, str(err).removeprefix("set_scope: ")) from None
        self.scope = scope

    @recorded
    def transform_layout(self, mapping: Any) -> list[IterVar]:
        """Store this stage's tensor at the physical indices ``mapping(*logical)`` (TVM's te
        transform_layout); a compute's loops follow the physical axes, which are returned.

        :raises ScheduleError: for a mapping that is not one to one onto its range, or whose
            physical indices the loops cannot follow; the stage is then unchanged.
        """
        if self.layout is not None or self.layout_transform is not None:
            raise self._error("transform_layout", None, "already has a layout")
        return transform_layout(self, mapping)

    @recorded
    def set_layout(self, layout: Any) -> None:
        """Store this stage's buffer in a tiled layout: ``"{1,0:(2,2)}"`` or a ``lower.Layout``
        of this tensor's shape. Lowering then pads and addresses the buffer through it, and
        ``build`` takes and gives the physical (flat) data of this tensor."""
        if not isinstance(layout, str) and not (hasattr(layout, "minor_to_major") and hasattr(layout, "tiles")):
            raise ScheduleTypeError(f"set_layout: stage '{self.name}': a layout is a string such as "
                                    f"'{{1,0:(2,2)}}' or a lower.Layout, not {type(layout).__name__}")
        dims = [arith.value_of(e) for e in self.op.output(0).shape]
        if any(d is None for d in dims):
            raise self._error("set_layout", None, "a layout needs a concrete shape")
        try:
            if isinstance(layout, str):
                spec = parse_layout(layout, len(dims))
            else:
                if list(getattr(layout, "dims", dims)) != dims:
                    raise ValueError(f"layout: {layout} is for shape {list(layout.dims)}, not {dims}")
                spec = LayoutSpec(tuple(layout.minor_to_major), tuple(layout.tiles))
            check_layout(dims, spec)
        except ValueError as err:
            raise self._error("set_layout", None, str(err)) from None
        self.layout = spec

    # ------------------------------------------------------------------ copying

    def _copy(self, schedule: Schedule) -> Stage:
        """A copy with its own lists, sharing IterVars and relations (attach_stage not remapped)."""
        new = Stage.__new__(Stage)
        new.__dict__.update(self.__dict__)
        new.all_iter_vars = list(self.all_iter_vars)
        new.leaf_iter_vars = list(self.leaf_iter_vars)
        new.relations = list(self.relations)
        new.iter_var_attrs = dict(self.iter_var_attrs)
        new._schedule = schedule
        return new


def _name(iv: Any) -> str:
    return iv.name if isinstance(iv, IterVar) else repr(iv)


def check_same_group(where: str, stage: Any, parent: Stage) -> None:
    """A member of a group (*stage*: a stage or a group) is computed inside stages of the same
    group only (as TVM requires); groups are followed through their ``.group`` chains."""
    group = stage.group
    if group is None:
        return
    g = parent.group
    while g is not None and g is not group:
        g = g.group
    if g is not group:
        raise ScheduleError(f"{where}: stage '{parent.name}' is outside {group!r}, which holds "
                            f"'{stage.name}'; a member of a group is computed inside its group")
