"""TVM's ``tvm.te``: the DSL and the schedule language (``schedule``'s face), with
``te.schedule``, ``te.hybrid``, ``te.gradient``, ``te.extern``, ``te.decl_tensor_intrin`` ..."""

from schedule import *  # noqa: F403
from schedule import hybrid, schedule  # noqa: F401
