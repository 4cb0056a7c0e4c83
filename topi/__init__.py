"""TVM's operator library (``tvm.topi``) over our te: element-wise operators (:mod:`.math`),
broadcasting binary operators (:mod:`.broadcast`), reductions (:mod:`.reduction`), shape and
index transforms (:mod:`.transform`) and the neural-network operators (:mod:`.nn`), with TVM's
names, signatures and tags (:mod:`.tag`); their schedules (:mod:`.generic`, :mod:`.x86`,
:mod:`.cuda`); NumPy references in :mod:`.testing`."""

from topi import cuda, generic, image, nn, sparse, tag, testing, transform, utils, vision, x86
from topi.broadcast import (
    add,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    broadcast_shape,
    divide,
    equal,
    floor_divide,
    floor_mod,
    greater,
    greater_equal,
    left_shift,
    less,
    less_equal,
    logical_and,
    logical_or,
    logical_xor,
    maximum,
    minimum,
    mod,
    multiply,
    not_equal,
    power,
    right_shift,
    subtract,
    where,
)
from topi.contract import matmul, tensordot
from topi.einsum import einsum
from topi.fill import full, full_like
from topi.math import (
    abs,  # noqa: A004
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atanh,
    bitwise_not,
    cast,
    ceil,
    clip,
    cos,
    cosh,
    elemwise_sum,
    erf,
    exp,
    fast_erf,
    fast_exp,
    fast_log,
    fast_tanh,
    floor,
    identity,
    isfinite,
    isinf,
    isnan,
    log,
    log2,
    log10,
    logical_not,
    negative,
    reinterpret,
    round,  # noqa: A004
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    trunc,
)
from topi.reduction import all, any, argmax, argmin, collapse_sum, max, min, prod, sum  # noqa: A004
from topi.scan import cumprod, cumsum, scanop
from topi.searchsorted import searchsorted
from topi.signal import dft
from topi.sort import argsort, sort, topk
from topi.targets import arm_cpu, bifrost, gpu, hls, intel_graphics, mali
from topi.transform import (
    adv_index,
    arange,
    broadcast_to,
    concatenate,
    expand_dims,
    expand_like,
    flip,
    gather,
    gather_nd,
    layout_transform,
    matrix_set_diag,
    ndarray_size,
    one_hot,
    repeat,
    reshape,
    reverse_sequence,
    scatter_nd,
    sequence_mask,
    sparse_to_dense,
    split,
    squeeze,
    stack,
    strided_set,
    strided_slice,
    take,
    tile,
    transpose,
    trilu,
    unravel_index,
)
from topi.transform.gather import shape
from topi.unique import argwhere, unique
from topi.utils import get_const_int, get_const_tuple

__all__ = ["abs", "acos", "acosh", "add", "adv_index", "all", "any", "arange", "argmax", "argmin", "argsort",
           "argwhere", "arm_cpu", "asin", "asinh", "atan", "atanh", "bifrost", "bitwise_and", "bitwise_not",
           "bitwise_or", "bitwise_xor", "broadcast_shape", "broadcast_to", "cast", "ceil", "clip", "collapse_sum",
           "concatenate", "cos", "cosh", "cuda", "cumprod", "cumsum", "dft", "divide", "einsum", "elemwise_sum",
           "equal", "erf", "exp", "expand_dims", "expand_like", "fast_erf", "fast_exp", "fast_log", "fast_tanh",
           "flip", "floor", "floor_divide", "floor_mod", "full", "full_like", "gather", "gather_nd", "generic",
           "get_const_int", "get_const_tuple", "gpu", "greater", "greater_equal", "hls", "identity", "image",
           "intel_graphics", "isfinite", "isinf", "isnan", "layout_transform", "left_shift", "less", "less_equal",
           "log", "log10", "log2", "logical_and", "logical_not", "logical_or", "logical_xor", "mali", "matmul",
           "matrix_set_diag", "max", "maximum", "min", "minimum", "mod", "multiply", "ndarray_size", "negative",
           "nn", "not_equal", "one_hot", "power", "prod", "reinterpret", "repeat", "reshape", "reverse_sequence",
           "right_shift", "round", "rsqrt", "scanop", "scatter_nd", "searchsorted", "sequence_mask", "shape",
           "sigmoid", "sign", "sin", "sinh", "sort", "sparse", "sparse_to_dense", "split", "sqrt", "squeeze",
           "stack", "strided_set", "strided_slice", "subtract", "sum", "tag", "take", "tan", "tanh", "tensordot",
           "testing", "tile", "topk", "transform", "transpose", "trilu", "trunc", "unique", "unravel_index", "utils",
           "vision", "where", "x86"]
