"""``print(infer_bound(s))`` is a table of stage, iter var, min and extent (the rebased copies
of root loops marked), and the result is still the dict of ranges."""

from __future__ import annotations

import pickle

from bound import infer_bound

from ..lower.test_exact_default import example6


def test_infer_bound_prints_a_table_in_stage_order():
    s, _ = example6()
    bounds = infer_bound(s, exact=False)
    lines = str(bounds).split("\n")
    assert lines[0].split() == ["stage", "iter", "var", "min", "extent"]
    rows = [line.split() for line in lines[1:]]
    assert [r[0] for r in rows] == ["B"] * 4 + ["C"] * 5
    assert [" ".join(r[1:-2]) for r in rows] == ["i", "j", "i (rebased)", "j (rebased)", "i", "j", "i.j.fused",
                                                 "i.j.fused.outer", "i.j.fused.inner"]
    assert [r[-1] for r in rows] == ["4", "4", "4", "4", "4", "4", "16", "4", "4"]
    assert repr(bounds) == str(bounds) and len(bounds) == 9
    C = s.outputs[0]
    assert bounds[C.axis[0]].extent.value == 4  # still the dict of ranges
    copy = pickle.loads(pickle.dumps(bounds))
    assert str(copy).split("\n")[0] == lines[0] and len(copy) == 9


def test_exact_mode_prints_its_named_bounds():
    s, _ = example6()
    rows = [line.split() for line in str(infer_bound(s, exact=True)).split("\n")[1:]]
    assert rows[0] == ["B", "i", "i.j.fused.outer", "1"]
