"""What a tensorized loop nest covers, and whether an intrinsic computes it (TVM's
InferTensorizeRegion and the intrinsic matcher).

Loops outside the tensorized leaf are fixed at their variables; the leaf and the loops inside
it take their whole ranges. Carried up to the roots, that gives the box of the output the
intrinsic computes at each outer iteration and, through the body's reads, the box of every
input it reads. The stage's body, with its axes moved to the intrinsic's axes plus the box's
minimum and its inputs moved to the intrinsic's inputs, must then equal the intrinsic's body.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bound.arith.analyzer import Analyzer
from bound.arith.interval import FAITHFUL, IntervalSet, eval_set, union
from bound.errors import BoundError
from bound.inference.infer import clamp_request
from bound.inference.message_passing import pass_up_domain
from bound.operation.access import body_reads
from schedule import arith
from schedule.ir.expr import Call, Expr, ProducerLoad, Reduce, Select, Var
from schedule.ir.functor import ExprMutator, structural_equal, substitute
from schedule.ir.itervar import IterVar, IterVarType, Range
from schedule.operation.compute import ComputeOp
from schedule.operation.tensor import Tensor
from schedule.operation.tensor_intrin import TensorIntrin
from schedule.schedule.stage import Stage


@dataclass
class TensorizeRegion:
    """The tensorized leaf's *position*, its *intrin*, the range of every root IterVar per
    outer iteration (*out_dom*) and the box of every input read there (*in_region*)."""

    op: ComputeOp
    position: int
    intrin: TensorIntrin
    out_dom: dict[IterVar, Range]
    in_region: dict[Tensor, list[Range]]


def tensorized_leaf(stage: Stage) -> int | None:
    """The position of *stage*'s tensorized leaf, if it has one."""
    for k, iv in enumerate(stage.leaf_iter_vars):
        attr = stage.iter_var_attrs.get(iv)
        if attr is not None and attr.iter_type == IterVarType.Tensorized:
            return k
    return None


def tensorize_region(stage: Stage, bounds: Mapping[IterVar, Range]) -> TensorizeRegion:
    """The boxes the tensorized loops of *stage* cover (needs a normalized schedule's bounds).

    :raises BoundError: on a thread-bound loop inside the tensorized scope, a loop that is not
        a data or reduction loop, or an input box without bounds.
    """
    op = stage.op
    assert isinstance(op, ComputeOp)
    position = tensorized_leaf(stage)
    if position is None:
        raise BoundError(f"stage '{stage.name}' has no tensorized loop")
    analyzer = Analyzer()
    for iv in stage.leaf_iter_vars:
        analyzer.bind(iv.var, bounds[iv])
    up_state: dict[IterVar, IntervalSet] = {}
    for k, iv in enumerate(stage.leaf_iter_vars):
        if iv.iter_type not in (IterVarType.DataPar, IterVarType.CommReduce):
            raise BoundError(f"tensorize: stage '{stage.name}', loop '{iv.name}' is {iv.iter_type.name}; a "
                             "tensorized stage has data and reduction loops only")
        r = bounds[iv]
        attr = stage.iter_var_attrs.get(iv)
        if k >= position and attr is not None and attr.bind_thread is not None:
            raise BoundError(f"tensorize: stage '{stage.name}', loop '{iv.name}' is bound to "
                             f"'{attr.bind_thread.thread_tag}' inside the tensorized scope; bind only the "
                             "loops outside it")
        if arith.value_of(r.extent) == 1:
            up_state[iv] = IntervalSet.point(r.min)
        elif k < position:
            up_state[iv] = IntervalSet.point(iv.var)
        else:
            up_state[iv] = IntervalSet.from_range(r)
    pass_up_domain(stage, bounds, up_state, analyzer, FAITHFUL)
    out_dom: dict[IterVar, Range] = {}
    dom_map: dict[Var, IntervalSet] = {}
    for iv in op.root_iter_vars:
        s = up_state[iv]
        out_dom[iv] = s.cover_range(bounds[iv])
        analyzer.bind(iv.var, out_dom[iv])
        dom_map[iv.var] = s
    requests: dict[Tensor, list[list[IntervalSet]]] = {t: [[] for _ in t.shape] for t in op.input_tensors}
    for acc in body_reads(op.body, requests):
        for d, (index, extent) in enumerate(zip(acc.indices, acc.tensor.shape)):
            s = eval_set(index, dom_map, analyzer, FAITHFUL)
            requests[acc.tensor][d].append(clamp_request(s, extent, analyzer, FAITHFUL))
    in_region: dict[Tensor, list[Range]] = {}
    for t, dims in requests.items():
        boxes = []
        for d, sets in enumerate(dims):
            s = union(sets)
            if not (s.has_lower_bound() and s.has_upper_bound()):
                raise BoundError(f"tensorize: stage '{stage.name}': the region of input '{t.name}' in dimension "
                                 f"{d} has no bounds")
            boxes.append(Range.from_min_extent(analyzer.simplify(s.min_value),
                                               analyzer.simplify(arith.add(arith.sub(s.max_value, s.min_value), 1))))
        in_region[t] = boxes
    attr = stage.iter_var_attrs[stage.leaf_iter_vars[position]]
    return TensorizeRegion(op, position, attr.tensor_intrin, out_dom, in_region)


