"""TVM's ``tvm.autotvm.record``: ``tune.autotvm.record``, and ``ApplyHistoryBest`` as TVM's
module has it."""

from tune.autotvm.history import ApplyHistoryBest
from tune.autotvm.record import decode, encode, load_from_file, measure_str_key, pick_best

__all__ = ["ApplyHistoryBest", "decode", "encode", "load_from_file", "measure_str_key", "pick_best"]
