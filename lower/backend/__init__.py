"""What runs a lowered function, one package per target: ``python`` (source executed on flat
lists, checked: the reference) and ``c`` (C compiled by the system compiler). A target is a
class built from the flattened body, its buffers and scalar parameters, with ``source`` and a
call on NumPy arrays; a further target is a package beside these and an entry in
``lower.backend.targets.TARGETS``."""

from lower.backend.c.kernel import CKernel
from lower.backend.python.kernel import PythonKernel
from lower.backend.python.runtime import BarrierDivergenceError, OutOfBoundsError, UnwrittenReadError
from lower.backend.python.stmt import compile_source, python_source
from lower.backend.targets import TARGETS

__all__ = ["TARGETS", "BarrierDivergenceError", "CKernel", "OutOfBoundsError", "PythonKernel", "UnwrittenReadError",
           "compile_source", "python_source"]
