"""TVM's ``tvm.relay.backend``: ``Runtime`` and ``Executor``, the records ``tvm.build`` takes
(``runtime=Runtime("cpp", {"system-lib": True})``). ``build`` accepts them and builds for this
machine as it does without; relay's compilers are not here (see :mod:`tebound.tvm.relay`)."""

from __future__ import annotations

from typing import Any

__all__ = ["Executor", "Runtime"]


class _Record:
    """A kind by its name with its attributes (``Runtime("crt", {"system-lib": True})``)."""

    default = ""

    def __init__(self, name: str | None = None, options: Any = None) -> None:
        what = type(self).__name__
        name = self.default if name is None else name
        if not isinstance(name, str):
            raise TypeError(f"{what}: the name is a string ({self.default!r} ...), not {name!r}")
        if options is not None and not isinstance(options, dict):
            raise TypeError(f"{what}: options are a dict of attribute -> value, not {options!r}")
        self.name, self.attrs = name, dict(options or {})

    def __getitem__(self, key: str) -> Any:
        return self.attrs[key]

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and (self.name, self.attrs) == (other.name, other.attrs)  # type: ignore

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}(name={self.name!r}, attrs={self.attrs!r})"


class Runtime(_Record):
    """The runtime a module is built for, with its attributes (``system-lib``, ...)."""

    default = "cpp"


class Executor(_Record):
    """The executor a model is built for (``graph``, ``aot``), with its attributes."""

    default = "graph"
