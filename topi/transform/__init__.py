"""TVM's shape and index transforms (``topi.transform``): :mod:`.shape` moves elements,
:mod:`.join` joins, cuts and repeats tensors, :mod:`.index` picks elements by index."""

from topi.transform.gather import (
    arange,
    expand_like,
    gather,
    gather_nd,
    ndarray_size,
    one_hot,
    reverse_sequence,
    sequence_mask,
    unravel_index,
)
from topi.transform.index import strided_slice, take
from topi.transform.join import concatenate, repeat, split, stack, tile
from topi.transform.shape import broadcast_to, expand_dims, flip, layout_transform, reshape, squeeze, transpose

__all__ = ["arange", "broadcast_to", "concatenate", "expand_dims", "expand_like", "flip", "gather", "gather_nd",
           "layout_transform", "ndarray_size", "one_hot", "repeat", "reshape", "reverse_sequence", "sequence_mask",
           "split", "squeeze", "stack", "strided_slice", "take", "tile", "transpose", "unravel_index"]
