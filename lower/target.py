"""Targets as TVM names them: ``Target("llvm -mcpu=skylake -num-cores 4")``, its ``kind.name``,
``keys``, ``attrs`` and ``host``, and ``with Target(...)``, which sets the default target of
``build`` as TVM's does.

Every target runs on this machine: ``llvm`` and ``c`` on the C target, compiled for this CPU
(``-march=native``), and the GPU kinds (``cuda``, ``rocm``, ``vulkan``, ``metal``, ``opencl``)
on the C target with the semantics a GPU gives the schedule (threads, shared memory, warps), with
one warning on first use that no GPU code is generated. Of the options, ``-fast-math`` changes
the code; the others (``-mcpu``, ``-mattr``, ``-mtriple``, ``-num-cores``, ``-libs`` ...) are
kept in ``attrs`` for programs that read them.
"""

from __future__ import annotations

import contextvars
import re
import warnings
from dataclasses import dataclass
from typing import Any

#: The kinds that run on the CPU, and their keys (TVM's).
CPU_KINDS = {"llvm": ("cpu",), "c": ("cpu",)}
#: The GPU kinds, run on the CPU with a GPU's semantics, and their keys.
GPU_KINDS = {"cuda": ("cuda", "gpu"), "rocm": ("rocm", "gpu"), "vulkan": ("vulkan", "gpu"),
             "metal": ("metal", "gpu"), "opencl": ("opencl", "gpu")}
#: Options whose value is a comma-separated list.
LIST_OPTIONS = ("keys", "mattr", "libs")
#: Options whose values are integers (TVM's typed target attributes).
INT_OPTIONS = ("num-cores", "thread_warp_size", "max_num_threads", "max_threads_per_block",
               "max_shared_memory_per_block", "registers_per_block", "opt-level", "vector-unit-bytes")

_CURRENT: contextvars.ContextVar[Target | None] = contextvars.ContextVar("target", default=None)
_WARNED: set[str] = set()


class GpuSemanticsWarning(UserWarning):
    """A GPU target ran on the CPU: no GPU code is generated, and timings are the CPU's."""


@dataclass(frozen=True)
class TargetKind:
    """A target's kind (``Target("cuda").kind.name == "cuda"``)."""

    name: str


class Target:
    """A target parsed from TVM's text (``"llvm -mcpu=... -num-cores 4"``), a dict
    (``{"kind": "llvm", "mcpu": ...}``) or another Target; *host* is the host's target.

    :raises ValueError: for an unknown kind or a malformed option, naming it.
    """

    def __init__(self, target: Any, host: Any = None) -> None:
        if isinstance(target, Target):
            self.kind, self.attrs, self.host = target.kind, dict(target.attrs), target.host
        elif isinstance(target, dict):
            options = {k: v for k, v in target.items() if k not in ("kind", "host")}
            self.kind, self.attrs = _kind(str(target.get("kind", ""))), options
            self.host = Target(target["host"]) if target.get("host") is not None else None
        elif isinstance(target, str):
            name, *words = target.split()
            self.kind, self.attrs, self.host = _kind(name if name else ""), _options(target, words), None
        else:
            raise TypeError(f"Target: a target is text such as 'llvm', a dict or a Target, not {target!r}")
        # As TVM's: the kind's keys, after the -device's name when it names one.
        device = [str(self.attrs["device"])] if self.attrs.get("device") else []
        default = list(CPU_KINDS.get(self.kind.name) or GPU_KINDS[self.kind.name])
        self.attrs.setdefault("keys", [*device, *(k for k in default if k not in device)])
        if host is not None:
            self.host = host if isinstance(host, Target) else Target(host)

    @property
    def keys(self) -> list[str]:
        return list(self.attrs["keys"])

    @property
    def mcpu(self) -> str:
        return str(self.attrs.get("mcpu", ""))

    @property
    def fast_math(self) -> bool:
        return any(k.startswith("fast-math") and v for k, v in self.attrs.items())

    @property
    def fp_contract(self) -> bool:
        """``-fp-contract=fast`` (LLVM's option): fuse ``a * b + c``, and nothing else of fast math."""
        return str(self.attrs.get("fp-contract", "off")) in ("fast", "on")

    @property
    def is_gpu(self) -> bool:
        return self.kind.name in GPU_KINDS

    def __str__(self) -> str:
        words = [self.kind.name, "-keys=" + ",".join(self.keys)]
        for k, v in sorted(self.attrs.items()):
            if k != "keys":
                words.append(f"-{k}" if v is True else f"-{k}={','.join(v) if isinstance(v, list) else v}")
        return " ".join(words)

    def __repr__(self) -> str:
        return f"Target({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Target) and str(self) == str(other) and self.host == other.host

    def __hash__(self) -> int:
        return hash(str(self))

    def __enter__(self) -> Target:
        self._token = _CURRENT.set(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _CURRENT.reset(self._token)

    @staticmethod
    def current(allow_none: bool = True) -> Target | None:
        """The target of the enclosing ``with Target(...)`` block (None outside one)."""
        found = _CURRENT.get()
        if found is None and not allow_none:
            raise ValueError("Target.current: no target is in scope; use 'with Target(...):'")
        return found


def _kind(name: str) -> TargetKind:
    lowered = name.lower()
    if lowered not in CPU_KINDS and lowered not in GPU_KINDS:
        known = ", ".join([*CPU_KINDS, *GPU_KINDS])
        raise ValueError(f"Target: unknown target kind {name!r}; known: {known}")
    return TargetKind(lowered)


def _options(text: str, words: list[str]) -> dict[str, Any]:
    """``-key=value``, ``-key value`` and ``-flag`` words as attributes."""
    options: dict[str, Any] = {}
    k = 0
    while k < len(words):
        word = words[k]
        match = re.fullmatch(r"--?([A-Za-z][\w-]*)(?:=(.*))?", word)
        if match is None:
            raise ValueError(f"Target: cannot read {word!r} in {text!r}; options are -key=value or -flag")
        key, value = match.group(1), match.group(2)
        if value is None and k + 1 < len(words) and not words[k + 1].startswith("-"):
            value, k = words[k + 1], k + 1
        if value is None:
            options[key] = True
        elif key in LIST_OPTIONS:
            options[key] = [v for v in value.split(",") if v]
        elif key in INT_OPTIONS:
            if not value.isdigit() or int(value) < 1:
                raise ValueError(f"Target: -{key} is a positive integer, not {value!r}")
            options[key] = int(value)
        else:
            options[key] = value
        if key == "fp-contract" and options[key] not in ("fast", "on", "off"):
            raise ValueError(f"Target: -fp-contract is fast, on or off, not {value!r}")
        k += 1
    return options


def warn_gpu_semantics(target: Target) -> None:
    """Warn once per GPU kind that it runs on the CPU."""
    if target.is_gpu and target.kind.name not in _WARNED:
        _WARNED.add(target.kind.name)
        made = ("its CUDA source is in imported_modules[0], and no GPU runs it here" if target.kind.name == "cuda"
                else "no GPU code is generated")
        warnings.warn(f"target {target.kind.name!r} runs on this CPU with a GPU's semantics (threads, shared "
                      f"memory, warps): {made}, and timings are the CPU's", GpuSemanticsWarning, stacklevel=4)
