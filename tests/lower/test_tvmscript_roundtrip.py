"""Print, parse, compare, build: every lowered function of random schedules, in both modes,
reads back from its TVMScript structurally equal, prints the same text again, and the
function read back computes NumPy's numbers into the user's arrays."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

from lower import LoweringError, lower, reference
from lower.build import build_lowered
from lower.ir.script.function import function_script
from lower.ir.stmt_functor import ir_transform
from lower.ir.structural_equal import first_difference
from lower.tvmscript import from_source

from ..strategies import describe, pipelines, schedules


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(st.data())
def test_random_schedules_read_back_from_their_tvmscript(data):
    p = data.draw(pipelines(max_computes=4, max_extent=5))
    s = data.draw(schedules(p))
    exact = data.draw(st.booleans())
    note(describe(s))
    args = [*p.placeholders, *p.outputs]
    try:
        f = lower(s, args, exact=exact)
    except LoweringError:
        return
    # TVM's lowered code has no produce markers, and TVMScript none to print.
    f.body = ir_transform(f.body, None, lambda n: n.body, ["tir.ProducerConsumer"])
    text = function_script(f)
    note(text)
    g = from_source(text)
    assert first_difference(f, g) is None
    assert function_script(g) == text
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    inputs = {t: rng.integers(-3, 4, size=p.shape).astype("float32") for t in p.placeholders}
    expected = reference(p.outputs, inputs)
    outs = [np.full(p.shape, np.nan, dtype="float32") for _ in p.outputs]
    build_lowered(g, "python")(*(inputs[t] for t in p.placeholders), *outs)
    for t, out in zip(p.outputs, outs):
        assert np.array_equal(out, expected[t]), t.name
