"""TVM's shape and index transforms (``topi.transform``): :mod:`.shape` moves elements,
:mod:`.join` joins, cuts and repeats tensors, :mod:`.index` picks elements by index, :mod:`.scatter` and
:mod:`.scatter_nd` write them."""

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
from topi.transform.scatter import adv_index, matrix_set_diag, sparse_to_dense, strided_set, trilu
from topi.transform.scatter_nd import scatter_nd
from topi.transform.shape import broadcast_to, expand_dims, flip, layout_transform, reshape, squeeze, transpose

__all__ = ["adv_index", "arange", "broadcast_to", "concatenate", "expand_dims", "expand_like", "flip", "gather",
           "gather_nd", "layout_transform", "matrix_set_diag", "ndarray_size", "one_hot", "repeat", "reshape",
           "reverse_sequence", "scatter_nd", "sequence_mask", "sparse_to_dense", "split", "squeeze", "stack",
           "strided_set", "strided_slice", "take", "tile", "transpose", "trilu", "unravel_index"]
