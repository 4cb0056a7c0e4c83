"""Indexing maps on random inputs: the simplifier keeps every value, and maps derived from
compute bodies give exactly the elements the reference evaluator reads."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import schedule as te
from bound import output_to_input
from bound.indexing.affine_expr import Const, Dim, Symbol, floordiv, mod
from bound.indexing.affine_expr import evaluate as evaluate_affine
from bound.indexing.indexing_map import AffineMap, IndexingMap, Variable
from bound.indexing.intervals import Interval
from schedule import ops
from schedule.ir.evaluate import evaluate

_leaf = st.sampled_from([Dim(0), Dim(1), Symbol(0)]) | st.integers(-5, 5).map(Const)


def _combine(children):
    return st.one_of(
        st.tuples(children, children).map(lambda t: t[0] + t[1]),
        st.tuples(children, st.integers(-4, 4)).map(lambda t: t[0] * t[1]),
        st.tuples(children, st.integers(1, 6)).map(lambda t: floordiv(t[0], Const(t[1]))),
        st.tuples(children, st.integers(1, 6)).map(lambda t: mod(t[0], Const(t[1]))),
    )


_box = st.tuples(st.integers(-6, 6), st.integers(0, 5)).map(lambda t: Interval(t[0], t[0] + t[1]))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.recursive(_leaf, _combine, max_leaves=8), min_size=1, max_size=2), _box, _box, _box)
def test_simplify_keeps_every_value_on_the_domain(results, b0, b1, b2):
    m = IndexingMap.create(AffineMap(2, 1, tuple(results)), [Variable(b0), Variable(b1)], [Variable(b2)])
    note(str(m))
    s = m.simplify()
    note(str(s))
    for d0, d1, s0 in itertools.product(range(b0.lower, b0.upper + 1), range(b1.lower, b1.upper + 1),
                                        range(b2.lower, b2.upper + 1)):
        assert s.evaluate([d0, d1], [s0]) == m.evaluate([d0, d1], [s0])


def _points(m: IndexingMap) -> dict[tuple[int, ...], list[int]]:
    """Each point of *m*'s domain that meets its constraints, with the results there."""
    if m.is_known_empty:
        return {}
    boxes = [range(v.bounds.lower, v.bounds.upper + 1) for v in (*m.dims, *m.ranges)]
    out = {}
    nd = len(m.dims)
    for p in itertools.product(*boxes):
        dims, syms = list(p[:nd]), list(p[nd:])
        if all(iv.lower <= evaluate_affine(e, dims, syms) <= iv.upper for e, iv in m.constraints.items()):
            out[p] = m.evaluate(dims, syms)
    return out


@settings(max_examples=300, deadline=None)
@given(st.integers(-9, 3), st.integers(0, 12), st.lists(st.tuples(st.integers(-6, 6).filter(bool), st.integers(-1, 6)),
                                                        min_size=1, max_size=2), st.integers(-3, 2), st.integers(0, 4))
def test_simplify_keeps_mod_constraints_on_negative_values_and_divisors(lo, width, mods, slo, swidth):
    """``d0 mod c in [r, r]`` (c of either sign, d0 and s0 ranging over negatives too) keeps
    its points: the simplified map relates the same points to the same results."""
    cons = [(mod(Dim(0), Const(c)), Interval(r, r)) for c, r in mods]
    cons.append((mod(Symbol(0), Const(mods[0][0])), Interval(mods[0][1], mods[0][1])))
    m = IndexingMap.create(AffineMap(1, 1, (Dim(0) + Symbol(0) * 7,)), [Variable(Interval(lo, lo + width))],
                           [Variable(Interval(slo, slo + swidth))], constraints=cons)
    note(str(m))
    s = m.simplify()
    note(str(s))
    before, after = _points(m), _points(s)
    assert sorted(before.values()) == sorted(after.values())
    for (d0, s0), results in before.items():  # the same dims relate to the same results
        assert (d0, s0) not in after or after[(d0, s0)] == results


def _chains(draw, x):
    """A random chain of data-movement ops on a 2-D tensor, with the ops applied."""
    t = x
    for _ in range(draw(st.integers(1, 3))):
        shape = [int(n) for n in t.shape]
        kind = draw(st.sampled_from(["exp", "transpose", "reverse", "slice", "pad", "broadcast", "reshape",
                                     "concat", "reduce"]))
        if kind == "exp" or (kind == "reduce" and len(shape) < 2):
            t = ops.exp(t)
        elif kind == "transpose":
            t = ops.transpose(t, list(reversed(range(len(shape)))))
        elif kind == "reverse":
            t = ops.reverse(t, [draw(st.integers(0, len(shape) - 1))])
        elif kind == "slice":
            starts = [draw(st.integers(0, n - 1)) for n in shape]
            t = ops.slice(t, starts, [n for n in shape], [draw(st.integers(1, 2)) for _ in shape])
        elif kind == "pad":
            t = ops.pad(t, 0.0, [(draw(st.integers(-1, 2)), draw(st.integers(0, 2)), draw(st.integers(0, 1)))
                                 for _ in shape])
        elif kind == "broadcast":
            t = ops.broadcast(t, [2, *shape], list(range(1, len(shape) + 1)))
        elif kind == "reshape":
            total = int(np.prod(shape))
            t = ops.reshape(t, [total] if len(shape) > 1 else [1, total])
        elif kind == "concat":
            t = ops.concatenate([t, t], 0)
        else:
            t = ops.reduce_sum(t, [draw(st.integers(0, len(shape) - 1))])
    return t


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_maps_give_exactly_the_elements_read(data):
    x = te.placeholder((data.draw(st.integers(2, 4)), data.draw(st.integers(2, 4))), name="x")
    out = _chains(data.draw, x)
    if any(int(n) == 0 for n in out.shape):
        return
    maps = output_to_input(out, x)
    note("\n".join(map(str, maps)))
    read = _reads_by_element(out, x)
    for index in itertools.product(*(range(int(n)) for n in out.shape)):
        from_maps = set()
        for m in maps:
            ranges = [range(v.bounds.lower, v.bounds.upper + 1) for v in (*m.ranges, *m.rts)]
            if not all(v.bounds.lower <= i <= v.bounds.upper for v, i in zip(m.dims, index)):
                continue
            for syms in itertools.product(*ranges):
                if m.constraints_satisfied(list(index), list(syms)):
                    from_maps.add(tuple(m.evaluate(list(index), list(syms))))
        assert from_maps == read.get(index, set()), (index, from_maps, read.get(index))


