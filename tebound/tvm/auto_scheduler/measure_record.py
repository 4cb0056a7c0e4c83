"""TVM's ``auto_scheduler.measure_record``: logs of loop states (TVM's JSON lines), and the
logs of the configuration space (autotvm's lines), read by the same ``load_records``."""

from tune.auto_scheduler.measure import RecordToFile
from tune.auto_scheduler.records import (
    RecordReader,
    dump_record_to_string,
    load_best_record,
    load_record_from_string,
    save_records,
)
from tune.auto_scheduler.records import load_any_records as load_records

__all__ = ["RecordReader", "RecordToFile", "dump_record_to_string", "load_best_record", "load_record_from_string",
           "load_records", "save_records"]
