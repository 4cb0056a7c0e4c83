"""TVM's ``te.hybrid.build`` and ``HybridModule``: a hybrid script's schedule, built, as a
callable that takes the script's arguments (arrays and numbers) and returns its outputs. It
saves the script's Python source, and a module loaded from such a file runs that source on
NumPy arrays, as TVM's does."""

from __future__ import annotations

import ast
from collections.abc import Sequence
from typing import Any

import numpy as np

from lower.binding import bind_shapes
from lower.build import build as _build
from schedule.base.errors import ScheduleError
from schedule.ir.evaluate import evaluate
from schedule.ir.expr import Var
from schedule.operation.hybrid import HYBRID_GLOBALS
from schedule.operation.hybrid.op import HybridOp
from schedule.operation.hybrid.parser import parse, script_of
from schedule.operation.hybrid.runtime import emulate
from schedule.operation.tensor import Tensor


class HybridModule:
    """A built hybrid script (from :func:`build`), or one loaded from a saved source file."""

    def __init__(self, src: str | None = None, name: str | None = None) -> None:
        self.src, self.name = src, name
        self._kernel: Any = None
        self._args: list[Any] = []
        self._outs: list[Tensor] = []
        self._func: Any = None
        self._call: tuple[Any, ...] = ()  # the arguments of the call that built the script
        if src is not None:
            self._compile(src)

    def _compile(self, src: str) -> None:
        tree = ast.parse(src)
        fdef = next((n for n in tree.body if isinstance(n, ast.FunctionDef)), None)
        if fdef is None:
            raise ValueError("HybridModule: the source holds no function definition")
        namespace: dict[str, Any] = dict(HYBRID_GLOBALS)
        exec(compile(src, f"<hybrid {fdef.name}>", "exec"), namespace)  # the user's own saved script
        self.src, self.name, self._func = src, self.name or fdef.name, namespace[fdef.name]

    def __call__(self, *args: Any) -> Any:
        """The script's outputs for *args* (a single output as it is, several as a list): on
        tensors, the script's operation, as a script called on tensors gives it."""
        if self._func is None:
            raise ValueError("HybridModule: nothing built or loaded yet; use te.hybrid.build or load()")
        if any(isinstance(a, Tensor) for a in args):
            return parse(self._func, self._with_constants(args), source=None if self._kernel is not None else self.src)
        if self._kernel is None:
            return emulate(self._func, args)
        if len(args) != len(self._args):
            raise TypeError(f"HybridModule '{self.name}' takes {len(self._args)} arguments, {len(args)} given")
        values = [np.asarray(a) if hasattr(a, "shape") else a for a in args]
        env = bind_shapes(self._args, values, {})
        outs = [np.zeros(tuple(int(evaluate(d, env)) for d in t.shape), dtype=t.dtype) for t in self._outs]
        self._kernel(*values, *outs)
        return outs[0] if len(outs) == 1 else outs

    def _with_constants(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        """*args* (tensors and variables) with the script's other arguments, as first given."""
        if not self._call:
            return args
        given = iter(args)
        return tuple(next(given, None) if isinstance(a, (Tensor, Var)) else a for a in self._call)

    def save(self, path: str) -> None:
        """Write the script's Python source to *path*."""
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(self.src or "")

    def load(self, path: str) -> None:
        """Read a script saved by :meth:`save` (it then runs as Python on NumPy arrays)."""
        with open(path, encoding="utf-8") as fh:
            self._kernel, self._args, self._outs, self._call = None, [], [], ()
            self._compile(fh.read())


def build(sch: Any, inputs: Sequence[Any], outputs: Sequence[Tensor], name: str = "hybrid_func") -> HybridModule:
    """The module of schedule *sch* over *inputs* (tensors and scalar variables) and *outputs*.

    :raises ScheduleError: when no output comes from a hybrid script.
    """
    outputs = list(outputs)
    op = next((t.op for t in outputs if isinstance(t.op, HybridOp)), None)
    if op is None:
        raise ScheduleError("te.hybrid.build: no output comes from a hybrid script")
    module = HybridModule(op.source, name=getattr(op, "name", name))
    found = script_of(op)
    if found is not None:
        module._func, module._call = found
    module._args = [a for a in inputs if isinstance(a, (Tensor, Var))]
    module._outs = outputs
    module._kernel = _build(sch, module._args + outputs)
    return module
