"""TVM's ``tvm.autotvm.record``: ``tune.autotvm.record``, and ``ApplyHistoryBest`` as TVM's
module has it (with ``MeasureInput``/``MeasureResult``, which TVM's imports there)."""

from tune.autotvm.history import ApplyHistoryBest
from tune.autotvm.measure import MeasureInput, MeasureResult
from tune.autotvm.record import decode, encode, load_from_file, measure_str_key, pick_best

__all__ = ["ApplyHistoryBest", "MeasureInput", "MeasureResult", "decode", "encode", "load_from_file",
           "measure_str_key", "pick_best"]
