"""One stage's loop nest (TVM's MakeLoopNest and MakeBoundCheck).

A nest is a list of levels, one per leaf IterVar, outermost first; each level holds the
statements that open it (a ``for`` or a thread attribute), and the value of every IterVar in
terms of the loop variables. Loops of extent 1 disappear (their value is the range minimum)
unless *keep_trivial*.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from bound import Analyzer, IntervalSet, eval_set, simplify
from bound.arith.const_bound import ConstBounds
from bound.arith.linear import Linear
from bound.arith.simplify import needed_ranges, var_bounds_of
from bound.inference.thread_scope import storage_rank, thread_rank
from lower.errors import LoweringError
from lower.ir.stmt import AttrStmt, For, ForKind, IfThenElse, Stmt
from schedule import arith
from schedule.base.pass_context import options
from schedule.ir.expr import LT, Call, Expr, StringImm, Var
from schedule.ir.functor import free_vars, structural_equal, substitute
from schedule.ir.itervar import IterVar, IterVarType, Range
from schedule.schedule.graph import attach_path
from schedule.schedule.relation_passing import pass_up_index
from schedule.schedule.relations import Fuse, Rebase, Split
from schedule.schedule.stage import Stage

Wrap = Callable[[Stmt], Stmt]

_KINDS = {IterVarType.Parallelized: ForKind.PARALLEL, IterVarType.Vectorized: ForKind.VECTORIZED,
          IterVarType.Unrolled: ForKind.UNROLLED}


@dataclass
class LoopNest:
    """Per leaf (outermost first) the wrappers that open its level, and every IterVar's value.

    *loops* gives, per level, its ``for`` as ``(var, extent, kind)`` (None for a vanished loop
    or a thread), so a level's extent can be tightened.
    """

    leaves: list[IterVar]
    levels: list[list[Wrap]]
    values: dict[IterVar, Expr]
    loops: list[tuple[Var, Expr, ForKind] | None]

    def tighten(self, preds: list[Expr], outer: set[Var]) -> list[Expr]:
        """Turn each ``v + rest < e`` on a loop variable *v* (rest from loops outside it or
        *outer*) into the loop extent ``min(extent, e - rest)``; the other predicates remain."""
        position = {loop[0]: k for k, loop in enumerate(self.loops) if loop is not None}
        kept = []
        for p in preds:
            k = _tail_level(p, position, outer)
            if k is None:
                kept.append(p)
                continue
            var, extent, kind = self.loops[k]  # type: ignore[misc]
            lin = Linear.of(simplify(arith.sub(p.a, var)))  # type: ignore[attr-defined]
            new = arith.min_expr(extent, arith.sub(p.b, lin.to_expr()))  # type: ignore[attr-defined]
            self.loops[k] = (var, new, kind)
            level = self.levels[k]
            at = next(j for j, w in enumerate(level) if isinstance(w, _ForWrap))
            level[at] = _for(var, arith.const(0, new.dtype), new, kind)
        return kept


def make_loop_nest(stage: Stage, bounds: Mapping[IterVar, Range], leaves: Sequence[IterVar],
                   keep_trivial: bool, rename: str = "") -> LoopNest:
    """Loops over *leaves* of *stage*; with *rename*, loop variables are fresh ``<name><rename>``.

    A loop's bounds may mention the stage's own root variables (a reduction whose extent
    depends on a data axis); they are written in terms of the loops, as TVM substitutes them.
    """
    specs: list[tuple[IterVar, Range, Var | None, ForKind]] = []
    values: dict[IterVar, Expr] = {}
    for iv in leaves:
        r = bounds[iv]
        attr = stage.iter_var_attrs.get(iv)
        thread = attr.bind_thread if attr is not None else None
        var = None
        kind = _KINDS.get(attr.iter_type if attr is not None else iv.iter_type, ForKind.SERIAL)
        if kind is ForKind.VECTORIZED and options("tir.disable_vectorize"):
            kind = ForKind.SERIAL
        if thread is not None:
            if arith.value_of(r.min) != 0:
                raise LoweringError(f"stage '{stage.name}': thread-bound loop '{iv.name}' starts at "
                                    f"{r.min}, not 0")
            values[iv] = _thread_value(stage, iv, thread, r, keep_trivial)
        elif arith.value_of(r.extent) == 1 and not keep_trivial:
            values[iv] = r.min
        else:
            var = Var(iv.var.name + rename, iv.var.dtype) if rename else iv.var
            values[iv] = var if arith.value_of(r.min) == 0 else arith.add(r.min, var)
        specs.append((iv, r, var, kind))
    pass_up_index(stage, bounds, values, allow_missing=True)
    roots = {root.var: values[root] for root in stage.op.root_iter_vars
             if root in values and values[root] is not root.var}
    levels: list[list[Wrap]] = []
    loops: list[tuple[Var, Expr, ForKind] | None] = []
    inner_vars = {spec[2] for spec in specs if spec[2] is not None}
    for iv, r, var, kind in specs:
        lo, extent = (substitute(r.min, roots), substitute(r.extent, roots)) if roots else (r.min, r.extent)
        if var is not None:
            inner_vars.discard(var)
        late = [v.name for v in free_vars([lo, extent]) if v in inner_vars]
        if late:
            raise LoweringError(f"stage '{stage.name}': the extent of loop '{iv.name}' depends on "
                                f"{', '.join(late)}, a loop inside it; reorder so that '{iv.name}' is "
                                "inside the loops its extent depends on")
        attr = stage.iter_var_attrs.get(iv)
        thread = attr.bind_thread if attr is not None else None
        if thread is not None:
            key = "virtual_thread" if is_virtual(thread) else "thread_extent"
            launch = bounds.get(thread)
            if launch is None or structural_equal(launch.extent, extent):
                levels.append([_attr(thread, key, extent)])
            else:  # an extent varying with outer loops: launch its bound, run the threads below it
                guard = Call("bool", "likely", (arith.lt(thread.var, extent),))
                levels.append([_attr(thread, key, launch.extent), lambda body, g=guard: IfThenElse(g, body)])
            loops.append(None)
        elif var is None:
            levels.append([])
            loops.append(None)
        else:
            levels.append([_for(var, arith.const(0, extent.dtype), extent, kind)])
            loops.append((var, extent, kind))
        if attr is not None and attr.pragma_keys:  # TVM's pragma_<key> attributes around the level
            pragmas = [_attr(iv, "pragma_" + key, arith.const(1) if value is None else arith.convert(value))
                       for key, value in zip(attr.pragma_keys, attr.pragma_values)]
            levels[-1][:0] = pragmas
        if attr is not None:  # a hint at the start of each iteration (TVM's prefetch_scope)
            for tensor, offset in zip(attr.prefetch_data, attr.prefetch_offset):
                levels[-1].append(_attr(tensor, "prefetch_scope", offset))
            if lo is not r.min:
                values[iv] = arith.add(lo, var)
    if roots:
        values = {iv: substitute(v, roots) if iv not in stage.op.root_iter_vars else v
                  for iv, v in values.items()}
    return LoopNest(list(leaves), levels, values, loops)


def _thread_value(stage: Stage, iv: IterVar, thread: IterVar, r: Range, keep_trivial: bool) -> Expr:
    """The value of a thread-bound leaf in *stage* (TVM's MakeLoopNest).

    A stage stored below the thread's level (local memory under threadIdx, shared under
    blockIdx) is private to each thread, so it computes its region from the domain minimum
    rather than at the thread's index.
    """
    if arith.value_of(r.extent) == 1 and not keep_trivial:
        return r.min
    if not stage.scope:
        return thread.var
    rank, dim = thread_rank(thread.thread_tag)
    storage = storage_rank(stage.scope)
    if storage <= rank or (stage.scope == "warp" and rank == 1 and dim == 0):
        return thread.var
    return r.min


def _tail_level(p: Expr, position: dict[Var, int], outer: set[Var]) -> int | None:
    """The level of the innermost loop variable of ``p`` if ``p`` is ``var + rest < e`` with
    *rest* and *e* free of it and of every loop inside it."""
    if not isinstance(p, LT):
        return None
    lin = Linear.of(simplify(p.a))
    levels = []
    for atom, k in lin.terms.items():
        used = free_vars([atom])
        if any(v not in position and v not in outer for v in used):
            return None
        levels += [(position[v], atom, k) for v in used if v in position]
    if not levels:
        return None
    k, atom, coeff = max(levels, key=lambda t: t[0])
    inner = [v for v, lv in position.items() if lv >= k]
    if coeff != 1 or not isinstance(atom, Var) or sum(1 for lv, _, _ in levels if lv == k) != 1:
        return None
    if any(v in free_vars([p.b]) for v in inner):
        return None
    return k


class _ForWrap:
    """The wrapper that opens a level's ``for`` (found by :meth:`LoopNest.tighten`)."""

    def __init__(self, var: Var, lo: Expr, extent: Expr, kind: ForKind) -> None:
        self.var, self.lo, self.extent, self.kind = var, lo, extent, kind

    def __call__(self, body: Stmt) -> Stmt:
        return For(self.var, self.lo, self.extent, self.kind, body)


