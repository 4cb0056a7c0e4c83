"""What runs a lowered function: Python source executed on flat lists (the checked reference)."""

from __future__ import annotations

from lower.backend.python_stmt import compile_source, python_source
from lower.backend.runtime import BarrierDivergenceError, OutOfBoundsError
