"""Input-to-output maps: each read's map inverted.

For a read ``x = f(d, s)``, output dim ``d_j`` is recovered from an input result that depends
on ``d_j`` alone, ``x_i = a*d_j + c``, as ``(x_i - c) floordiv a`` (``a = +-1`` needs no
division), which holds only on ``x_i`` in ``c + a*[lo, hi]`` with ``(x_i - c) mod a == 0``; an
output dim no result depends on may be anything (a range variable over its bounds). Reshapes
and bitcasts, whose results mix dims, are inverted by the reverse reshape. Any other read
whose inverse is a function on the whole input is inverted by isl; the rest have an
undefined inverse. The result is exact: every test checks it against the
forward map.
"""

from __future__ import annotations

from collections.abc import Sequence

from bound.indexing.affine_expr import AffineExpr, Binary, Const, Dim, Kind, Symbol, floordiv, mod, walk
from bound.indexing.analysis import access_map, operand_maps, upstream_order
from bound.indexing.indexing_map import AffineMap, IndexingMap, Variable, compose
from bound.indexing.intervals import INT64_MAX, INT64_MIN, Interval
from bound.indexing.simplify import simplified
from bound.indexing.text import isl_text, relation_text
from bound.isl import reversed_functions, set_constraints, single_valued_function
from bound.operation.registry import reads
from schedule import arith, ops
from schedule.operation.compute import ComputeOp, compute
from schedule.operation.placeholder import placeholder
from schedule.operation.tensor import Tensor


def _linear_in_one_dim(e: AffineExpr) -> tuple[int, int, int] | None:
    """``(j, a, c)`` if *e* is ``a*d_j + c`` with ``a != 0``."""
    nodes = walk(e)
    dims = {x.position for x in nodes if isinstance(x, Dim)}
    if len(dims) != 1 or any(isinstance(x, Symbol) for x in nodes):
        return None
    (j,) = dims
    a = _coefficient(e, j)
    if a is None or a == 0:
        return None
    c = _constant(e)
    return (j, a, c) if c is not None else None


def _coefficient(e: AffineExpr, j: int) -> int | None:
    if isinstance(e, Dim):
        return 1 if e.position == j else 0
    if isinstance(e, Const):
        return 0
    if isinstance(e, Binary) and e.op == Kind.ADD:
        a, b = _coefficient(e.lhs, j), _coefficient(e.rhs, j)
        return None if a is None or b is None else a + b
    if isinstance(e, Binary) and e.op == Kind.MUL and isinstance(e.rhs, Const):
        a = _coefficient(e.lhs, j)
        return None if a is None else a * e.rhs.value
    return None


def _constant(e: AffineExpr) -> int | None:
    if isinstance(e, Const):
        return e.value
    if isinstance(e, Dim):
        return 0
    if isinstance(e, Binary) and e.op == Kind.ADD:
        a, b = _constant(e.lhs), _constant(e.rhs)
        return None if a is None or b is None else a + b
    if isinstance(e, Binary) and e.op == Kind.MUL and isinstance(e.rhs, Const):
        a = _constant(e.lhs)
        return None if a is None else a * e.rhs.value
    return None


def invert(m: IndexingMap, in_sizes: list[int]) -> IndexingMap:
    """The input-to-output map of the read *m* (output index -> input index)."""
    if m.is_undefined or m.rts:
        return IndexingMap.undefined()
    x = [Dim(i) for i in range(len(in_sizes))]
    out_exprs: list[AffineExpr | None] = [None] * len(m.dims)
    constraints: list[tuple[AffineExpr, Interval]] = []
    used_results: set[int] = set()
    for i, r in enumerate(m.results):
        found = _linear_in_one_dim(r)
        if found is None:
            continue
        j, a, c = found
        if out_exprs[j] is not None:
            continue
        lo, hi = m.dims[j].bounds.lower, m.dims[j].bounds.upper
        shifted = x[i] - c
        if a == 1:
            out_exprs[j] = shifted
        elif a == -1:
            out_exprs[j] = -x[i] + c
        elif a > 0:
            out_exprs[j] = floordiv(shifted, Const(a))
            constraints.append((mod(shifted, Const(a)), Interval(0, 0)))
        else:
            return IndexingMap.undefined()
        first, last = c + a * lo, c + a * hi
        constraints.insert(0, (x[i], Interval(min(first, last), max(first, last))))
        used_results.add(i)
    ranges: list[Variable] = []
    results: list[AffineExpr] = []
    for j, e in enumerate(out_exprs):
        if e is not None:
            results.append(e)
            continue
        if any(any(isinstance(n, Dim) and n.position == j for n in walk(r)) for r in m.results):
            return IndexingMap.undefined()  # the dim is mixed with others: not invertible here
        results.append(Symbol(len(ranges)))
        ranges.append(Variable(m.dims[j].bounds))
    for i, r in enumerate(m.results):
        if i in used_results:
            continue
        if isinstance(r, Const):
            constraints.append((x[i], Interval(r.value, r.value)))
        elif any(isinstance(n, Dim) for n in walk(r)):
            return IndexingMap.undefined()
    out_dims = [Variable(Interval(0, n - 1)) for n in in_sizes]
    amap = AffineMap(len(in_sizes), len(ranges), tuple(results))
    return IndexingMap.create(amap, out_dims, ranges, (), constraints)


