"""Logs as TVM's autotvm tests use them: encode/decode with the json and pickle protocols, and
log_to_file / load_from_file on open files (StringIO included) as well as paths."""

from __future__ import annotations

import base64
import io
import os
import pickle

import pytest

from tune.autotvm import record
from tune.autotvm.callback import log_to_file

from .test_report import _records


@pytest.mark.parametrize("protocol", ["json", "pickle"])
def test_a_record_round_trips_in_either_protocol(protocol):
    for inp, res in _records():
        line = record.encode(inp, res, protocol)
        assert ("{" in line) == (protocol == "json")
        inp2, res2 = record.decode(line, protocol)
        assert (inp2.target, inp2.task.name, inp2.task.args) == (inp.target, inp.task.name, inp.task.args)
        assert inp2.config.index == inp.config.index and res2.costs == res.costs and res2.error_no == res.error_no


def test_a_json_record_names_the_hosts_load_beside_the_timing_and_tvms_keys_stay():
    import json

    inp, res = _records()[0]
    row = json.loads(record.encode(inp, res))
    assert set(row) == {"input", "config", "result", "version", "load"}
    assert isinstance(row["load"], float) and abs(row["load"] - os.getloadavg()[0]) < 5
    assert len(row["result"]) == 4  # TVM's four fields, as its readers take them


def test_a_pickled_line_holding_code_is_not_a_record():
    line = base64.b64encode(pickle.dumps({"input": os.system})).decode()
    with pytest.raises(record.NotARecord, match="only plain data, not posix.system"):
        record.decode(line, "pickle")
    with pytest.raises(record.NotARecord):
        record.decode("not base64 at all!", "pickle")
    with pytest.raises(ValueError, match="protocol is 'json' or 'pickle', not 'xml'"):
        record.decode("{}", "xml")


def test_logs_go_to_open_files_and_come_back_from_them(tmp_path):
    records = _records()
    buffer = io.StringIO()
    write = log_to_file(buffer)
    write(None, [i for i, _ in records], [r for _, r in records])
    loaded = list(record.load_from_file(io.StringIO(buffer.getvalue())))
    assert [i.config.index for i, _ in loaded] == [i.config.index for i, _ in records]
    path = tmp_path / "tune.log"
    log_to_file(str(path), protocol="pickle")(None, [i for i, _ in records], [r for _, r in records])
    with open(path, "rb") as f:  # an open binary file, pickle protocol lines
        lines = f.read().decode().splitlines()
    assert [record.decode(line, "pickle")[0].config.index for line in lines] == list(range(6))
    with open(tmp_path / "json.log", "w") as f:
        log_to_file(f)(None, [records[0][0]], [records[0][1]])
    with open(tmp_path / "json.log", "rb") as f:
        assert [i.config.index for i, _ in record.load_from_file(f)] == [0]


def test_py_path_paths_are_paths_not_open_files(tmpdir):
    """pytest's ``tmpdir / "x.log"`` (py.path) has ``read`` and ``write`` methods: it is still
    written by appending and read as a path (it used to be taken for an open file)."""
    from tune.autotvm import ApplyHistoryBest

    records = _records()
    path = tmpdir / "x.log"
    write = log_to_file(path)
    write(None, [r[0] for r in records[:2]], [r[1] for r in records[:2]])
    write(None, [r[0] for r in records[2:]], [r[1] for r in records[2:]])
    back = list(record.load_from_file(path))
    assert [(i.config.index, r.costs) for i, r in back] == [(i.config.index, r.costs) for i, r in records]
    best = min(records, key=lambda r: r[1].mean)
    assert str(ApplyHistoryBest(path).query("c", best[0].task.workload)) == str(best[0].config)
    assert back[0][0][2].index == back[0][0].config.index  # a MeasureInput is a named tuple, as TVM's
