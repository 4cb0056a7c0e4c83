"""``tvm.topi.nn``: the module ``topi.nn``."""

from topi.nn import *  # noqa: F403
