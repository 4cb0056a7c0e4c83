"""``tvm.topi.utils``: the module ``topi.utils``."""

from topi.utils import *  # noqa: F403
