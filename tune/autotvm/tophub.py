"""TVM's ``autotvm.tophub``, offline: the pre-tuned logs TVM downloads are used when they are
already on this machine (in ``$TOPHUB_LOCATION``, else ``~/.tvm/tophub``, TVM's own download
place); nothing is downloaded, so without them the context is empty and every workload falls
back (or takes what an enclosing context knows)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from lower.target import Target
from tune.autotvm.history import ApplyHistoryBest


def location() -> Path:
    """Where the pre-tuned logs are looked for."""
    return Path(os.environ.get("TOPHUB_LOCATION") or Path.home() / ".tvm" / "tophub")


def context(target: Any, extra_files: Sequence[Any] | None = None) -> ApplyHistoryBest:
    """A dispatch context with the local pre-tuned logs of *target*'s keys (``arm_cpu_*.log``,
    ``cuda_*.log``, ...) and *extra_files*."""
    targets = target if isinstance(target, (list, tuple)) else [target]
    keys: set[str] = set()
    for t in targets:
        t = t if isinstance(t, Target) else Target(str(t))
        keys.update(t.keys)
        keys.add(t.attrs.get("device", t.kind.name))
    logs = [p for key in sorted(keys) for p in sorted(location().glob(f"{key}_v*.log"))] if location().is_dir() else []
    return ApplyHistoryBest([*logs, *(extra_files or [])])