def _for(var: Var, lo: Expr, extent: Expr, kind: ForKind) -> Wrap:
    return _ForWrap(var, lo, extent, kind)


def _attr(node: object, key: str, value: Expr) -> Wrap:
    return lambda body: AttrStmt(node, key, value, body)


def is_virtual(thread: IterVar) -> bool:
    """Whether *thread* is a virtual thread (lowered by interleaving, not launched)."""
    return thread.thread_tag.startswith("vthread")


def has_virtual_threads(stages: Sequence[Stage]) -> bool:
    """Whether a loop of *stages* is bound to a virtual thread."""
    return any(attr.bind_thread is not None and is_virtual(attr.bind_thread)
               for st in stages for attr in st.iter_var_attrs.values())


def scope_attr(node: object, key: str, value: str) -> Wrap:
    """An attribute with a string value around the body."""
    return _attr(node, key, StringImm(value))


def bound_checks(stage: Stage, bounds: Mapping[IterVar, Range], values: Mapping[IterVar, Expr],
                 skip: set[IterVar], skip_root_domain: bool, path: Sequence[IterVar] | None = None,
                 threads: Sequence[IterVar] | None = None) -> list[Expr]:
    """The conditions an iteration must meet (TVM's MakeBoundCheck, provable equality for roots).

    An IterVar above a split whose parts overshoot it must stay in its range; a root whose
    inferred range may leave its domain must stay in the domain. Conditions that interval
    arithmetic over the loop ranges proves are left out. *path* is the stage's attach path and
    *threads* the schedule's thread IterVars, if known.
    """
    flagged = _overshooting(stage, bounds)
    ranges: list[dict[Var, IntervalSet]] = []  # the loops' ranges, gathered when first needed

    def loop_sets() -> dict[Var, IntervalSet]:
        if not ranges:
            ranges.append(_loop_ranges(stage, bounds, attach_path(stage) if path is None else path,
                                       thread_axes(bounds) if threads is None else threads))
        return ranges[0]

    def loops(*exprs: Expr) -> tuple[dict[Var, IntervalSet], Analyzer]:
        return _context(loop_sets(), exprs)

    def quick(v: Expr, extent: Expr, lower: bool) -> bool:
        """Whether constant bounds of the loops prove ``v < extent`` (and ``v >= 0`` if *lower*)."""
        n = arith.value_of(extent)
        if n is None:
            return False
        lo, hi = Linear.of(v).bound(ConstBounds(var_bounds_of(needed_ranges([v], loop_sets()))[0]))
        return hi is not None and hi < n and (not lower or (lo is not None and lo >= 0))

    preds: list[Expr] = []
    for iv in stage.all_iter_vars:
        if iv in skip or iv not in flagged or iv.iter_type == IterVarType.Opaque or iv not in values:
            continue
        r = bounds[iv]
        v = arith.sub(values[iv], r.min)
        if not quick(v, r.extent, False) and not _provably_below(v, r.extent, *loops(v, r.extent)):
            preds.append(arith.lt(v, r.extent))
    if skip_root_domain:
        return preds
    for iv in stage.op.root_iter_vars:
        if iv in skip or iv.dom is None or iv not in values:
            continue
        r = bounds[iv]
        if structural_equal(r.min, iv.dom.min) and structural_equal(r.extent, iv.dom.extent):
            continue
        v = arith.sub(values[iv], iv.dom.min)
        if quick(v, iv.dom.extent, True):
            continue
        dom, analyzer = loops(r.min, r.extent, iv.dom.min, iv.dom.extent, v)
        same = (analyzer.can_prove(arith.equal(r.min, iv.dom.min))
                and analyzer.can_prove(arith.equal(r.extent, iv.dom.extent)))
        if same:
            continue
        s = eval_set(v, dom, analyzer)
        if not (s.has_lower_bound() and analyzer.can_prove(arith.ge(s.min_value, 0))):
            preds.append(arith.ge(v, 0))
        if not _provably_below(v, iv.dom.extent, dom, analyzer):
            preds.append(arith.lt(v, iv.dom.extent))
    return preds