def _invert_function(m: IndexingMap, in_sizes: list[int]) -> IndexingMap:
    """The inverse when it is a function on the whole input box (every output dim at once)."""
    if m.is_undefined or m.rts:
        return IndexingMap.undefined()
    inputs, box = _input_box(in_sizes)
    try:
        functions = reversed_functions(isl_text(m), f"{{ [{', '.join(inputs)}] : {' and '.join(box) or 'true'} }}")
    except ValueError:
        return IndexingMap.undefined()
    if functions is None or any(f is None for f in functions):
        return IndexingMap.undefined()
    results = tuple(_from_terms(f, len(in_sizes)) for f in functions)  # type: ignore[arg-type]
    return IndexingMap.create(AffineMap(len(in_sizes), 0, results),
                              [Variable(Interval(0, n - 1)) for n in in_sizes])


def invert_with_isl(m: IndexingMap, in_sizes: list[int]) -> IndexingMap:
    """The inverse of *m* computed with isl. Output dims are taken in order: one that is a
    single affine function of the input index (and of the range variables chosen so far)
    becomes that function; any other becomes a new range variable over its bounds. The
    points where the input is read at all become constraints. Undefined when a function is
    piecewise or the domain is not one conjunction."""
    if m.is_undefined or m.rts:
        return IndexingMap.undefined()
    inputs, box = _input_box(in_sizes)
    free: list[int] = []
    results: list[AffineExpr] = []
    try:
        for j in range(len(m.dims)):
            names = [*inputs, *(f"d{f}" for f in free)]
            terms = single_valued_function(relation_text(m, names, [f"d{j}"], box))
            if terms is None:
                results.append(Symbol(len(free)))
                free.append(j)
            else:
                results.append(_from_terms(terms, len(inputs)))
        names = [*inputs, *(f"d{f}" for f in free)]
        domain = set_constraints(relation_text(m, names, None, box))
    except ValueError:
        return IndexingMap.undefined()
    if domain is None:
        return IndexingMap.undefined()
    constraints = [_constraint(terms, equality, len(inputs)) for terms, equality in domain]
    amap = AffineMap(len(in_sizes), len(free), tuple(results))
    return IndexingMap.create(amap, [Variable(Interval(0, n - 1)) for n in in_sizes],
                              [m.dims[f] for f in free], (), constraints)


def _input_box(in_sizes: list[int]) -> tuple[list[str], list[str]]:
    """The input index's isl names (``o<k>``, as :func:`relation_text` names results) and
    the conditions that keep it inside the input."""
    names = [f"o{k}" for k in range(len(in_sizes))]
    return names, [f"0 <= {n} < {s}" for n, s in zip(names, in_sizes)]


def _constraint(terms, equality: bool, num_dims: int) -> tuple[AffineExpr, Interval]:
    """``terms >= 0`` (or ``== 0``) as ``expr in [lo, hi]`` with the constant moved into the
    interval and the first coefficient positive, so bounds on one expression meet."""
    den, const, items = terms
    if items and items[0][0] < 0:
        items = [(-c, kind) for c, kind in items]
        lo, hi = (const, const) if equality else (INT64_MIN, const)
    else:
        lo, hi = (-const, -const) if equality else (-const, INT64_MAX)
    return _from_terms((den, 0, items), num_dims), Interval(lo, hi)


