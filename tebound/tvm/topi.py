"""TVM's ``tvm.topi``: the package ``topi`` (what it holds so far: element-wise, broadcasting
and reduction operators)."""

from topi import *  # noqa: F403
from topi import __all__  # noqa: F401 - the same names
