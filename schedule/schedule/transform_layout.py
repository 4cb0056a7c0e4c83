"""``s[T].transform_layout(mapping)``: store a stage's tensor in another layout (TVM's te
transform_layout, v0.14).

*mapping* takes the logical indices and returns the physical ones (``lambda i, j: [j, i]``,
``lambda i: [i // 4, i % 4]``); the buffer is laid out row-major over the physical shape, and
an argument is passed as an array of that shape. The mapping must be a bijection onto the
physical shape (no padding). A compute stage's loops then follow the physical axes: they are
the axes split, fused and reordered as the mapping says, and are returned, each with its range.
``AXIS_SEPARATOR`` entries (TVM's grouping of physical axes into memory dimensions) are accepted
and ignored: memory here is flat.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

import numpy as np

from schedule.ir import arith
from schedule.ir.evaluate import evaluate
from schedule.ir.expr import Add, Expr, FloorDiv, FloorMod, IntImm, Mul, Var
from schedule.ir.functor import free_vars
from schedule.ir.itervar import IterVar, Range
from schedule.schedule.relations import Fuse, Split

if TYPE_CHECKING:
    from schedule.schedule.stage import Stage

#: TVM's marker between groups of physical axes.
AXIS_SEPARATOR = "axis_separator"


@dataclass(frozen=True)
class LayoutTransform:
    """The logical variables, the physical index expressions of them, and the physical shape."""

    logical: tuple[Var, ...]
    physical: tuple[Expr, ...]
    shape: tuple[int, ...]


def transform_layout(stage: Stage, mapping: Callable[..., Any]) -> list[IterVar]:
    """See the module docstring; :raises ScheduleError: on a mapping that is not a bijection
    onto its range, or that the loops cannot follow."""
    t = stage.op.output(0)
    dims = [arith.value_of(d) for d in t.shape]
    if any(not isinstance(d, int) for d in dims):
        raise stage._error("transform_layout", None, "needs a constant shape")
    logical = _logical_vars(mapping, len(dims), stage)
    args, kwargs = _call_args(mapping, logical)
    try:
        result = mapping(*args, **kwargs)
    except TypeError as err:
        raise stage._error("transform_layout", None, f"the mapping could not be called on {len(dims)} "
                                                     f"indices: {err}") from None
    items = list(result) if isinstance(result, (list, tuple)) else [result]
    physical = tuple(arith.convert(x) for x in items if not (isinstance(x, str) and x == AXIS_SEPARATOR))
    if any(v not in logical for v in free_vars(physical)):
        raise stage._error("transform_layout", None, "the mapping uses variables other than its indices")
    shape = _physical_shape(stage, logical, physical, dims)
    transform = LayoutTransform(tuple(logical), physical, shape)
    leaves = _follow(stage, transform, dims) if stage.op.root_iter_vars else []
    stage.layout_transform = transform
    return leaves


def _logical_vars(mapping: Callable[..., Any], ndim: int, stage: Stage) -> list[Var]:
    try:
        params = list(inspect.signature(mapping).parameters.values())
    except (TypeError, ValueError):
        raise stage._error("transform_layout", None, "the mapping must be a function") from None
    named = [p.name for p in params if p.kind != p.VAR_POSITIONAL]
    varargs = any(p.kind == p.VAR_POSITIONAL for p in params)
    if len(named) > ndim or (not varargs and len(named) != ndim):
        raise stage._error("transform_layout", None, f"the mapping takes {len(named)} indices, but the tensor has "
                                                     f"{ndim} dimensions")
    rest = ndim - len(named)
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    names = positional + [f"i{k}" for k in range(rest)] + [n for n in named if n not in positional]
    return [Var(n, "int32") for n in names]


def _call_args(mapping: Callable[..., Any], logical: list[Var]) -> tuple[list[Var], dict[str, Var]]:
    """The indices as *mapping* takes them: keyword-only parameters (``lambda *i, n:``) by name."""
    params = list(inspect.signature(mapping).parameters.values())
    keyword = [p.name for p in params if p.kind == p.KEYWORD_ONLY]
    split = len(logical) - len(keyword)
    return logical[:split], dict(zip(keyword, logical[split:]))


def _physical_shape(stage: Stage, logical: list[Var], physical: tuple[Expr, ...], dims: list[int]) -> tuple[int, ...]:
    if sorted(map(id, physical)) == sorted(map(id, logical)):  # a permutation: one to one, nothing to check
        position = {id(v): k for k, v in enumerate(logical)}
        return tuple(dims[position[id(e)]] for e in physical)
    grid = np.indices(dims, dtype=np.int64).reshape(len(dims), -1) if dims else np.zeros((0, 1), np.int64)
    env = {v: grid[k] for k, v in enumerate(logical)}
    try:  # the mapping's index arithmetic, over every logical index at once
        values = [np.broadcast_to(np.asarray(evaluate(e, env), dtype=np.int64), grid.shape[1:]) for e in physical]
    except (TypeError, ValueError, ArithmeticError):
        raise stage._error("transform_layout", None, "the mapping must be index arithmetic (+, -, *, //, %) "
                                                     "of its indices") from None
    if any(int(v.min(initial=0)) < 0 for v in values):
        raise stage._error("transform_layout", None, "the mapping gives negative indices")
    shape = tuple(int(v.max(initial=0)) + 1 for v in values)
    flat = np.zeros(grid.shape[1:], np.int64)
    for v, n in zip(values, shape):
        flat = flat * n + v
    size = int(np.prod(shape)) if shape else 1
    # i % b ranges over all of [0, b) unless the axis it takes leaves a remainder: padding
    short = any(isinstance(e, FloorMod) and isinstance(e.b, IntImm) and n < e.b.value for e, n in zip(physical, shape))
    if short or size != int(np.prod(dims)) or not _onto(flat, size):
        raise stage._error("transform_layout", None, f"the mapping from shape {tuple(dims)} onto {shape} is not "
                                                     "one to one (it would need padding)")
    return shape


def _onto(flat: np.ndarray, size: int) -> bool:
    """Whether the *size* indices of *flat*, each in ``[0, size)``, hit every one of them (so
    none twice): linear, where sorting them took a second and a half for a 1024 x 1024 panel."""
    seen = np.zeros(size, dtype=bool)
    seen[flat] = True
    return bool(seen.all())


def _follow(stage: Stage, transform: LayoutTransform, dims: list[int]) -> list[IterVar]:
    """Split, fuse and reorder the stage's axes into the physical ones; the new leaves, with ranges."""
    axis = {v: iv for v, iv in zip(transform.logical, stage.op.axis)}
    if any(iv not in stage.leaf_iter_vars for iv in axis.values()) or stage.relations:
        raise stage._error("transform_layout", None, "needs the stage's axes as they were created; transform the "
                                                     "layout before splitting, fusing or reordering them")
    extent = dict(zip(transform.logical, dims))
    groups = [_terms(e, extent, stage) for e in transform.physical]
    digits: dict[Var, list[tuple[int, int | None]]] = {}
    for v, a, b in (term for group in groups for term in group):
        digits.setdefault(v, []).append((a, b))
    for v, got in digits.items():
        _check_digits(stage, v, sorted(got, key=lambda d: -d[0]), extent[v])
    # -- checks done; the stage changes only below --
    leaf: dict[tuple[Var, int], IterVar] = {}
    for v, got in digits.items():  # v = d0*a0 + d1*a1 + ...: split off the digits, largest first
        rest = axis[v]
        ordered = sorted(got, key=lambda d: -d[0])
        for a, _ in ordered[:-1]:
            outer, rest = stage.split(rest, factor=a)
            leaf[(v, a)] = outer
        leaf[(v, ordered[-1][0])] = rest
    order = [[leaf[(v, a)] for v, a, _ in group] for group in groups]
    stage.reorder(*(iv for group in order for iv in group))
    leaves = [group[0] if len(group) == 1 else _fuse_all(stage, group) for group in order]
    return [_with_range(stage, iv, n) for iv, n in zip(leaves, transform.shape)]


