"""Lowering of computes: loops over the stage's leaves around its provides, an init and an
update nest for reductions, and the exact set of a region that is not a box."""

from __future__ import annotations

from collections.abc import Mapping

from bound.errors import NonAffineError
from bound.inference.exact import plain_axes, visits_exact_set
from bound.inference.tensorize import tensorized_leaf
from bound.isl import AstBlock, AstFor, AstIf, AstNode, AstPoint, scan_loops
from lower.errors import LoweringError
from lower.ir.stmt import (
    NO_OP,
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
    Provide,
    Stmt,
    Store,
    seq,
)
from lower.ir.substitute import substitute_stmt
from lower.operation.base import OperationLowering, PipelineBuilder, Steps, guard, init_nest
from lower.operation.loop_nest import LoopNest, make_loop_nest, reduction_flags
from lower.operation.tensorize import tensorized
from schedule import arith
from schedule.ir.expr import Call, Expr, ProducerLoad, Reduce, StringImm, Var
from schedule.ir.functor import free_vars, substitute
from schedule.ir.itervar import IterVar, IterVarType, Range
from schedule.operation.compute import ComputeOp
from schedule.schedule.relations import Fuse, Rebase, Split
from schedule.schedule.stage import Stage


class ComputeLowering(OperationLowering):
    def produce(self, b: PipelineBuilder, st: Stage) -> Steps:
        op = st.op
        assert isinstance(op, ComputeOp)
        leaves = st.leaf_iter_vars
        if any(arith.value_of(b.bounds[iv].extent) == 0 for iv in op.axis):
            return NO_OP  # nothing of this stage is read: it computes nothing
            yield  # a generator all the same
        if tensorized_leaf(st) is not None:
            return (yield from tensorized(b, st))
        if self._scannable(b, st):
            try:
                return self._scanned(b, st)
            except NonAffineError:
                pass  # a loop isl writes in a form we do not translate: compute the box
        nest = make_loop_nest(st, b.bounds, leaves, b.keep_trivial)
        preds = b.checks(st, nest, nest.values, set(), False)
        threads, free = _reduce_threads(st)
        if threads and free:
            return (yield from self._cross_thread_after_loops(b, st, nest, preds, threads, free))
        if threads:
            return (yield b.wrap(nest, self.cross_thread(st, nest.values, preds, threads), 0, len(leaves), True))
        # The store predicate guards the stores, not the init (TVM's main predicates).
        stores = [*preds, *_store_predicate(st, nest.values)]
        if not isinstance(op.body[0], Reduce):
            provides = [self.provide(op, k, op.body[k], nest.values) for k in range(op.num_outputs)]
            return (yield b.wrap(nest, guard(stores, seq(*provides)), 0, len(leaves), True))
        flags = reduction_flags(st)
        begin = next((k for k, iv in enumerate(leaves) if flags.get(iv, 0) & 2), len(leaves))
        update = guard(stores, self.update(op, nest.values))
        update = yield b.wrap(nest, update, begin, len(leaves), True)
        if b.keep_trivial:  # TVM drops the init in this debugging mode
            return (yield b.wrap(nest, update, 0, begin, True))
        loops, values, init_preds = init_nest(b, st, nest, begin, len(leaves))
        init = seq(*(self.provide(op, k, _identity(op, k), values) for k in range(op.num_outputs)))
        init = yield b.wrap(loops, guard(init_preds, init), 0, len(loops.leaves), False)
        return (yield b.wrap(nest, seq(init, update), 0, begin, True))

    def _scannable(self, b: PipelineBuilder, st: Stage) -> bool:
        """Whether *st* may visit its exact set: its loops are its axes, plain, and host nothing."""
        return st in b.regions and not b.keep_trivial and visits_exact_set(st, b.s.stages, b.bounds)

    def _scanned(self, b: PipelineBuilder, st: Stage) -> Stmt:
        """*st*'s provides at exactly the points of its region (see :func:`build_pipeline`)."""
        op = st.op
        assert isinstance(op, ComputeOp)
        exact = b.regions[st]
        axes = [iv.var for iv in op.axis]
        if plain_axes(st):
            tree = scan_loops(exact.region, exact.guards, axes)
        else:  # the stage's own loops, as functions of its axes
            values = _leaf_values(st, b.bounds)
            leaves = st.leaf_iter_vars
            tree = scan_loops(exact.region, exact.guards, [iv.var for iv in leaves],
                              (axes, [values[iv] for iv in leaves]))

        def stmt(node: AstNode) -> Stmt:
            match node:
                case AstBlock(items=items):
                    return seq(*(stmt(x) for x in items))
                case AstIf(condition=c, then=t, otherwise=o):
                    return IfThenElse(exact.restore(c), stmt(t), stmt(o) if o is not None else None)
                case AstFor(var=v, lo=lo, extent=extent, stride=1, body=body):
                    return For(v, exact.restore(lo), exact.restore(extent), ForKind.SERIAL, stmt(body))
                case AstFor(var=v, lo=lo, extent=extent, stride=k, body=body):
                    step = Var(v.name + ".s", v.dtype)
                    inner = substitute_stmt(stmt(body), {v: arith.add(exact.restore(lo), arith.mul(step, k))})
                    return For(step, arith.const(0, v.dtype), exact.restore(extent), ForKind.SERIAL, inner)
                case AstPoint(coordinates=coords):
                    values = {iv: exact.restore(c) for iv, c in zip(op.axis, coords)}
                    return seq(*(self.provide(op, k, op.body[k], values) for k in range(op.num_outputs)))
            raise LoweringError(f"stage '{st.name}': unexpected loop structure from isl")
        return stmt(tree)

    def _cross_thread_after_loops(self, b: PipelineBuilder, st: Stage, nest: LoopNest, preds: list[Expr],
                                  threads: list[IterVar], free: list[IterVar]) -> Steps:
        """A reduction over thread-bound and ordinary loops: each thread first reduces its share
        over the ordinary loops into a local temporary, under the loops' checks, then the threads
        combine their temporaries (TVM's cross-thread reduction with a normal reduction)."""
        op = st.op
        assert isinstance(op, ComputeOp)
        red = op.body[0]
        assert isinstance(red, Reduce)
        vmap = {iv.var: nest.values[iv] for iv in op.root_iter_vars if iv in nest.values}
        temps = [Buffer(f"normal_reduce_temp{k}", x.dtype, (arith.const(1),), "local")
                 for k, x in enumerate(red.source)]
        zero = arith.const(0)
        init = seq(*(Store(t, e, zero, ()) for t, e in zip(temps, red.combiner.identity_element)))
        results = red.combiner.combine([Load(t, zero) for t in temps], [substitute(x, vmap) for x in red.source])
        if len(results) == 1:
            update: Stmt = Store(temps[0], substitute(results[0], vmap), zero, ())
        else:  # every new value from the old ones before any is written
            names = [Var(f"{op.name}.n{k}", r.dtype) for k, r in enumerate(results)]
            update = seq(*(Store(t, v, zero, ()) for t, v in zip(temps, names)))
            for v, r in reversed(list(zip(names, results))):
                update = LetStmt(v, substitute(r, vmap), update)
        conds = [*preds, substitute(red.condition, vmap)]
        update = guard([c for c in conds if arith.value_of(c) != 1], update)
        loops = [k for k, iv in enumerate(st.leaf_iter_vars) if iv in set(free)]
        for k in reversed(loops):
            update = yield b.wrap(nest, update, k, k + 1, True)
        sources = [Load(t, zero) for t in temps]
        inner = {nest.loops[k][0] for k in loops if nest.loops[k] is not None} | {iv.var for iv in free}
        outer = [p for p in preds if not set(free_vars([p])) & inner]
        body = seq(init, update, self._allreduce(st, vmap, sources, arith.const(True),
                                                 [*_store_predicate(st, nest.values), *outer], threads))
        for t in reversed(temps):
            body = AttrStmt(t, "storage_scope", StringImm("local"), Allocate(t, body))
        for k in reversed([k for k in range(len(st.leaf_iter_vars)) if k not in loops]):
            body = yield b.wrap(nest, body, k, k + 1, True)
        return body

    def cross_thread(self, st: Stage, values: Mapping[IterVar, Expr], preds: list[Expr],
                     threads: list[IterVar]) -> Stmt:
        """A reduction whose loops are all bound to threads: every thread gives its term to
        ``tvm_thread_allreduce``, which leaves the combination in a local temporary of each;
        the stage's store predicate says which threads write it (TVM's cross-thread reduction)."""
        op = st.op
        assert isinstance(op, ComputeOp)
        red = op.body[0]
        assert isinstance(red, Reduce)
        vmap = {iv.var: values[iv] for iv in op.root_iter_vars if iv in values}
        sources = [substitute(x, vmap) for x in red.source]
        cond = arith.all(*preds, substitute(red.condition, vmap)) if preds else substitute(red.condition, vmap)
        return self._allreduce(st, vmap, sources, cond, [*_store_predicate(st, values), *preds], threads)

    def _allreduce(self, st: Stage, vmap: Mapping[Var, Expr], sources: list[Expr], cond: Expr,
                   stores: list[Expr], threads: list[IterVar]) -> Stmt:
        """``tvm_thread_allreduce`` of *sources* into local temporaries, and the store of the
        result where *stores* (the store predicate and the loops' checks) hold."""
        op = st.op
        assert isinstance(op, ComputeOp)
        red = op.body[0]
        assert isinstance(red, Reduce)
        temps = [Buffer(f"reduce_temp{k}", x.dtype, (arith.const(1),), "local") for k, x in enumerate(sources)]
        views = [BufferView(t, t.name, (arith.const(1),), (arith.const(1),), arith.const(0)) for t in temps]
        call = Call("handle", "tvm_thread_allreduce",
                    (arith.const(len(sources), "uint32"), *sources, cond, *views, *(t.var for t in threads)))
        reduce = AttrStmt(red.combiner, "reduce_scope", arith.const(0), Evaluate(call))
        axes = tuple(vmap[iv.var] for iv in op.axis)
        assign: Stmt = seq(*(Provide(op, k, Load(t, arith.const(0)), axes) for k, t in enumerate(temps)))
        # Only where the stage's loops are in range: TVM leaves this store unguarded.
        if stores:
            assign = IfThenElse(arith.all(*stores) if len(stores) > 1 else stores[0], assign)
        body: Stmt = seq(reduce, assign)
        for t in reversed(temps):
            body = AttrStmt(t, "storage_scope", StringImm("local"), Allocate(t, body))
        return body

    def provide(self, op: ComputeOp, k: int, value: Expr, values: Mapping[IterVar, Expr]) -> Provide:
        vmap = {iv.var: values[iv] for iv in op.root_iter_vars if iv in values}
        return Provide(op, k, substitute(value, vmap), tuple(vmap[iv.var] for iv in op.axis))

    def update(self, op: ComputeOp, values: Mapping[IterVar, Expr]) -> Stmt:
        red = op.body[0]
        assert isinstance(red, Reduce)
        vmap = {iv.var: values[iv] for iv in op.root_iter_vars}
        axes = tuple(vmap[iv.var] for iv in op.axis)
        lhs = [ProducerLoad(op.output(k), axes) for k in range(op.num_outputs)]
        rhs = [substitute(x, vmap) for x in red.source]
        # The combiner may use the stage's own axes (a loop-dependent reducer).
        results = tuple(substitute(r, vmap) for r in red.combiner.combine(lhs, rhs))
        if len(results) == 1:
            body: Stmt = Provide(op, 0, results[0], axes)
        else:
            # Every output's new value is computed from the old ones before any is written.
            temps = [Var(f"{op.name}.v{k}", r.dtype) for k, r in enumerate(results)]
            body = seq(*(Provide(op, k, t, axes) for k, t in enumerate(temps)))
            for t, r in reversed(list(zip(temps, results))):
                body = LetStmt(t, r, body)
        cond = substitute(red.condition, vmap)
        if arith.value_of(cond) != 1:
            body = IfThenElse(cond, body)
        return body


