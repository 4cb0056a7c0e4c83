"""TVM's ``topi.nn.utils``: ``get_pad_tuple`` (padding as top, left, bottom, right)."""

from topi.utils import get_pad_tuple

__all__ = ["get_pad_tuple"]
