"""tebound: the schedule language (``schedule``), bound inference (``bound``), lowering and
execution (``lower``) and tuning (``tune``); ``tebound.tvm`` is the same under TVM's names, so a
TVM program runs after ``import tvm`` becomes ``import tebound.tvm as tvm``."""

__version__ = "0.1.0"
