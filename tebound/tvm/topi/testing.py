"""``tvm.topi.testing``: the module ``topi.testing``."""

from topi.testing import *  # noqa: F403