def _loop_ranges(stage: Stage, bounds: Mapping[IterVar, Range], path: Sequence[IterVar],
                 threads: Sequence[IterVar]) -> dict[Var, IntervalSet]:
    """The ranges of the loops around *stage* (its attach path, its leaves) and of every
    thread index, which is defined throughout its kernel."""
    enclosing = [*path, *stage.leaf_iter_vars]
    dom = {iv.var: IntervalSet.from_range(bounds[iv]) for iv in enclosing if iv in bounds}
    for iv in [*path, *stage.leaf_iter_vars]:
        thread = stage.bound_thread(iv) if iv in stage.iter_var_attrs else None
        if thread is not None and thread in bounds:
            dom[thread.var] = IntervalSet.from_range(bounds[thread])
    for thread in threads:
        dom.setdefault(thread.var, IntervalSet.from_range(bounds[thread]))
    return dom


def thread_axes(bounds: Mapping[IterVar, Range]) -> list[IterVar]:
    """The thread IterVars that have a range in *bounds*."""
    return [iv for iv in bounds if iv.iter_type == IterVarType.ThreadIndex]


def _context(dom: dict[Var, IntervalSet], exprs: tuple[Expr, ...]) -> tuple[dict[Var, IntervalSet], Analyzer]:
    """The ranges *exprs* depend on and an analyzer knowing them (outer ranges first)."""
    needed = needed_ranges(exprs, dom)
    analyzer = Analyzer()
    for v, s in needed.items():
        analyzer.bind(v, Range.from_min_extent(s.min_value, arith.add(arith.sub(s.max_value, s.min_value), 1)))
    return needed, analyzer


