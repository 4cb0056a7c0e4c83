"""TVM's iterator maps, checked by enumerating every point of the iterators: a detected map's
sums take the indices' values, a bijective map hits every output once, a predicate shrinks
the fused extent to the points that satisfy it, a subspace division and an inverse map
rebuild the indices, and a region estimate is the set the region sweeps."""

from __future__ import annotations

import itertools

import pytest

import tebound.tvm as tvm
from schedule.ir.evaluate import evaluate
from tebound.tvm import tir

fld, flm = tir.floordiv, tir.floormod
I, J, K = tir.Var("i", "int32"), tir.Var("j", "int32"), tir.Var("k", "int32")


def dom(**extents):
    vs = {"i": I, "j": J, "k": K}
    return {vs[n]: tvm.ir.Range(0, e) for n, e in extents.items()}


def points(d, predicate=None):
    names = list(d)
    for values in itertools.product(*(range(int(r.extent.value)) for r in d.values())):
        env = dict(zip(names, values))
        if predicate is None or evaluate(predicate, env):
            yield env


@pytest.mark.parametrize("indices, extents", [
    ([I * 4 + J], {"i": 3, "j": 4}),                                  # a fusion
    ([fld(I, 6), fld(flm(I, 6), 2), flm(I, 2)], {"i": 24}),           # three splits of one iterator
    ([fld(I * 4 + J, 3), flm(I * 4 + J, 3)], {"i": 3, "j": 4}),       # fuse, then split again
    ([J, I], {"i": 5, "j": 2}),                                       # a transpose
])
def test_a_bijective_map_takes_the_indices_values_and_hits_each_output_once(indices, extents):
    d = dom(**extents)
    res = tvm.arith.detect_iter_map(indices, d, check_level="bijective")
    assert len(res.indices) == len(indices), res.errors
    exprs = [tvm.arith.normalize_iter_map_to_expr(s) for s in res.indices]
    seen = set()
    for env in points(d):
        got = tuple(evaluate(e, env) for e in exprs)
        assert got == tuple(evaluate(x, env) for x in indices)
        seen.add(got)
    total = 1
    for e in extents.values():
        total *= e
    assert len(seen) == total
    for s in res.indices:  # each output's extent is what it sweeps
        ext = 1 if not s.args else int(s.args[0].extent.value)
        assert ext in {len({p[k] for p in seen}) for k in range(len(indices))}


@pytest.mark.parametrize("indices, extents, level", [
    ([I * 4 + J, J], {"i": 3, "j": 4}, "surjective"),                  # j used twice
    ([I * 3 + J], {"i": 3, "j": 4}, "bijective"),                      # overlapping (surjective takes it)
    ([fld(I, 4)], {"i": 24}, "bijective"),                            # i % 4 is never read
    ([I * J], {"i": 3, "j": 4}, "surjective"),                         # a product of iterators
])
def test_what_is_not_an_independent_map_is_refused_with_a_reason(indices, extents, level):
    res = tvm.arith.detect_iter_map(indices, dom(**extents), check_level=level)
    assert res.indices == [] and res.errors


def test_a_predicate_shrinks_the_fused_iterator_to_the_points_that_satisfy_it():
    d = dom(i=5, j=8)
    pred = tir.all(I * 8 + J >= 3, I * 8 + J < 30)
    res = tvm.arith.detect_iter_map([I * 8 + J], d, predicate=pred)
    assert len(res.indices) == 1, res.errors
    (s,) = res.indices
    values = sorted(evaluate(I * 8 + J, env) for env in points(d, pred))
    assert int(s.args[0].extent.value) == len(values) and evaluate(s.base, {}) == values[0]


def test_subspace_divide_and_the_inverse_map_rebuild_the_indices():
    d = dom(i=4, j=6, k=2)
    bindings = [I * 6 + J, K]
    parts = tvm.arith.subspace_divide(bindings, d, [J, K])
    assert len(parts) == 3
    for (outer, inner), b in zip(parts[:-1], bindings):
        o = tvm.arith.normalize_iter_map_to_expr(outer.source)
        n = tvm.arith.normalize_iter_map_to_expr(inner.source)
        for env in points(d):
            assert evaluate(o, env) * evaluate(inner.extent, env) + evaluate(n, env) == evaluate(b, env)
    assert tvm.arith.subspace_divide([fld(I * 6 + J, 3), flm(I * 6 + J, 3)], d, [J]) == []  # 3 cuts j's extent
    d = dom(i=4, j=6)
    bindings = [fld(I * 6 + J, 3), flm(I * 6 + J, 3)]
    res = tvm.arith.detect_iter_map(bindings, d)
    outs = [tir.Var("o0", "int32"), tir.Var("o1", "int32")]
    inverse = tvm.arith.inverse_affine_iter_map(res.indices, outs)
    for env in points(d):
        out_env = {outs[0]: evaluate(bindings[0], env), outs[1]: evaluate(bindings[1], env)}
        assert evaluate(inverse[I], out_env) == env[I] and evaluate(inverse[J], out_env) == env[J]


def test_a_region_estimate_is_the_set_the_region_sweeps():
    d = dom(i=16)
    region = [tvm.ir.Range.from_min_extent(I * 4, 6)]                 # overlapping windows: no gaps
    (got,) = tvm.arith.estimate_region_lower_bound(region, d, True)
    swept = {I_val * 4 + t for I_val in range(16) for t in range(6)}
    assert (evaluate(got.min_value, {}), evaluate(got.max_value, {})) == (min(swept), max(swept))
    gappy = [tvm.ir.Range.from_min_extent(I * 4, 2)]                  # windows leave gaps
    assert tvm.arith.estimate_region_lower_bound(gappy, d, True) is None
    (up,) = tvm.arith.estimate_region_upper_bound(gappy, d, True)
    assert (evaluate(up.min_value, {}), evaluate(up.max_value, {})) == (0, 61)