def _reads_by_element(out, x):
    """For each element of *out*: the elements of *x* that computing it reads (by evaluation)."""
    from schedule.operation.compute import ComputeOp
    from schedule.operation.graph import post_dfs_order, read_graph

    roots = [out.op]
    deps: dict = {}
    for op in post_dfs_order(roots, read_graph(roots)):
        if not isinstance(op, ComputeOp):
            continue
        t = op.output(0)
        table = {}
        for index in itertools.product(*(range(int(n)) for n in t.shape)):
            touched: set = set()

            def load(tensor, idx, touched=touched):
                if tensor.op is x.op:
                    touched.add(tuple(idx))
                else:
                    touched.update(deps[tensor][tuple(idx)])
                return 1.0
            evaluate(op.body[0], {iv.var: i for iv, i in zip(op.axis, index)}, load)
            table[index] = touched
        deps[t] = table
    return deps[out]


_SINGLE_OPS = {
    "transpose": lambda x: ops.transpose(x, [1, 0]),
    "reverse": lambda x: ops.reverse(x, [0]),
    "slice": lambda x: ops.slice(x, [1, 0], [int(x.shape[0]), int(x.shape[1])], [2, 1]),
    "broadcast": lambda x: ops.broadcast(x, [3, int(x.shape[0]), int(x.shape[1])], [1, 2]),
    "reshape": lambda x: ops.reshape(x, [int(x.shape[0]) * int(x.shape[1])]),
    "reduce": lambda x: ops.reduce_sum(x, [0]),
    "concat": lambda x: ops.concatenate([x, x], 1),
    "exp": lambda x: ops.exp(x),
}


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(_SINGLE_OPS)), st.integers(2, 4), st.integers(2, 4))
def test_input_to_output_is_the_exact_inverse(kind, n0, n1):
    from bound import input_to_output

    x = te.placeholder((n0, n1), name="x")
    out = _SINGLE_OPS[kind](x)
    forward = _relation(output_to_input(out, x))
    backward = {(o, i) for i, o in _relation(input_to_output(out, x))}
    assert backward == forward


def _relation(maps):
    """Every (from-index, to-index) pair of a list of maps, by enumeration."""
    pairs = set()
    for m in maps:
        assert not m.is_undefined, "undefined map"
        dims = [range(v.bounds.lower, v.bounds.upper + 1) for v in m.dims]
        syms = [range(v.bounds.lower, v.bounds.upper + 1) for v in (*m.ranges, *m.rts)]
        for d in itertools.product(*dims):
            for s in itertools.product(*syms):
                if m.constraints_satisfied(list(d), list(s)):
                    pairs.add((tuple(d), tuple(m.evaluate(list(d), list(s)))))
    return pairs


def test_isl_inverts_reads_that_mix_dimensions():
    from bound import input_to_output

    x = te.placeholder((12,), name="x")
    t = te.compute((3, 4), lambda i, j: x[i * 4 + j], name="t")
    (m,) = input_to_output(t, x)
    assert str(m) == "(d0) -> (d0 floordiv 4, d0 mod 4), domain: d0 in [0, 11]"
    assert {(o, i) for i, o in _relation([m])} == _relation(output_to_input(t, x))


@pytest.mark.parametrize("body, sizes, in_shape", [
    (lambda x: lambda i, j: x[i + j], (4, 4), (7,)),
    (lambda x: lambda i, j: x[i + j, j * 2], (3, 3), (6, 6)),
    (lambda x: lambda i, j: x[i * 4 + j], (3, 4), (12,)),
])
def test_isl_inverts_any_quasi_affine_read_exactly(body, sizes, in_shape):
    """Many-valued inverses get range variables, partial ones constraints."""
    from bound import input_to_output

    x = te.placeholder(in_shape, name="x")
    t = te.compute(sizes, body(x), name="t")
    maps = input_to_output(t, x)
    assert not any(m.is_undefined for m in maps)
    assert {(o, i) for i, o in _relation(maps)} == _relation(output_to_input(t, x))
