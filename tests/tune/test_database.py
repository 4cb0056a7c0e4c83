"""autotvm's in-memory database: results per trial key (the configuration and its code hash
included), the latest by timestamp, every one on request, filters over keys."""

from __future__ import annotations

import copy

from tune.autotvm.database import DummyDatabase
from tune.autotvm.measure import MeasureResult
from tune.autotvm.record import encode
from tune.autotvm.testing import get_sample_records


def _at(res, timestamp):
    return MeasureResult(*list(res)[:-1], timestamp)


def test_saved_results_load_back_by_their_trial():
    (a, ra), (b, rb), (c, _) = get_sample_records(3)
    db = DummyDatabase()
    db.save(a, ra)
    db.save(b, rb)
    assert db.load(a) == ra and db.load(b) == rb and db.load(c) is None
    db.save(a, rb)  # without extend: replaces
    assert db.load(a) == rb and db.load(a, get_all=True) == [rb]
    db.flush()
    assert db.load(b) is None


def test_extended_results_give_the_latest_and_all_in_order():
    inp, res = get_sample_records(1)[0]
    db = DummyDatabase()
    for t in (5.0, 1.0, 9.5):
        db.save(inp, _at(res, t), extend=True)
    assert db.load(inp).timestamp == 9.5
    assert [encode(inp, r) for r in db.load(inp, get_all=True)] == [encode(inp, _at(res, t)) for t in (5.0, 1.0, 9.5)]


def test_the_code_hash_is_part_of_the_key():
    a, res = get_sample_records(1)[0]
    b = copy.deepcopy(a)
    a.config.code_hash, b.config.code_hash = "aaaa", "bbbb"
    db = DummyDatabase()
    db.save(a, _at(res, 1.0))
    db.save(b, _at(res, 2.0))
    assert db.load(a).timestamp == 1.0 and db.load(b).timestamp == 2.0


def test_filter_keeps_the_keys_a_predicate_accepts():
    records = get_sample_records(5)
    db = DummyDatabase()
    for inp, res in records:
        db.save(inp, res)
    cheap = db.filter(lambda inp, results: any(r.costs[0] <= 2 for r in results))
    assert sorted(r.costs[0] for _, r in cheap) == sorted(r.costs[0] for _, r in records if r.costs[0] <= 2)
    assert len(cheap) >= 1 and len(cheap) < len(records)
