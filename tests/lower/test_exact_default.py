"""One switch for the default bound mode: a ``PassContext`` key and ``$TEBOUND_EXACT``, under
what a call passes as ``exact=``."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from bound import explain, infer_bound
from lower import PassContext, build, lower


def example6():
    """The README's first example: the modes give B different regions."""
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda i, j: A[i, j] + 2, name="B")
    C = te.compute((4, 4), lambda i, j: B[i, j] * 3, name="C")
    s = te.create_schedule(C.op)
    fused = s[C].fuse(C.op.axis[0], C.op.axis[1])
    xo, _ = s[C].split(fused, 4)
    s[B].compute_at(s[C], xo)
    return s, [A, C]


def test_the_modes_differ_on_the_example():
    s, args = example6()
    assert str(lower(s, args, exact=True)) != str(lower(s, args, exact=False))


def test_the_context_and_the_environment_set_the_default(monkeypatch):
    s, args = example6()
    exact, faithful = str(lower(s, args, exact=True)), str(lower(s, args, exact=False))
    monkeypatch.delenv("TEBOUND_EXACT", raising=False)
    assert str(lower(s, args)) == exact  # our packages' default
    with PassContext(config={"tebound.exact": False}):
        assert str(lower(s, args)) == faithful
        assert explain(s).exact is False
        assert str(lower(s, args, exact=True)) == exact  # a call's own exact= wins
    monkeypatch.setenv("TEBOUND_EXACT", "0")
    assert str(lower(s, args)) == faithful
    with PassContext(config={"tebound.exact": True}):  # the context is above the environment
        assert str(lower(s, args)) == exact
    bounds = infer_bound(s)
    assert bounds == infer_bound(s, exact=False)
    a = np.arange(16, dtype="float32").reshape(4, 4)
    out = np.full((4, 4), np.nan, "float32")
    build(s, args)(a, out)
    np.testing.assert_array_equal(out, (a + 2) * 3)


def test_a_bad_switch_is_named(monkeypatch):
    s, args = example6()
    monkeypatch.setenv("TEBOUND_EXACT", "yes")
    with pytest.raises(ValueError, match=r"\$TEBOUND_EXACT is 'yes'; set it to 1 \(exact bounds\) or 0"):
        lower(s, args)
    with pytest.raises(TypeError, match="lower: exact= must be True or False, not 'no' \\(or None, the default mode"):
        lower(s, args, exact="no")
    with pytest.raises(ValueError, match="'tebound.exact' is True or False"):
        PassContext(config={"tebound.exact": 1})
