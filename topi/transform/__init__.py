"""TVM's shape and index transforms (``topi.transform``): :mod:`.shape` moves elements,
:mod:`.join` joins, cuts and repeats tensors, :mod:`.index` picks elements by index."""

from topi.transform.index import strided_slice, take
from topi.transform.join import concatenate, repeat, split, stack, tile
from topi.transform.shape import broadcast_to, expand_dims, flip, layout_transform, reshape, squeeze, transpose

__all__ = ["broadcast_to", "concatenate", "expand_dims", "flip", "layout_transform", "repeat", "reshape", "split",
           "squeeze", "stack", "strided_slice", "take", "tile", "transpose"]
