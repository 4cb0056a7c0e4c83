"""The targets ``build`` compiles for, by name."""

from __future__ import annotations

from lower.backend.c.kernel import CKernel
from lower.backend.python.kernel import PythonKernel

#: The targets ``build`` compiles for, by name; intrinsic lowering rules are looked up under
#: the target's name (beside "default").
TARGETS = {"python": PythonKernel, "c": CKernel}
