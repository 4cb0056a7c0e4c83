"""``tvm.topi.transform``: the module ``topi.transform``."""

from topi.transform import *  # noqa: F403
