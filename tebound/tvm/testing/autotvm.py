"""TVM's ``tvm.testing.autotvm``: ``tune.autotvm.testing``."""

from tune.autotvm.testing import DummyRunner, bad_matmul, get_sample_records, get_sample_task, matmul

__all__ = ["DummyRunner", "bad_matmul", "get_sample_records", "get_sample_task", "matmul"]
