"""``tvm.topi.generic``: the module ``topi.generic``."""

from topi.generic import *  # noqa: F403
