"""Schedules, tensors and lowered functions survive pickle and save_json/load_json (TVM's
test_schedule_create): the copy lowers to the same text and builds equal to NumPy."""

from __future__ import annotations

import json
import pickle
from pathlib import Path

import numpy as np
import pytest

import schedule as te
from lower import BuiltFunc, build, lower

from ..ports.test_tvm_schedule import schedule_create

ROUND_TRIPS = {"pickle": lambda x: pickle.loads(pickle.dumps(x)), "json": lambda x: te.load_json(te.save_json(x))}


@pytest.mark.parametrize("how", sorted(ROUND_TRIPS))
def test_schedule_create_round_trip(how):
    s, A, B, T = schedule_create()
    s2, A2, B2, T2 = ROUND_TRIPS[how]((s, A, B, T))
    assert isinstance(s2, te.Schedule) and s2 is not s
    assert str(s2.outputs[0].body) == str(s.outputs[0].body)
    # Shared objects stay shared: the loaded stage's leaves are the loaded op's axes.
    assert T2.op.axis[1] in s2[T2].leaf_iter_vars and T.op.axis[1] not in s2[T2].leaf_iter_vars
    for exact in (False, True):
        assert str(lower(s2, [A2, B2, T2], exact=exact)) == str(lower(s, [A, B, T], exact=exact))
    rng = np.random.default_rng(0)
    a, b = rng.integers(-3, 4, (23, 5)).astype("float32"), rng.integers(-3, 4, (4, 5)).astype("float32")
    t = np.full((23, 4, 5), np.nan, "float32")
    build(s2, [A2, B2, T2])(a, b, t)
    np.testing.assert_array_equal(t, a[:, None, :] * b[None, :, :])


@pytest.mark.parametrize("how", sorted(ROUND_TRIPS))
def test_a_reduction_copy_keeps_working(how):
    """A copied reduction axis is still one (a new compute may not use it outside a reduction),
    and the copy's expressions hash as they compare."""
    A = te.placeholder((6, 7), name="A")
    k = te.reduce_axis((0, 7), name="k")
    S = te.compute((6,), lambda i: te.sum(A[i, k], axis=k), name="S")
    s = te.create_schedule(S.op)
    s[S].split(S.op.reduce_axis[0], factor=3)
    s2, A2, S2 = ROUND_TRIPS[how]((s, A, S))
    k2 = S2.op.reduce_axis[0]
    with pytest.raises(te.ScheduleError):
        te.compute((6,), lambda i: A2[i, k2], name="bad")
    body = S2.op.body[0]
    assert len({body, body.source[0]}) == 2 and body.source[0] in {body.source[0]}
    a = np.arange(42, dtype="float32").reshape(6, 7)
    out = np.full(6, np.nan, "float32")
    build(s2, [A2, S2])(a, out)
    np.testing.assert_array_equal(out, a.sum(axis=1))


def test_lowered_functions_pickle():
    s, A, B, T = schedule_create()
    f = lower(s, [A, B, T])
    g = pickle.loads(pickle.dumps(f))
    assert str(g) == str(f) and [t.name for t in g.tensors] == ["A", "B", "T"]
    a, b = np.arange(115, dtype="float32").reshape(23, 5), np.arange(20, dtype="float32").reshape(4, 5)
    t = np.full((23, 4, 5), np.nan, "float32")
    BuiltFunc(g, True, "python")(a, b, t)  # the copy runs
    np.testing.assert_array_equal(t, a[:, None, :] * b[None, :, :])


def test_a_thousand_stage_pipeline_round_trips_as_json():
    A = te.placeholder((4,), name="A")
    t = A
    for k in range(1000):
        t = te.compute((4,), (lambda p: lambda i: p[i] + 1.0)(t), name=f"T{k}")
    s = te.create_schedule(t.op)
    s2, A2, t2 = te.load_json(te.save_json((s, A, t)))
    assert len(s2.stages) == 1001
    out = np.full(4, np.nan, "float32")
    build(s2, [A2, t2])(np.zeros(4, "float32"), out)
    np.testing.assert_array_equal(out, np.full(4, 1000.0, "float32"))


