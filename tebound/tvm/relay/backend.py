"""TVM's ``tvm.relay.backend``: ``Runtime`` and ``Executor``, the records ``tvm.build`` takes
(``runtime=Runtime("cpp", {"system-lib": True})``). ``build`` accepts them and builds for this
machine as it does without; relay's compilers are not here (see :mod:`tebound.tvm.relay`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

__all__ = ["Executor", "Runtime"]


def _checked(kind: str, options: Any, what: str) -> dict:
    if not isinstance(kind, str):
        raise TypeError(f"{what}: the name is a string ('cpp', 'crt'), not {kind!r}")
    if options is not None and not isinstance(options, dict):
        raise TypeError(f"{what}: options are a dict of attribute -> value, not {options!r}")
    return dict(options or {})


@dataclass(frozen=True)
class Runtime:
    """The runtime a module is built for, with its attributes (``system-lib``, ...)."""

    name: str = "cpp"
    attrs: dict = field(default_factory=dict)

    def __init__(self, name: str = "cpp", options: Any = None) -> None:
        object.__setattr__(self, "attrs", _checked(name, options, "Runtime"))
        object.__setattr__(self, "name", name)

    def __getitem__(self, key: str) -> Any:
        return self.attrs[key]


@dataclass(frozen=True)
class Executor:
    """The executor a model is built for (``graph``, ``aot``), with its attributes."""

    name: str = "graph"
    attrs: dict = field(default_factory=dict)

    def __init__(self, name: str = "graph", options: Any = None) -> None:
        object.__setattr__(self, "attrs", _checked(name, options, "Executor"))
        object.__setattr__(self, "name", name)

    def __getitem__(self, key: str) -> Any:
        return self.attrs[key]
