"""TVM's ``tvm.te``: the DSL and the schedule language (``schedule``'s face), with
``te.schedule`` (our ``schedule.schedule`` plus TVM's ``InferBound`` and ``ScheduleOps``),
``te.tensor`` (``Tensor``, ``Operation``),
``te.hybrid``, ``te.gradient``, ``te.extern``, ``te.decl_tensor_intrin`` ..."""

# isort: off
from schedule import *  # noqa: F403
from schedule import hybrid  # noqa: F401

# The submodule replaces the name ``schedule`` the line above brought (our schedule.schedule).
import tebound.tvm.te.schedule  # noqa: E402,F401
from tebound.tvm.te import tensor  # noqa: E402,F401
# isort: on
