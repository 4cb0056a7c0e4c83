"""TVM's test_autotvm_record (v0.14), written anew: records through both protocols, logs
written to files and StringIO and read back, and ApplyHistoryBest on every kind of source."""

import os
import tempfile
import time
from io import StringIO
from pathlib import Path

from tvm import autotvm
from tvm.autotvm.measure import MeasureErrorNo, MeasureInput, MeasureResult
from tvm.autotvm.record import ApplyHistoryBest, decode, encode, measure_str_key
from tvm.contrib import utils
from tvm.testing.autotvm import get_sample_task


def test_encode_decode_round_trip():
    task, target = get_sample_task()
    inp = MeasureInput(target, task, task.config_space.get(0))
    res = MeasureResult((2.0, 2.23, 0.23, 0.123, 0.234, 0.123), MeasureErrorNo.NO_ERROR, 2.3, time.time())
    for protocol in ("json", "pickle"):
        inp2, res2 = decode(encode(inp, res, protocol=protocol), protocol=protocol)
        assert measure_str_key(inp) == measure_str_key(inp2)
        assert (res.costs, res.error_no, res.timestamp) == (res2.costs, res2.error_no, res2.timestamp)


def test_log_file_round_trip():
    temp = utils.tempdir()  # the folder lives as long as this object
    path = temp.relpath("records.log")
    task, target = get_sample_task()
    inputs = [MeasureInput(target, task, task.config_space.get(i)) for i in range(10)]
    results = [MeasureResult((i,), 0, 0, 0) for i in range(10)]
    broken = MeasureInput(target, task, task.config_space.get(10))
    broken.config._entity_map = {}  # an entity without knobs is written, and ignored by the zip below
    with open(path, "w") as out:
        log = autotvm.callback.log_to_file(out)
        log(None, inputs, results)
        log(None, [broken], [MeasureResult((10,), 0, 0, 0)])
    for (_, res), (_, back) in zip(zip(inputs, results), autotvm.record.load_from_file(path)):
        assert res == back
    best = ApplyHistoryBest([path, path])
    assert str(best.query(target, task.workload)) == str(inputs[0].config)


def write_log(path, inputs, results):
    with open(path, "w") as out:
        autotvm.callback.log_to_file(out)(None, inputs, results)


def check_every_source(folder):
    task, target = get_sample_task()
    best = str(task.config_space.get(2))
    inputs = [MeasureInput(target, task, task.config_space.get(i)) for i in range(3)]
    results = [MeasureResult((1,), 0, 0, 0), MeasureResult((2,), 0, 0, 0), MeasureResult((0.5,), 0, 2.3, 0)]
    path = folder / "batch_1.log"
    write_log(path, inputs, results)
    assert isinstance(path, os.PathLike)
    buffer = StringIO()
    autotvm.callback.log_to_file(buffer)(None, inputs, results)
    buffer.seek(0)
    for source in (path, str(path), buffer, list(zip(inputs, results)), zip(inputs, results)):
        assert str(ApplyHistoryBest(source).query(target, task.workload)) == best


def check_several_batches(folder):
    task, target = get_sample_task()
    best = str(task.config_space.get(2))
    first = [MeasureInput(target, task, task.config_space.get(i)) for i in range(2)]
    first_results = [MeasureResult((1,), 0, 0, 0), MeasureResult((2,), 0, 0, 0)]
    second = [MeasureInput(target, task, task.config_space.get(i)) for i in range(2, 4)]
    second_results = [MeasureResult((0.5,), 0, 0, 0), MeasureResult((3,), 0, 0, 0)]
    path1, path2 = folder / "batch_1.log", folder / "batch_2.log"
    write_log(path1, first, first_results)
    write_log(path2, second, second_results)
    for source in ([path1, path2], zip([path1, path2]),
                   zip([zip(first, first_results), zip(second, second_results)])):
        assert str(ApplyHistoryBest(source).query(target, task.workload)) == best


def test_apply_history_best():
    with tempfile.TemporaryDirectory() as folder:
        check_every_source(Path(folder))


def test_apply_history_best_multiple_batches():
    with tempfile.TemporaryDirectory() as folder:
        check_several_batches(Path(folder))


if __name__ == "__main__":
    test_encode_decode_round_trip()
    test_log_file_round_trip()
    test_apply_history_best()
    test_apply_history_best_multiple_batches()
