"""TVM's ``tvm.autotvm.database``: ``tune.autotvm.database``."""

from tune.autotvm.database import Database, DummyDatabase

__all__ = ["Database", "DummyDatabase"]
