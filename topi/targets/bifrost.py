"""``topi.bifrost``: the generic dense and its schedule."""

from topi.generic import schedule_dense
from topi.nn import dense

__all__ = ["dense", "schedule_dense"]
