"""TVM's containers of lowered code, for programs that build statements by hand or run passes
one at a time: a :class:`PrimFunc` (parameters and a body) and an :class:`IRModule` (named
functions). ``lower()`` returns a :class:`~lower.lower.LoweredFunc`, which reads the same way
(``mod["main"].body``)."""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from lower.ir.script.function import module_script
from lower.ir.stmt import Evaluate, SeqStmt, Stmt, seq_items
from lower.operation.extern import lower_body
from schedule.ir.extern_stmt import BodyStmt
from schedule.ir.ir_builder import Emitted


def as_stmt(body: Any, where: str = "PrimFunc") -> Stmt:
    """*body* as a statement of the lowered IR: an ``ir_builder`` body (``ib.get()``) is
    lowered as an extern's body is."""
    if isinstance(body, Emitted):  # ib.get() of a builder that only emitted calls
        return SeqStmt(tuple(Evaluate(c) for c in body.calls)) if len(body.calls) != 1 else Evaluate(body.calls[0])
    if isinstance(body, BodyStmt):
        return lower_body(where, body)
    if isinstance(body, SeqStmt) and any(isinstance(x, BodyStmt) for x in body.seq):  # tir.SeqStmt([ib.get(), ...])
        return SeqStmt(tuple(as_stmt(x, where) for x in body.seq))
    if not isinstance(body, Stmt):
        raise TypeError(f"{where}: a statement (tir.Stmt, or ib.get() of an ir_builder), got {body!r}")
    if not _holds_builder_body(body):
        return body
    inner = {name: getattr(body, name) for name in ("body", "then_case", "else_case")
             if isinstance(getattr(body, name, None), (BodyStmt, Stmt))}
    lowered = {name: as_stmt(x, where) for name, x in inner.items()}  # tir.LetStmt(n, 10, ib.get())
    changed = {name: x for name, x in lowered.items() if x is not inner[name]}
    return dataclasses.replace(body, **changed) if changed else body


def _holds_builder_body(stmt: Stmt) -> bool:
    """Whether an ``ir_builder`` body sits inside *stmt* (a hand-built ``tir.LetStmt(n, 10,
    ib.get())``); searched on an explicit stack, as lowered bodies may be deep."""
    stack: list[Any] = [stmt]
    while stack:
        x = stack.pop()
        if isinstance(x, BodyStmt):
            return True
        if isinstance(x, SeqStmt):
            stack.extend(x.seq)
        elif isinstance(x, Stmt):
            stack.extend(getattr(x, name) for name in ("body", "then_case", "else_case") if hasattr(x, name))
    return False


def stmt_list(stmt: Any) -> list[Stmt]:
    """The statements of *stmt* in order, nested sequences flattened (TVM's ``tir.stmt_list``)."""
    return seq_items(as_stmt(stmt, "stmt_list"))


class PrimFunc:
    """A function of *params* whose code is the statement *body* (TVM's ``tir.PrimFunc``)."""

    def __init__(self, params: Sequence[Any], body: Stmt, ret_type: Any = None, buffer_map: Any = None,
                 attrs: Mapping[str, Any] | None = None) -> None:
        self.params, self.body = list(params), as_stmt(body)
        self.ret_type, self.buffer_map, self.attrs = ret_type, dict(buffer_map or {}), dict(attrs or {})

    def with_body(self, body: Stmt) -> PrimFunc:
        """This function with *body* instead."""
        out = copy.copy(self)
        out.body = body
        return out

    def with_attr(self, key: str, value: Any) -> PrimFunc:
        out = copy.copy(self)
        out.attrs = {**self.attrs, key: value}
        return out

    def __str__(self) -> str:
        return str(self.body)


class IRModule:
    """Named functions (TVM's ``IRModule``); ``IRModule.from_expr(f)`` names *f* ``main``."""

    def __init__(self, functions: Mapping[str, Any] | None = None) -> None:
        self.functions: dict[str, Any] = {}
        for name, f in (functions or {}).items():
            self[name] = f

    @staticmethod
    def from_expr(func: Any) -> IRModule:
        return IRModule({"main": func})

    def __getitem__(self, name: str) -> Any:
        if not isinstance(name, str):
            name = getattr(name, "name_hint", name)
        try:
            return self.functions[name]
        except KeyError:
            raise ValueError(f"IRModule: no function named {name!r}; it has {sorted(self.functions)}") from None

    def __setitem__(self, name: str, func: Any) -> None:
        if not hasattr(func, "body"):
            raise TypeError(f"IRModule: a function has a body (a PrimFunc or a lowered function), got {func!r}")
        self.functions[str(getattr(name, "name_hint", name))] = func

    def __iter__(self) -> Iterator[str]:
        return iter(self.functions)

    def __len__(self) -> int:
        return len(self.functions)

    def items(self) -> Any:
        return self.functions.items()

    def script(self, **options: Any) -> str:
        """TVMScript of the module (``@I.ir_module``); TVM's printing *options* change nothing.

        :raises TypeError: for a function built from a bare body (no argument buffers).
        """
        return module_script(self.functions)

    def show(self, **options: Any) -> None:
        print(self.script(**options))

    def __str__(self) -> str:
        """TVMScript, as TVM v0.9+ prints a module; the legacy text of each body where a
        function has no argument buffers to print (a ``PrimFunc`` of a bare body)."""
        try:
            return self.script()
        except TypeError:
            return "\n".join(f"// function {name}\n{f.body}" for name, f in self.functions.items())
