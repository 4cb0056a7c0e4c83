"""TVM's ``tvm.relay`` is not part of this project, which covers tensor expressions and their
lowering. The module imports, so that a file which imports relay beside te can run its te tests;
any use of a relay name raises :class:`RelayUnavailable` saying so. ``relay.GlobalVar`` is
TVM's IR name a module's functions are keyed by, which relay re-exports: ours is here too, as are
``relay.backend``'s ``Runtime`` and ``Executor``, records ``tvm.build`` takes."""

from tebound.tvm.ir.expr import GlobalVar
from tebound.tvm.relay import backend
from tebound.tvm.relay.unavailable import RelayUnavailable, __getattr__  # noqa: F401 - relay's names raise

__all__ = ["GlobalVar", "RelayUnavailable", "backend"]