def _identity(op: ComputeOp, k: int) -> Expr:
    red = op.body[0]
    assert isinstance(red, Reduce)
    if red.init:
        return red.init[k]
    return red.combiner.identity_element[k]


def _reduce_threads(st: Stage) -> tuple[list[IterVar], list[IterVar]]:
    """The threads *st*'s reduction loops are bound to, and its reduction leaves bound to none."""
    bound, free = [], []
    for iv in st.leaf_iter_vars:
        if iv.iter_type != IterVarType.CommReduce:
            continue
        attr = st.iter_var_attrs.get(iv)
        thread = attr.bind_thread if attr is not None else None
        (bound if thread is not None else free).append(thread if thread is not None else iv)
    return bound, free


def _leaf_values(st: Stage, bounds: Mapping[IterVar, Range]) -> dict[IterVar, Expr]:
    """Each IterVar of *st* as a function of its axes' values: the inverse of the loops'
    ``pass_up_index`` (a split parent is ``inner + outer * factor + min``)."""
    values: dict[IterVar, Expr] = {iv: iv.var for iv in st.op.axis}
    for rel in st.relations:
        match rel:
            case Split(parent=p, outer=o, inner=i):
                offset = arith.sub(values[p], bounds[p].min)
                values[o] = arith.floordiv(offset, bounds[i].extent)
                values[i] = arith.floormod(offset, bounds[i].extent)
            case Fuse(outer=o, inner=i, fused=f):
                values[f] = arith.add(arith.mul(arith.sub(values[o], bounds[o].min), bounds[i].extent),
                                      arith.sub(values[i], bounds[i].min))
            case Rebase(parent=p, rebased=r):
                values[r] = arith.sub(values[p], bounds[p].min)
    return values


def _store_predicate(st: Stage, values: Mapping[IterVar, Expr]) -> list[Expr]:
    """The stage's store predicate at the loop nest's values (its IterVars, leaves as roots,
    stand for their values there), or nothing."""
    if st.store_predicate is None:
        return []
    return [substitute(st.store_predicate, {iv.var: v for iv, v in values.items()})]
