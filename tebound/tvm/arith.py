"""TVM's ``tvm.arith``: ``Analyzer`` (``simplify``, ``can_prove``, ``bind``, ``const_int_bound``)."""

from bound import Analyzer

__all__ = ["Analyzer"]
