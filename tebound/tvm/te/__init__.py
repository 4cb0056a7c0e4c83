"""TVM's ``tvm.te``: the DSL and the schedule language (``schedule``'s face), with
``te.schedule`` (our ``schedule.schedule`` plus TVM's ``InferBound`` and ``ScheduleOps``),
``te.hybrid``, ``te.gradient``, ``te.extern``, ``te.decl_tensor_intrin`` ..."""

import importlib

from schedule import *  # noqa: F403
from schedule import hybrid  # noqa: F401

# Imported by name: ``schedule`` from the line above is the package's own module, which the
# submodule of the same name replaces here.
schedule = importlib.import_module("tebound.tvm.te.schedule")