class _Matcher(ExprMutator):
    """The stage's body over the intrinsic's axes and inputs."""

    def __init__(self, var_remap: dict[Var, Expr], axis_remap: dict[IterVar, IterVar],
                 in_remap: dict[Tensor, tuple[Tensor, int, list[Range]]]) -> None:
        self.var_remap, self.axis_remap, self.in_remap = var_remap, axis_remap, in_remap

    def visit_var(self, e: Var) -> Expr:
        return self.var_remap.get(e, e)

    def visit_producer_load(self, e: ProducerLoad) -> Expr:
        indices = tuple(self(i) for i in e.indices)
        entry = self.in_remap.get(e.producer)
        if entry is None:
            return ProducerLoad(e.producer, indices)
        tensor, start, region = entry
        return ProducerLoad(tensor, tuple(arith.sub(indices[k], region[k].min) for k in range(start, len(indices))))

    def visit_reduce(self, e: Reduce) -> Expr:
        source = tuple(self(s) for s in e.source)
        init = tuple(self(s) for s in e.init)
        axis = tuple(self.axis_remap[iv] for iv in e.axis if iv in self.axis_remap)
        return Reduce(e.combiner, source, axis, self(e.condition), e.value_index, init)


def match_body(stage: Stage, bounds: Mapping[IterVar, Range], region: TensorizeRegion
               ) -> tuple[list[Expr], dict[Var, Range]]:
    """*stage*'s body over the intrinsic's axes and inputs, and the ranges of the variables it
    then uses (the stage's leaves and the intrinsic's axes).

    :raises BoundError: where the numbers of inputs, axes or reduction axes do not fit the
        intrinsic, or a dimension the intrinsic lacks is not of extent 1.
    """
    op, intrin = stage.op, region.intrin
    assert isinstance(op, ComputeOp)
    name = f"tensorize: stage '{stage.name}' with intrinsic '{intrin.name}'"
    space: dict[Var, Range] = {iv.var: bounds[iv] for iv in stage.leaf_iter_vars if iv in bounds}
    analyzer = Analyzer()
    for v, r in space.items():
        analyzer.bind(v, r)
    inputs = op.input_tensors
    if len(inputs) != len(intrin.inputs):
        raise BoundError(f"{name}: the stage reads {len(inputs)} tensors ({_names(inputs)}), the intrinsic "
                         f"{len(intrin.inputs)} ({_names(intrin.inputs)})")
    in_remap = {}
    for t, it in zip(inputs, intrin.inputs):
        box = region.in_region[t]
        if len(box) < it.ndim:
            raise BoundError(f"{name}: input '{t.name}' has {len(box)} dimensions, the intrinsic's '{it.name}' "
                             f"{it.ndim}")
        start = len(box) - it.ndim
        for r in box[:start]:
            if arith.value_of(analyzer.simplify(r.extent)) != 1:
                raise BoundError(f"{name}: input '{t.name}' is read over {_box(box)}, which does not fit the "
                                 f"intrinsic's input '{it.name}' of shape {_shape(it.shape)}")
        in_remap[t] = (it, start, box)
    iop = intrin.op
    var_remap: dict[Var, Expr] = {}
    axis_remap: dict[IterVar, IterVar] = {}
    for kind, mine, theirs in (("axes", op.axis, iop.axis), ("reduction axes", op.reduce_axis, iop.reduce_axis)):
        if len(mine) < len(theirs):
            raise BoundError(f"{name}: the stage has {len(mine)} {kind}, the intrinsic {len(theirs)}")
        start = len(mine) - len(theirs)
        for iv in mine[:start]:
            r = region.out_dom[iv]
            if arith.value_of(analyzer.simplify(r.extent)) != 1:
                raise BoundError(f"{name}: '{iv.name}' covers {r.extent} values inside the tensorized loops, "
                                 f"but the intrinsic has no such axis")
            var_remap[iv.var] = r.min
        for iv, target in zip(mine[start:], theirs):
            r = region.out_dom[iv]
            var_remap[iv.var] = arith.add(target.var, r.min)
            axis_remap[iv] = target
            space[target.var] = target.dom  # type: ignore[assignment]
    matcher = _Matcher(var_remap, axis_remap, in_remap)
    return [matcher(b) for b in op.body], space


