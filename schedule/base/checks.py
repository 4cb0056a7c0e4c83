"""Argument checks shared by the entry points of every package (a TypeError saying what was expected)."""

from __future__ import annotations

from typing import Any


def check_flag(where: str, name: str, value: Any) -> bool:
    """*value* if it is a bool (``exact=``, ``checks=`` ...), else a TypeError."""
    if not isinstance(value, bool):
        raise TypeError(f"{where}: {name}= must be True or False, not {value!r}")
    return value


def check_name(where: str, name: Any) -> str:
    """*name* if it is a string, else a TypeError (names become buffer and loop names)."""
    if not isinstance(name, str):
        raise TypeError(f"{where}: name must be a string, not {type(name).__name__} ({name!r})")
    return name