def _provably_below(v: Expr, extent: Expr, dom: Mapping[Var, IntervalSet], analyzer: Analyzer) -> bool:
    s = eval_set(v, dom, analyzer)
    return s.has_upper_bound() and analyzer.can_prove(arith.lt(s.max_value, extent))


def _overshooting(stage: Stage, bounds: Mapping[IterVar, Range]) -> set[IterVar]:
    """IterVars whose children's loops may run past them (TVM's PassUpBoundCheck)."""
    flagged: set[IterVar] = set()
    analyzer = Analyzer()
    for rel in reversed(stage.relations):
        match rel:
            case Split(parent=p, outer=o, inner=i):
                if o in flagged or i in flagged:
                    flagged.add(p)
                elif p in bounds and o in bounds and i in bounds:
                    whole = arith.mul(bounds[o].extent, bounds[i].extent)
                    if not analyzer.can_prove(arith.equal(bounds[p].extent, whole)):
                        flagged.add(p)
            case Fuse(outer=o, inner=i, fused=f):
                if f in flagged:
                    flagged.update((o, i))
            case Rebase(parent=p, rebased=r):
                if r in flagged:
                    flagged.add(p)
    return flagged


def values_above(stage: Stage, bounds: Mapping[IterVar, Range], values: dict[IterVar, Expr],
                 skipped: set[IterVar]) -> dict[IterVar, Expr]:
    """*values* re-derived above the leaves, with *skipped* (reduction) leaves at their minimum
    (the values a reduction's init uses)."""
    leaf_values = {iv: (bounds[iv].min if iv in skipped else values[iv]) for iv in stage.leaf_iter_vars}
    pass_up_index(stage, bounds, leaf_values, allow_missing=True)
    return leaf_values


def reduction_flags(stage: Stage) -> dict[IterVar, int]:
    """1 for IterVars derived from data axes, 2 from reduce axes, 3 from both (a fuse)."""
    flags = {iv: (2 if iv.iter_type == IterVarType.CommReduce else 1) for iv in stage.op.root_iter_vars}
    for rel in stage.relations:
        match rel:
            case Split(parent=p, outer=o, inner=i):
                flags[o] = flags[i] = flags.get(p, 0)
            case Fuse(outer=o, inner=i, fused=f):
                flags[f] = flags.get(o, 0) | flags.get(i, 0)
            case Rebase(parent=p, rebased=r):
                flags[r] = flags.get(p, 0)
    return flags
