"""TVM's ``tvm.tir.transform``: the passes we have, one at a time (``lower.transform``)."""

from lower.transform import *  # noqa: F403
