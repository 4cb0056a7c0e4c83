"""TVM's ``tvm.relay`` is not part of this project, which covers tensor expressions and their
lowering. The module imports, so that a file which imports relay beside te can run its te tests;
any use of a relay name raises :class:`RelayUnavailable` saying so. ``relay.GlobalVar`` is
TVM's IR name a module's functions are keyed by, which relay re-exports: ours is here too."""

from __future__ import annotations

from tebound.tvm.ir.expr import GlobalVar

__all__ = ["GlobalVar", "RelayUnavailable"]


class RelayUnavailable(ImportError):
    """A relay name was used: relay (graphs of operators, frontends, executors) is not here."""


def __getattr__(name: str) -> object:
    if name.startswith("__"):
        raise AttributeError(name)
    raise RelayUnavailable(f"tvm.relay.{name}: relay is not part of tebound, which covers te schedules, their "
                           "bounds and lowering; build the operator with te/topi and tvm.build instead")
