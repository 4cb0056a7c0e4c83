"""Which configuration a template call uses (TVM's dispatch contexts).

Contexts nest in ``with`` blocks; the innermost that knows the workload answers, and the
fallback (each knob's first choice, with a warning once per workload) answers otherwise.
The context that knows the best measured configurations of a log is in
:mod:`tune.autotvm.history`, above the log's reader.
"""

from __future__ import annotations

import threading
import warnings
from typing import Any

from tune.autotvm.space import FallbackConfigEntity


class DispatchContext:
    """A source of configurations for workloads, used inside ``with``."""

    _local = threading.local()

    @classmethod
    def current(cls) -> DispatchContext:
        stack = getattr(cls._local, "stack", None)
        if not stack:
            stack = cls._local.stack = [FallbackContext()]
        return stack[-1]

    def __init__(self) -> None:
        self._parent: DispatchContext | None = None

    def _query_inside(self, target: Any, workload: tuple[Any, ...]) -> Any:
        return None

    def query(self, target: Any, workload: tuple[Any, ...]) -> Any:
        """The configuration of *workload*: this context's, else its parent's."""
        found = self._query_inside(target, workload)
        if found is None and self._parent is not None:
            return self._parent.query(target, workload)
        return found

    def __enter__(self) -> DispatchContext:
        DispatchContext.current()  # the fallback at the bottom
        self._parent = DispatchContext._local.stack[-1]
        DispatchContext._local.stack.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        stack = DispatchContext._local.stack
        if stack and stack[-1] is self:
            stack.pop()


class ApplyConfig(DispatchContext):
    """Every workload takes *config* (how a trial instantiates its template)."""

    def __init__(self, config: Any) -> None:
        super().__init__()
        self.config = config
        self.workload: tuple[Any, ...] | None = None

    def _query_inside(self, target: Any, workload: tuple[Any, ...]) -> Any:
        self.workload = workload
        return self.config


class FallbackContext(DispatchContext):
    """Each knob's first choice, the same object for every call of a workload; warns once."""

    def __init__(self) -> None:
        super().__init__()
        self.memory: dict[tuple[Any, ...], FallbackConfigEntity] = {}
        self.silent = False

    def clear_cache(self, target: Any = None, workload: tuple[Any, ...] | None = None) -> None:
        """Forgets the fallback of *workload* (of every workload if None): it warns again."""
        if workload is None:
            self.memory.clear()
        else:
            self.memory.pop(workload, None)

    def _query_inside(self, target: Any, workload: tuple[Any, ...]) -> Any:
        if workload not in self.memory:
            if not self.silent:
                warnings.warn(f"autotvm: no configuration for workload {workload}; a fallback configuration is "
                              "used, which may be much slower (tune it, or use apply_history_best)", stacklevel=4)
            self.memory[workload] = FallbackConfigEntity()
        return self.memory[workload]
