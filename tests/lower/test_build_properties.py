"""Random pipelines under random schedules run to exactly the reference result, in both modes,
with every load and store checked against its realized region."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import schedule as te
from lower import LoweringError, build, lower, reference

from ..strategies import describe, gpu_schedules, instantiate, pipelines, recipes, schedules

_SETTINGS = dict(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def _check(data, p, s, *, allow_unplaceable: bool) -> None:
    """Build *s* in both modes and compare every output with the reference evaluation."""
    note(describe(s))
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    inputs = {t: rng.integers(-3, 4, size=p.shape).astype("float32") for t in p.placeholders}
    expected = reference(p.outputs, inputs)
    args = [*p.placeholders, *p.outputs]
    for exact in (False, True):
        try:
            f = build(s, args, exact=exact)
        except LoweringError:
            if allow_unplaceable:
                return  # a placement no loop nest can realize (tested elsewhere)
            raise
        note(str(lower(s, args, exact=exact)))
        outs = [np.full(p.shape, np.nan, dtype="float32") for _ in p.outputs]
        f(*(inputs[t] for t in p.placeholders), *outs)
        for t, out in zip(p.outputs, outs):
            assert np.array_equal(out, expected[t]), (t.name, exact)


@settings(max_examples=80, **_SETTINGS)
@given(st.data())
def test_every_schedule_computes_the_reference_result(data):
    p = data.draw(pipelines(max_computes=5, max_extent=5))
    _check(data, p, data.draw(schedules(p)), allow_unplaceable=True)


@settings(max_examples=60, **_SETTINGS)
@given(st.data())
def test_gpu_style_schedules_compute_the_reference_result(data):
    """Blocks, threads, shared and local stages and caches, run with the GPU's semantics."""
    p = data.draw(pipelines(max_computes=4, max_extent=5))
    _check(data, p, data.draw(gpu_schedules(p)), allow_unplaceable=False)


@settings(max_examples=40, **_SETTINGS)
@given(st.data())
def test_symbolic_pipelines_compute_the_reference_result_at_every_size(data):
    """One build of a pipeline over (n, m) runs on arrays of two sizes, in both modes."""
    recipe = data.draw(recipes(max_computes=4))
    n, m = te.var("n"), te.var("m")
    p = instantiate(recipe, (n, m))
    s = data.draw(st.one_of(schedules(p), gpu_schedules(p)))
    note(describe(s))
    args = [*p.placeholders, *p.outputs]
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    for exact in (False, True):
        try:
            f = build(s, args, exact=exact)
        except LoweringError:
            return  # a placement no loop nest can realize (tested elsewhere)
        for shape in [(2, 3), (data.draw(st.integers(1, 5)), data.draw(st.integers(1, 5)))]:
            concrete = instantiate(recipe, shape)
            values = [rng.integers(-3, 4, size=shape).astype("float32") for _ in p.placeholders]
            expected = reference(concrete.outputs, dict(zip(concrete.placeholders, values)))
            outs = [np.full(shape, np.nan, dtype="float32") for _ in p.outputs]
            f(*values, *outs)
            for t, out in zip(concrete.outputs, outs):
                assert np.array_equal(out, expected[t]), (t.name, exact, shape)
