"""TVM's ``tvm.target.codegen`` as a TVM built without LLVM answers it: the ``llvm`` target
compiles through C here (see :mod:`lower.backend.c`), so there is no LLVM to ask for intrinsic
ids or a version. The module imports, so that files naming these functions run their other
tests; a call raises ``RuntimeError`` saying why."""

from __future__ import annotations

from typing import Any

from tebound.tvm.driver.build_module import build

__all__ = ["build_module", "llvm_get_intrinsic_name", "llvm_lookup_intrinsic_id", "llvm_version_major"]

_WHY = "tebound has no LLVM: target 'llvm' compiles to C with the system's C compiler"


def build_module(mod: Any, target: Any) -> Any:
    """``tvm.build(mod, target=target)``, under the name TVM's code generator gives it."""
    return build(mod, target=target)


def llvm_lookup_intrinsic_id(name: str) -> int:
    """LLVM's id of the intrinsic *name*: unavailable here."""
    raise RuntimeError(f"llvm_lookup_intrinsic_id({name!r}): {_WHY}")


def llvm_get_intrinsic_name(intrin_id: int) -> str:
    """The name of LLVM's intrinsic *intrin_id*: unavailable here."""
    raise RuntimeError(f"llvm_get_intrinsic_name({intrin_id!r}): {_WHY}")


def llvm_version_major(allow_none: bool = False) -> int | None:
    """LLVM's major version: ``None`` when *allow_none*, as TVM built without LLVM answers."""
    if allow_none:
        return None
    raise RuntimeError(f"LLVM version is not available: {_WHY}")
