"""``tvm.topi.cuda``: the module ``topi.cuda``."""

from topi.cuda import *  # noqa: F403
