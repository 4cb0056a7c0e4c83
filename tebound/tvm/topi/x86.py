"""``tvm.topi.x86``: the module ``topi.x86``."""

from topi.x86 import *  # noqa: F403
