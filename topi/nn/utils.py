"""TVM's ``topi.nn.utils``: ``get_pad_tuple`` (padding as top, left, bottom, right), its 1-d, 3-d and
N-d forms."""

from topi.utils import get_pad_tuple, get_pad_tuple1d, get_pad_tuple3d, get_pad_tuple_generic

__all__ = ["get_pad_tuple", "get_pad_tuple1d", "get_pad_tuple3d", "get_pad_tuple_generic"]
