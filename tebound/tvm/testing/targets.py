"""Which targets TVM's tests run on here: those of ``TVM_TEST_TARGETS`` (``;``-separated), or
TVM's default list, each *enabled* when this project compiles its kind and *runnable* when its
device exists. Only the CPU exists: a GPU kind compiles (and runs on the CPU with a GPU's
semantics when a user asks for it), but a test never counts it as a device."""

from __future__ import annotations

import logging
import os
from typing import Any

from lower.backend.nd import Device, device
from tebound.tvm.runtime.convert import kind_enabled

#: TVM's default list of test targets, used when ``TVM_TEST_TARGETS`` is not set.
DEFAULT_TEST_TARGETS = ["llvm", "cuda", "nvptx", "vulkan -from_device=0", "opencl",
                        "opencl -device=mali,aocl_sw_emu", "opencl -device=intel_graphics", "metal", "rocm",
                        "hexagon"]


def target_kind(target: Any) -> str:
    """The kind of a target given as text (``"llvm -mcpu=..."``) or as a Target."""
    return target.split()[0] if isinstance(target, str) else target.kind.name


def env_targets() -> list[str]:
    """The targets ``TVM_TEST_TARGETS`` names, or none when it is unset or blank."""
    return [t.strip() for t in os.environ.get("TVM_TEST_TARGETS", "").split(";") if t.strip()]


def kind_runnable(kind: str) -> bool:
    """Whether a device of *kind* exists here to run a test on."""
    return kind_enabled(kind) and device(kind).exist


def target_table(names: list[str] | None = None) -> list[dict[str, Any]]:
    """One row per test target: its text, kind, and whether it is enabled and runnable. When
    none is runnable the table is llvm's alone, as in TVM."""
    names = names or env_targets() or DEFAULT_TEST_TARGETS
    rows = [{"target": name, "target_kind": target_kind(name), "is_enabled": kind_enabled(target_kind(name)),
             "is_runnable": kind_runnable(target_kind(name))} for name in names]
    if not any(row["is_runnable"] for row in rows) and names != ["llvm"]:
        logging.warning("none of the test targets %s runs here; testing on llvm", names)
        return target_table(["llvm"])
    return rows


def device_enabled(target: str) -> bool:
    """Whether tests should run on *target*'s device: its kind is among the runnable test targets.

    :raises TypeError: when *target* is not text.
    """
    if not isinstance(target, str):
        raise TypeError(f"device_enabled: the target is text such as 'llvm', not {target!r}")
    return any(row["target_kind"] == target_kind(target) for row in target_table() if row["is_runnable"])


def enabled_targets() -> list[tuple[str, Device]]:
    """The runnable test targets, each with its device."""
    return [(row["target"], device(row["target_kind"])) for row in target_table() if row["is_runnable"]]
