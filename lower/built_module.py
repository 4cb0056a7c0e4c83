"""A module of several built functions, each called by its name (TVM's runtime module of an
``IRModule`` with more than one function, or of ``tvm.build([f1, f2])``)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lower.build import BuiltFunc


class BuiltModule:
    """Built functions under their names: ``m["fadd"]`` or ``m.get_function("fadd")``."""

    def __init__(self, functions: Mapping[str, BuiltFunc]) -> None:
        self.functions = dict(functions)

    @property
    def entry_names(self) -> list[str]:
        """The functions' names, in the order they were built."""
        return list(self.functions)

    def get_function(self, name: str, query_imports: bool = False) -> BuiltFunc:
        """The function called *name*.

        :raises AttributeError: for another name, as TVM's module does, naming those it has.
        """
        found = self.functions.get(name)
        if found is None:
            raise AttributeError(f"Module has no function {name!r}; its functions are {self.entry_names}")
        return found

    __getitem__ = get_function

    def __contains__(self, name: object) -> bool:
        return name in self.functions

    def get_source(self, fmt: str = "") -> str:
        """Each function's source (see :meth:`BuiltFunc.get_source`), one after the other."""
        return "\n".join(f.get_source(fmt) for f in self.functions.values())

    @property
    def imported_modules(self) -> list[Any]:
        """The device modules of the functions, in order."""
        return [m for f in self.functions.values() for m in f.imported_modules]

    def time_evaluator(self, func_name: str, dev: Any = None, number: int = 10, repeat: int = 1,
                       min_repeat_ms: float = 0, cooldown_interval_ms: float = 0) -> Any:
        """The timer of the function called *func_name* (see :meth:`BuiltFunc.time_evaluator`)."""
        return self[func_name].time_evaluator(func_name, dev, number, repeat, min_repeat_ms, cooldown_interval_ms)

    def export_library(self, path: str, fcompile: Any = None, **options: Any) -> None:
        """Refused: a library here holds one function.

        :raises ValueError: naming the way to export each one.
        """
        raise ValueError(f"export_library: this module has {len(self.functions)} functions "
                         f"({', '.join(self.entry_names)}) and a library here holds one; export each "
                         f"with m[name].export_library(path)")

    def __call__(self, *arrays: Any) -> None:
        """A call of ``main``, as TVM's module calls its entry function.

        :raises TypeError: where no function is called ``main``, naming them.
        """
        if "main" not in self.functions:
            raise TypeError(f"this module has several functions ({', '.join(self.entry_names)}) and none is "
                            f"'main': call one by its name, m[name](...)")
        self.functions["main"](*arrays)
