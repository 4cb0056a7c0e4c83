"""Whether a top-level package imported as ``schedule`` or ``tune`` is this project's: PyPI has
other distributions of those names, and installing one beside this project overwrites the
other's files. Ours set ``__tebound__``; anything else is refused with the way out."""

from __future__ import annotations

import importlib.util
from importlib import metadata
from pathlib import Path

#: The distribution this project installs as.
DISTRIBUTION = "tebound"
#: The line each of this project's top-level packages has in its ``__init__.py``.
MARKER = "__tebound__ = True"


def check_ours(name: str) -> None:
    """Check, without importing it, that the top-level package *name* is this project's (its
    ``__init__.py`` sets ``__tebound__``).

    :raises ImportError: naming the distribution that owns it, and how to separate the two.
    """
    spec = importlib.util.find_spec(name)
    if spec is None:
        return  # absent: importing it says so
    origin = spec.origin if spec.origin and spec.origin.endswith("__init__.py") else None
    try:
        ours = origin is not None and MARKER in Path(origin).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        ours = False
    if ours:
        return
    try:
        owners = list(dict.fromkeys(d for d in metadata.packages_distributions().get(name, []) if d != DISTRIBUTION))
    except Exception:  # noqa: BLE001 - another distribution's broken metadata: name none
        owners = []
    owner = " and ".join(f"'{d}' {_version(d)}".rstrip() for d in owners) or "another distribution"
    raise ImportError(f"the package '{name}' found at {origin or spec.origin or 'a namespace package'} is {owner}'s, "
                      f"not {DISTRIBUTION}'s: both install a top-level '{name}', so one overwrote the other. "
                      f"Install {DISTRIBUTION} in a virtual environment of its own (python -m venv .venv && "
                      f". .venv/bin/activate && pip install {DISTRIBUTION}), or uninstall the other "
                      f"(pip uninstall {owners[0] if owners else name})")


def _version(dist: str) -> str:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return ""
