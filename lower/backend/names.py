"""Python identifiers for the variables and buffers of generated code."""

from __future__ import annotations

import builtins
import keyword
import re
from typing import Any

from lower.backend.python.runtime import RUNTIME


class Names:
    """One identifier per object, unique in the generated source.

    Tensors and loops may be called anything ("lambda", "range", "min"): their identifiers are
    never a keyword, a builtin, or a runtime helper.
    """

    def __init__(self) -> None:
        self._by_id: dict[int, str] = {}
        self._keep: list[Any] = []  # the named objects, so that their ids stay theirs
        self._used: set[str] = {*RUNTIME, *keyword.kwlist, *keyword.softkwlist, *dir(builtins)}
        # The next suffix to try per base: every suffix below it is taken (and stays taken), so
        # the thousandth loop named "i" does not try i_1 ... i_999 again.
        self._next: dict[str, int] = {}

    def __call__(self, obj: Any, hint: str) -> str:
        name = self._by_id.get(id(obj))
        if name is None:
            name = self.fresh(hint)
            self._by_id[id(obj)] = name
            self._keep.append(obj)
        return name

    def fix(self, obj: Any, text: str) -> None:
        """Write *obj* as *text* (an expression such as ``((int)threadIdx.x)``, not a name)."""
        self._by_id[id(obj)] = text
        self._keep.append(obj)

    def fresh(self, hint: str) -> str:
        """A new identifier like *hint*, bound to no object."""
        base = re.sub(r"\W", "_", hint) or "v"
        if base[0].isdigit():
            base = "_" + base
        name, k = base, self._next.get(base, 1)
        if name in self._used:
            while (name := f"{base}_{k}") in self._used:
                k += 1
            self._next[base] = k + 1
        self._used.add(name)
        return name