def _from_terms(terms, num_dims: int) -> AffineExpr:
    """isl terms over ``[inputs..., free range variables...]`` as an affine expression."""
    den, const, items = terms
    e: AffineExpr = Const(const)
    for coef, kind in items:
        if kind[0] == "in":
            k = kind[1]
            x = Dim(k) if k < num_dims else Symbol(k - num_dims)
        else:
            x = _from_terms(kind[1], num_dims)
        e = e + x * coef
    return floordiv(e, Const(den)) if den != 1 else e


def input_to_output(tensor: Tensor, operand: Tensor, stop_at: Sequence[Tensor] = ()) -> list[IndexingMap]:
    """The distinct maps from an element of *operand* to the elements of *tensor* that read it,
    composed along every chain of computes from *operand* up to *tensor* (each step simplified,
    as XLA's epilogue analysis does); sorted by their text. Each tensor in between is visited
    once, so chains and diamonds cost time linear in their size. Chains through a tensor of
    *stop_at* are left out (as :func:`output_to_inputs` stops at a fusion's other operands)."""
    if not isinstance(tensor, Tensor) or not isinstance(operand, Tensor):
        raise TypeError("input_to_output: tensor and operand must be Tensors")
    if any(not isinstance(t, Tensor) for t in stop_at):
        raise TypeError("input_to_output: stop_at must hold Tensors")
    source = (id(operand.op), operand.value_index)
    # reached[t]: the maps from operand to t, for every t on a path from operand to tensor.
    reached: dict[tuple[int, int], dict[IndexingMap, None]] = {}
    stop = {id(operand.op)} | {id(t.op) for t in stop_at if t.op is not tensor.op}
    for op in upstream_order(tensor.op, stop):
        if id(op) in stop:
            continue
        for k in range(op.num_outputs):
            t = op.output(k)
            maps: dict[IndexingMap, None] = {}
            for p in dict.fromkeys(op.input_tensors):
                key = (id(p.op), p.value_index)
                if key == source:
                    maps.update(dict.fromkeys(_direct(t, p)))
                elif key in reached:
                    for second in _direct(t, p):
                        for first in reached[key]:
                            maps[simplified(compose(first, second)).remove_unused_symbols()[0]] = None
            if maps:
                reached[(id(op), k)] = maps
    out = reached.get((id(tensor.op), tensor.value_index))
    if not out:
        raise ValueError(f"input_to_output: '{tensor.name}' does not read '{operand.name}'")
    return sorted(out, key=str)


def _direct(tensor: Tensor, operand: Tensor) -> list[IndexingMap]:
    in_sizes = [int(arith.value_of(n)) for n in operand.shape]  # type: ignore[arg-type]
    op = tensor.op
    if isinstance(op, ComputeOp) and op.tag == "reshape":
        return _reverse_reshape(tensor, operand, in_sizes)
    if isinstance(op, ComputeOp) and op.tag == "bitcast" and "bitcast_orders" in op.attrs:
        return _reverse_reshape(tensor, operand, in_sizes, op.attrs["bitcast_orders"])
    maps: dict[IndexingMap, None] = {}
    for m in operand_maps(op, operand):
        inverse = invert(m, in_sizes)
        if inverse.is_undefined:
            inverse = _invert_function(m, in_sizes).simplify()
        if inverse.is_undefined:
            inverse = invert_with_isl(m, in_sizes).simplify().remove_unused_symbols()[0]
        maps[inverse] = None
    return sorted(maps, key=str)


def _reverse_reshape(tensor: Tensor, operand: Tensor, in_sizes: list[int],
                     orders: tuple | None = None) -> list[IndexingMap]:
    """The reverse reshape (of a bitcast: through the physical orders of both tensors)."""
    out_sizes = [int(arith.value_of(n)) for n in tensor.shape]  # type: ignore[arg-type]
    probe = placeholder(out_sizes, tensor.dtype, tensor.name)
    if orders is None:
        def body(*i):
            return probe[tuple(ops.reshape_indices(out_sizes, in_sizes, list(i)))]
    else:
        src_major, dst_major = orders

        def body(*i):
            physical = ops.reshape_indices([out_sizes[d] for d in dst_major], [in_sizes[d] for d in src_major],
                                           [i[d] for d in src_major])
            index = [None] * len(out_sizes)
            for k, d in enumerate(dst_major):
                index[d] = physical[k]
            return probe[tuple(index)]
    back = compute(in_sizes, body, name=operand.name, tag="reshape")

    (acc,) = reads(back.op, [probe])
    return [simplified(access_map(back.op, acc), replace_points=False)]
