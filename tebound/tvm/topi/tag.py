"""``tvm.topi.tag``: the module ``topi.tag``."""

from topi.tag import *  # noqa: F403
