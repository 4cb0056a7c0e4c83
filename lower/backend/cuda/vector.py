"""Vectorized loops as CUDA vector types (``float4``, ``int2`` ...), as TVM's CUDA code writes them.

A vectorized loop of 2 or 4 lanes (2 for float16, as ``half2``) whose body stores one element at
``base + v`` (``v`` the loop variable, ``base`` a multiple of the lane count) becomes one vector
store; each read at ``base' + v`` of the same kind becomes one vector load, and the lanes of
the value are computed from the loaded vectors' components. Anything else stays a loop, which
computes the same: a vector form is only a faster way to write it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bound import simplify
from bound.arith.linear import Linear
from lower.backend.c.expr import replace_subexpression
from lower.ir.stmt import Buffer, For, ForKind, Load, Stmt, Store
from lower.ir.stmt_functor import walk
from schedule import arith
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import distinct_post_order, free_vars, substitute

#: The CUDA vector type of a scalar dtype, by lane count.
VECTOR_TYPES = {("float32", 2): "float2", ("float32", 4): "float4", ("int32", 2): "int2", ("int32", 4): "int4",
                ("uint32", 2): "uint2", ("uint32", 4): "uint4", ("float16", 2): "half2"}
#: The components of a CUDA vector, by lane.
COMPONENTS = ("x", "y", "z", "w")


@dataclass
class VectorPlan:
    """How to write a vectorized loop: the store's base index, the vector loads (a load of the
    body and its base index), and the vector type."""

    store: Store
    base: Expr
    loads: list[tuple[Load, Expr]]
    lanes: int
    vtype: str
    loop_var: Var

    def lane_value(self, lane: int, components: list[Var]) -> Expr:
        """The stored value of *lane*: the loop variable a constant, each vector load the
        component *components* ``[k]`` stands for (a variable named ``vK.x`` ...)."""
        value = self.store.value
        for (load, _), component in zip(self.loads, components):
            value = replace_subexpression(value, load, component)
        return simplify(substitute(value, {self.loop_var: arith.const(lane, self.loop_var.dtype)}))


def vector_buffers(root: Stmt) -> set[Buffer]:
    """The buffers that the vectorized loops under *root* store or load."""
    found: set[Buffer] = set()
    for s in walk(root):
        if isinstance(s, For) and s.kind == ForKind.VECTORIZED:
            for x in walk(s):
                if isinstance(x, Store):
                    found.add(x.buffer)
                    found.update(y.buffer for y in distinct_post_order(x.value) if isinstance(y, Load))
    return found


def plan_vector(s: For, vectorizable: set[Buffer]) -> VectorPlan | None:
    """The vector form of the loop *s*, or None when it has none (see the module docstring).
    *vectorizable* are the buffers whose data starts 16-byte aligned."""
    lanes = arith.value_of(s.extent)
    if s.kind != ForKind.VECTORIZED or lanes not in (2, 4) or arith.value_of(s.min) != 0:
        return None
    store = s.body
    if not isinstance(store, Store) or store.buffer not in vectorizable:
        return None
    vtype = VECTOR_TYPES.get((store.buffer.dtype, lanes))
    base = _aligned_base(store.index, s.loop_var, lanes)
    if vtype is None or base is None or store.value.dtype != store.buffer.dtype:
        return None
    loads = []
    for x in distinct_post_order(store.value):
        if isinstance(x, Load) and s.loop_var in free_vars([x.index]):
            load_base = _aligned_base(x.index, s.loop_var, lanes)
            if load_base is not None and x.buffer in vectorizable and x.buffer.dtype == store.buffer.dtype \
                    and x.dtype == x.buffer.dtype:
                loads.append((x, load_base))
    return VectorPlan(store, base, loads, lanes, vtype, s.loop_var)


def _aligned_base(index: Expr, v: Var, lanes: int) -> Expr | None:
    """``base`` where *index* is ``base + v`` and ``base`` a multiple of *lanes*; else None."""
    lin = Linear.of(index)
    if lin.terms.get(v) != 1 or lin.const % lanes:
        return None
    for atom, k in lin.terms.items():
        if atom is v:
            continue
        if v in free_vars([atom]) or k % lanes:
            return None
    lin.add_term(v, -1)
    return lin.to_expr()
