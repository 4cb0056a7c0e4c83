"""TVM's ``auto_scheduler.measure_record``: logs of loop states (TVM's JSON lines), and the
logs a search here writes (autotvm's lines), read by the same ``load_records``."""

from pathlib import Path
from typing import Any

from tune.auto_scheduler.measure import RecordToFile
from tune.auto_scheduler.measure import load_records as _load_search_records
from tune.auto_scheduler.records import (
    RecordReader,
    dump_record_to_string,
    load_best_record,
    load_record_from_string,
    save_records,
)


def load_records(filename: Any) -> list[Any]:
    """The (input, result) pairs of the log *filename*: loop-state records, or the records of
    a search here."""
    path = Path(filename)
    first = next((line for line in path.read_text().splitlines() if line.strip()), "") if path.exists() else ""
    if first.lstrip().startswith('{"i"'):
        return list(RecordReader(filename))
    return _load_search_records(filename)


__all__ = ["RecordReader", "RecordToFile", "dump_record_to_string", "load_best_record", "load_record_from_string",
           "load_records", "save_records"]
