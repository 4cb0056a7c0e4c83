"""What a use of a relay name raises: relay is not part of tebound."""

from __future__ import annotations

__all__ = ["RelayUnavailable"]


class RelayUnavailable(ImportError):
    """A relay name was used: relay (graphs of operators, frontends, executors) is not here."""


def __getattr__(name: str) -> object:
    if name.startswith("__"):
        raise AttributeError(name)
    raise RelayUnavailable(f"tvm.relay.{name}: relay is not part of tebound, which covers te schedules, their "
                           "bounds and lowering; build the operator with te/topi and tvm.build instead")