def test_save_json_refuses_what_has_no_json_form():
    with pytest.raises(TypeError, match=r"save_json: a builtins.function .* has no JSON form"):
        te.save_json([lambda: 0])


@pytest.mark.parametrize(("text", "message"), [
    ("not json", "not JSON text"),
    ('{"format": "other"}', "not a document save_json wrote"),
    (json.dumps({"format": "tebound-json", "version": 1, "root": {"ref": 0},
                 "nodes": [{"class": "os:system", "state": {}}]}), r"class 'os:system' is not one of this project's"),
    (json.dumps({"format": "tebound-json", "version": 1, "root": {"ref": 0},
                 "nodes": [{"class": "schedule.nothing:X", "state": {}}]}), "no class 'schedule.nothing:X'"),
    (json.dumps({"format": "tebound-json", "version": 1, "root": {"oops": 1}, "nodes": []}), "unreadable value"),
])
def test_load_json_refuses_foreign_documents(text, message):
    with pytest.raises(ValueError, match=message):
        te.load_json(text)


def test_nesting_and_missing_fields_are_errors_not_crashes():
    nested: list = []
    for _ in range(5000):
        nested = [nested]
    with pytest.raises(TypeError, match="nests too deeply"):
        te.save_json(nested)
    with pytest.raises(ValueError, match="nests deeper"):
        te.load_json('{"format": "tebound-json", "version": 1, "root": ' + "[" * 100000 + "]" * 100000 + ', "nodes": []}')
    doc = json.loads(te.save_json(te.placeholder((2,), name="A")))
    doc["nodes"][0]["state"] = {}
    with pytest.raises(ValueError, match=r"node 0 \(Tensor\) lacks op$"):  # value_index has a default
        te.load_json(json.dumps(doc))


def test_text_and_pickles_saved_before_the_split_into_layers_still_load():
    """tests/data/saved_before_layers.*: a cached, attached matmul + 1, its schedule and its lowered
    function, saved by the flat layout (``schedule.expr``, ``schedule.tensor`` ... ;
    tests/data/make_saved_before_layers.py); they load, lower to the same text and build."""
    data = Path(__file__).resolve().parents[1] / "data"
    text = (data / "saved_before_layers.json").read_text()
    assert '"schedule.expr:' in text and '"schedule.tensor:' in text  # the old module names
    blob = (data / "saved_before_layers.pickle").read_bytes()
    assert b"schedule.tensor" in blob
    rng = np.random.default_rng(0)
    a, b = rng.random((8, 6), dtype="float32"), rng.random((6, 4), dtype="float32")
    for A, B, D, s, f in (te.load_json(text), pickle.loads(blob)):
        assert type(D.op).__module__ == "schedule.operation.compute"
        assert str(lower(s, [A, B, D])) == str(f)
        out = np.full((8, 4), np.nan, "float32")
        build(s, [A, B, D])(a, b, out)
        np.testing.assert_allclose(out, a @ b + 1, rtol=1e-5)


def test_an_old_module_name_is_the_module_that_now_holds_the_code():
    """A patch through an old name reaches the code (no copy); a split module finds each name;
    the packages give old submodules as attributes (``te.tensor``), as they did."""
    import importlib

    import bound
    import lower
    from schedule.ir import expr

    assert importlib.import_module("schedule.expr") is expr
    assert te.expr is expr and te.tensor.ComputeOp is te.ComputeOp
    assert bound.infer.infer_bound is bound.infer_bound and lower.stmt.For is lower.For
    with pytest.raises(AttributeError, match="module 'lower' has no attribute 'nothing'"):
        _ = lower.nothing
    assert importlib.import_module("schedule.tensor").ComputeOp is te.ComputeOp
    with pytest.raises(AttributeError, match="moved"):
        _ = importlib.import_module("schedule.tensor").nothing
