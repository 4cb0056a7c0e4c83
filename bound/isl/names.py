"""Unique isl-safe names for variables: isl keys everything by name."""

from __future__ import annotations

import re
from collections.abc import Sequence

import islpy as isl

from schedule.ir.expr import Var

_DT = isl.dim_type


class IslNames:
    """Unique isl-safe name for each Var (identity-keyed): ``i.outer`` -> ``i_outer``, clashes get ``_1``."""

    def __init__(self) -> None:
        self._name_of: dict[Var, str] = {}
        self._var_of: dict[str, Var] = {}
        self._next: dict[str, int] = {}  # per base name, the first suffix that may be free

    def __getitem__(self, v: Var) -> str:
        name = self._name_of.get(v)
        if name is None:
            base = re.sub(r"\W", "_", v.name) or "v"
            if base[0].isdigit():
                base = "v" + base
            name = self._unused(base)
            self._name_of[v], self._var_of[name] = name, v
        return name

    def var(self, name: str) -> Var:
        return self._var_of[name]

    def fresh(self, hint: str) -> str:
        """A new name that no variable has (for auxiliary set dimensions)."""
        name = self._unused(re.sub(r"\W", "_", hint))
        self._var_of[name] = Var(name)
        return name

    def _unused(self, base: str) -> str:
        if base not in self._var_of:
            return base
        k = self._next.get(base, 1)
        while f"{base}_{k}" in self._var_of:
            k += 1
        self._next[base] = k + 1
        return f"{base}_{k}"


def make_space(set_names: Sequence[str], param_names: Sequence[str]) -> isl.Space:
    return isl.Space.create_from_names(isl.DEFAULT_CONTEXT, set=list(set_names), params=list(param_names))