def _check_digits(stage: Stage, v: Var, ordered: list[tuple[int, int | None]], n: int) -> None:
    """The digits ``(v // a) % b`` of *v*, largest divisor first, must make up *v* exactly."""
    top, top_mod = ordered[0]
    ok = top_mod in (None, n // top) and ordered[-1][0] == 1 and n % top == 0
    for (a, _), (a2, b2) in zip(ordered, ordered[1:]):
        ok = ok and b2 is not None and a == a2 * b2
    if not ok:
        raise stage._error("transform_layout", None, f"the loops cannot follow axis '{v.name}' through the mapping: "
                                                     "use it whole once, or as digits i // c, (i // d) % e, i % f "
                                                     "that make it up exactly")


def _terms(e: Expr, extent: dict[Var, int], stage: Stage) -> list[tuple[Var, int, int | None]]:
    """A physical index as the digits ``(v, a, b)`` = ``(v // a) % b`` (b None: no modulus) it
    fuses, outermost first."""
    summands: list[tuple[Expr, int]] = []
    stack: list[tuple[Expr, int]] = [(e, 1)]
    while stack:
        x, k = stack.pop()
        if isinstance(x, Add):
            stack += [(x.b, k), (x.a, k)]
        elif isinstance(x, Mul) and isinstance(x.b, IntImm):
            stack.append((x.a, k * x.b.value))
        elif isinstance(x, Mul) and isinstance(x.a, IntImm):
            stack.append((x.b, k * x.a.value))
        else:
            summands.append((x, k))
    terms = [_digit(x, e, stage) for x, _ in summands]
    stride = 1
    for (_, k), (v, a, b) in zip(reversed(summands), reversed(terms)):
        if k != stride:
            raise stage._error("transform_layout", None, f"the physical index {e} is not a fusion of its axes "
                                                         "(strides must be the products of the inner extents)")
        stride *= b if b is not None else extent[v] // a
    return terms


def _digit(x: Expr, whole: Expr, stage: Stage) -> tuple[Var, int, int | None]:
    b: int | None = None
    if isinstance(x, FloorMod) and isinstance(x.b, IntImm):
        x, b = x.a, x.b.value
    a = 1
    while isinstance(x, FloorDiv) and isinstance(x.b, IntImm):  # (i // 4) // 3 is i // 12
        x, a = x.a, a * x.b.value
    if not isinstance(x, Var):
        raise stage._error("transform_layout", None, f"the loops cannot follow the physical index {whole}: use "
                                                     "permutations, splits (i // c, i % c) and fusions (i * n + j) "
                                                     "of the axes")
    return x, a, b


def _fuse_all(stage: Stage, group: list[IterVar]) -> IterVar:
    fused = group[0]
    for iv in group[1:]:
        fused = stage.fuse(fused, iv)
    return fused


def _with_range(stage: Stage, iv: IterVar, extent: int) -> IterVar:
    """*iv* replaced in *stage* by the same loop with its range ``[0, extent)`` recorded."""
    if iv.dom is not None:
        return iv
    new = IterVar(Range.from_min_extent(0, extent), iv.var, iv.iter_type, iv.thread_tag)
    swap = {id(iv): new}

    def sub(x: Any) -> Any:
        return swap.get(id(x), x)

    stage.relations = [replace(r, **{f: sub(getattr(r, f)) for f in ("parent", "outer", "inner", "fused")
                                     if hasattr(r, f)}) if isinstance(r, (Split, Fuse)) else r
                       for r in stage.relations]
    stage.all_iter_vars = [sub(x) for x in stage.all_iter_vars]
    stage.leaf_iter_vars = [sub(x) for x in stage.leaf_iter_vars]
    if iv in stage.iter_var_attrs:
        stage.iter_var_attrs[new] = stage.iter_var_attrs.pop(iv)
    return new
