"""TVM's ``tvm.topi``: the package ``topi`` under TVM's name, with its submodules importable as
``tvm.topi.nn``, ``tvm.topi.testing``, ``tvm.topi.x86`` ..."""

from tebound.tvm.topi import cuda, generic, nn, tag, testing, transform, utils, x86
from topi import *  # noqa: F403
from topi import __all__  # noqa: F401 - the same names