def verify_body(stage: Stage, bounds: Mapping[IterVar, Range], region: TensorizeRegion,
                value_map: Mapping[Var, Expr]) -> None:
    """Check that the intrinsic computes what the tensorized loops compute, and that its
    buffers and reduction axes have the shapes of the regions they stand for.

    :raises BoundError: naming what differs.
    """
    op, intrin = stage.op, region.intrin
    assert isinstance(op, ComputeOp)
    name = f"tensorize: stage '{stage.name}' with intrinsic '{intrin.name}'"
    body, space = match_body(stage, bounds, region)
    if len(body) != len(intrin.op.body):
        raise BoundError(f"{name}: the stage has {len(body)} outputs, the intrinsic {len(intrin.op.body)}")
    analyzer = Analyzer()
    for v, r in space.items():
        analyzer.bind(v, r)
    for mine, theirs in zip(body, intrin.op.body):
        lhs = analyzer.simplify(_SELECTS(substitute(mine, value_map)))
        rhs = analyzer.simplify(_SELECTS(substitute(theirs, value_map)))
        if lhs.dtype != rhs.dtype:
            raise BoundError(f"{name}: the stage computes {lhs.dtype}, the intrinsic {rhs.dtype}")
        if not structural_equal(lhs, rhs):
            raise BoundError(f"{name}: the intrinsic computes a different value; the stage computes {lhs}, "
                             f"the intrinsic {rhs}")
    iop = intrin.op
    start = len(op.reduce_axis) - len(iop.reduce_axis)
    for iv, target in zip(op.reduce_axis[start:], iop.reduce_axis):
        assert target.dom is not None
        if not _equal(analyzer, target.dom.min, arith.const(0)) or \
                not _equal(analyzer, target.dom.extent, region.out_dom[iv].extent):
            raise BoundError(f"{name}: reduction axis '{iv.name}' covers {region.out_dom[iv].extent} values "
                             f"inside the tensorized loops, the intrinsic's '{target.name}' "
                             f"[{target.dom.min}, {target.dom.min} + {target.dom.extent})")


class _Selects(ExprMutator):
    """``if_then_else`` as ``select``: the two compute the same value (a guarded cache
    computes with one, an intrinsic written for TVM with the other)."""

    def visit_call(self, e: Call) -> Expr:
        if e.name != "tvm_if_then_else":
            return self.visit_default(e)
        c, t, f = (self(a) for a in e.args)
        return Select(c, t, f)


_SELECTS = _Selects()


def as_selects(e: Expr) -> Expr:
    """*e* with each ``if_then_else`` written as a ``select`` (TVM's form of a guarded body)."""
    return _SELECTS(e)


def _equal(analyzer: Analyzer, a: Expr, b: Expr) -> bool:
    return arith.value_of(analyzer.simplify(arith.sub(a, b))) == 0


def _names(tensors: object) -> str:
    return ", ".join(t.name for t in tensors)  # type: ignore[attr-defined]


def _shape(shape: tuple[Expr, ...]) -> str:
    return "(" + ", ".join(str(e) for e in shape) + ")"


def _box(box: list[Range]) -> str:
    return " x ".join(f"[{r.min}, +{r.extent})" for r in box)
