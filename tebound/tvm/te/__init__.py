"""TVM's ``tvm.te``: the DSL and the schedule language (``schedule``'s face), with
``te.schedule`` (our ``schedule.schedule`` plus TVM's ``InferBound`` and ``ScheduleOps``),
``te.tensor`` (``Tensor``, ``Operation``),
``te.hybrid``, ``te.gradient``, ``te.extern``, ``te.decl_tensor_intrin`` ..."""

# isort: off
from schedule import *  # noqa: F403

# The submodules replace the names ``schedule`` and ``hybrid`` the line above brought.
import tebound.tvm.te.schedule  # noqa: E402,F401
from tebound.tvm.te import hybrid, tensor, test_hooks  # noqa: E402,F401
# isort: on
