"""TVM's shape and index transforms (``topi.transform``): :mod:`.shape` moves elements,
:mod:`.join` joins, cuts and repeats tensors, :mod:`.index` picks elements by index, :mod:`.scatter`,
:mod:`.scatter_nd` and :mod:`.scatter_elements` write them."""

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
from topi.transform.scatter import adv_index, invert_permutation, matrix_set_diag, sparse_to_dense, strided_set, trilu
from topi.transform.scatter_elements import scatter_elements
from topi.transform.scatter_nd import scatter_nd
from topi.transform.shape import (
    broadcast_to,
    expand_dims,
    flip,
    layout_transform,
    meshgrid,
    reshape,
    sliding_window,
    squeeze,
    transpose,
)

__all__ = ["adv_index", "arange", "broadcast_to", "concatenate", "expand_dims", "expand_like", "flip", "gather",
           "gather_nd", "invert_permutation", "layout_transform", "matrix_set_diag", "meshgrid", "ndarray_size",
           "one_hot", "repeat", "reshape", "reverse_sequence", "scatter_elements", "scatter_nd", "sequence_mask",
           "sliding_window", "sparse_to_dense", "split", "squeeze", "stack", "strided_set", "strided_slice", "take",
           "tile", "transpose", "trilu", "unravel_index"]
