"""Warp memory in registers, read through shuffles (TVM's LowerWarpMemory).

A warp buffer of ``width * m`` elements per group of ``threadIdx.x`` (``width`` its lanes) is
laid out by its stores, which write ``lane * m + r`` (``0 <= r < m``): lane ``lane`` keeps
elements ``lane * m ... lane * m + m - 1`` in a local array of ``m``. A read of element ``j``
is ``__shfl_sync(mask, local[j % m], j / m, width)``: the lane that holds it sends it. That
needs ``j % m`` to be the same in every lane (the sending lane evaluates it), and every lane
of the group to take part (no read under a condition that differs between lanes). Where a
buffer's accesses do not qualify, it stays in shared memory (see ``declare_warp``).
"""

from __future__ import annotations

from dataclasses import dataclass

from bound.arith.const_bound import ConstBounds
from bound.arith.linear import Linear
from lower.backend.cuda.split import DeviceKernel
from lower.backend.gpu_kernel import Kernel
from lower.errors import LoweringError
from lower.ir.stmt import Buffer, For, Load, Stmt, Store
from lower.ir.stmt_functor import stmt_children, stmt_exprs
from schedule import arith
from schedule.ir.expr import And, Call, Expr, Or, Select, Var
from schedule.ir.functor import children, distinct_post_order, free_vars


@dataclass(frozen=True)
class WarpLayout:
    """A warp buffer kept in registers: *per_lane* elements in each of *width* lanes, element
    ``z * coeff * width + lane * coeff + x`` (``0 <= x < coeff``) at ``z * coeff + x`` of lane
    ``lane``, *coeff* being the lane's coefficient in the stores (TVM's layout)."""

    buffer: Buffer
    per_lane: int
    width: int
    coeff: int
    lanes: frozenset[Var]
    bounds: ConstBounds
    places: dict[int, tuple[Expr, Expr]]  # id of an access's index -> (its lane, its local index)

    def place(self, index: Expr) -> tuple[Expr, Expr]:
        """(lane, local index) of the element at *index*, an access of the kernel or one
        derived from it (a lane of a vector loop: its loop variable a constant)."""
        found = self.places.get(id(index))
        if found is None:
            found = _place(index, self.lanes, self.coeff, self.width, self.bounds, False)
            if found is None:
                raise LoweringError(f"build: target 'cuda': warp memory '{self.buffer.name}' read at {index}, "
                                    "outside its register layout")
        return found


def shuffle_layout(k: DeviceKernel, buf: Buffer) -> WarpLayout | None:
    """The register layout of *buf*, or None where its accesses do not allow one."""
    kernel = k.kernel
    width = arith.value_of(k.launch.get("threadIdx.x", arith.const(0)))
    count = arith.value_of(buf.size)
    if not isinstance(width, int) or not isinstance(count, int) or width < 1 or \
            len(kernel.extents.get("threadIdx.x", [])) != 1:
        return None
    lanes = frozenset(iv.var for iv in kernel.threads if iv.thread_tag == "threadIdx.x")
    bounds = _loop_bounds(kernel)
    accesses: list[tuple[Expr, bool]] = []  # (index, a store)
    for s, divergent in k.divergence:
        if isinstance(s, Store) and s.buffer is buf:
            accesses.append((s.index, True))
        reads = [x for e in stmt_exprs(s) for x in distinct_post_order(e) if isinstance(x, Load) and x.buffer is buf]
        if reads and (divergent or any(_read_conditionally(e, buf) for e in stmt_exprs(s))):
            return None  # a lane that skips the shuffle leaves the others reading nothing
        accesses += [(x.index, False) for x in reads]
    coeffs = {Linear.of(i).terms.get(v) for i, store in accesses if store for v in lanes if v in Linear.of(i).terms}
    if len(coeffs) != 1:
        return None
    (coeff,) = coeffs
    if not isinstance(coeff, int) or coeff < 1 or count % (coeff * width):
        return None
    places = {}
    for index, store in accesses:
        place = _place(index, lanes, coeff, width, bounds, store)
        if place is None:
            return None
        places[id(index)] = place
    return WarpLayout(buf, count // width, width, coeff, lanes, bounds, places)


def _place(index: Expr, lanes: frozenset[Var], coeff: int, width: int, bounds: ConstBounds, store: bool
           ) -> tuple[Expr, Expr] | None:
    """(the lane, the local index) of the element at *index*: one term ``coeff * a`` holds the
    lane (``a`` in ``[0, width)``, a lane variable itself for a store), the terms that are
    multiples of ``coeff * width`` pick the local group, and the rest (in ``[0, coeff)``, free
    of the lane) the element within it. None for another form."""
    lin = Linear.of(index)
    lane_terms = [(a, k) for a, k in lin.terms.items() if any(v in lanes for v in free_vars([a]))]
    if len(lane_terms) != 1 or lane_terms[0][1] != coeff:
        return None
    atom = lane_terms[0][0]
    lo, hi = bounds(atom)
    if (store and atom not in lanes) or lo is None or hi is None or lo < 0 or hi >= width:
        return None
    group = coeff * width
    local = Linear(lin.dtype)
    rest = Linear(lin.dtype, const=lin.const)
    for a, k in lin.terms.items():
        if a is atom:
            continue
        if k % group == 0:
            local.add_term(a, k // width)
        else:
            rest.add_term(a, k)
    xlo, xhi = rest.bound(bounds)
    if xlo is None or xhi is None or xlo < 0 or xhi >= coeff:
        return None
    return atom, local.plus(rest).to_expr()


def _read_conditionally(e: Expr, buf: Buffer) -> bool:
    """Whether *e* reads *buf* where only some evaluations reach: a branch of a select or an
    ``if_then_else``, or the right side of ``&&``/``||`` (C evaluates those only when needed)."""
    stack: list[tuple[Expr, bool]] = [(e, False)]
    while stack:
        x, conditional = stack.pop()
        if isinstance(x, Load) and x.buffer is buf and conditional:
            return True
        if isinstance(x, Select):
            stack += [(x.condition, conditional), (x.true_value, True), (x.false_value, True)]
        elif isinstance(x, Call) and x.name == "tvm_if_then_else":
            stack += [(x.args[0], conditional), (x.args[1], True), (x.args[2], True)]
        elif isinstance(x, (And, Or)):
            stack += [(x.a, conditional), (x.b, True)]
        else:
            stack += [(c, conditional) for c in children(x)]
    return False


def _loop_bounds(kernel: Kernel) -> ConstBounds:
    """Constant bounds of the kernel's loop and thread variables."""
    known: dict[Var, tuple[int | None, int | None]] = {}
    for iv in kernel.threads:
        extents = [arith.value_of(e) for e in kernel.extents.get(iv.thread_tag, [])]
        if extents and all(isinstance(e, int) for e in extents):
            known[iv.var] = (0, max(extents) - 1)  # type: ignore[type-var]
    stack: list[Stmt] = [kernel.root]
    while stack:
        s = stack.pop()
        if isinstance(s, For):
            lo, extent = arith.value_of(s.min), arith.value_of(s.extent)
            if isinstance(lo, int) and isinstance(extent, int) and extent > 0:
                known[s.loop_var] = (lo, lo + extent - 1)
        stack.extend(stmt_children(s))
    return ConstBounds(known)
