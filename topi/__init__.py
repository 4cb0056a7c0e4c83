"""TVM's operator library (``tvm.topi``) over our te: element-wise operators (:mod:`.math`),
broadcasting binary operators (:mod:`.broadcast`), reductions (:mod:`.reduction`), shape and
index transforms (:mod:`.transform`) and the neural-network operators (:mod:`.nn`), with TVM's
names, signatures and tags (:mod:`.tag`); their schedules (:mod:`.generic`, :mod:`.x86`,
:mod:`.cuda`); NumPy references in :mod:`.testing`."""

from topi import cuda, generic, nn, tag, testing, transform, utils, x86
from topi.broadcast import (
    add,
    broadcast_shape,
    divide,
    equal,
    floor_divide,
    greater,
    greater_equal,
    less,
    less_equal,
    maximum,
    minimum,
    mod,
    multiply,
    not_equal,
    power,
    subtract,
    where,
)
from topi.contract import matmul, tensordot
from topi.einsum import einsum
from topi.fill import full, full_like
from topi.math import (
    abs,  # noqa: A004
    cast,
    ceil,
    clip,
    cos,
    erf,
    exp,
    fast_erf,
    fast_exp,
    fast_log,
    fast_tanh,
    floor,
    identity,
    log,
    log2,
    negative,
    round,  # noqa: A004
    rsqrt,
    sigmoid,
    sin,
    sqrt,
    tanh,
    trunc,
)
from topi.reduction import argmax, argmin, max, min, prod, sum  # noqa: A004
from topi.transform import (
    broadcast_to,
    concatenate,
    expand_dims,
    flip,
    layout_transform,
    repeat,
    reshape,
    split,
    squeeze,
    stack,
    strided_slice,
    take,
    tile,
    transpose,
)

__all__ = ["abs", "add", "argmax", "argmin", "broadcast_shape", "broadcast_to", "cast", "ceil", "clip", "concatenate",
           "cos", "cuda", "divide", "einsum", "equal", "erf", "exp", "expand_dims", "fast_erf", "fast_exp",
           "fast_log", "fast_tanh", "flip", "floor", "floor_divide", "full", "full_like", "generic", "greater",
           "greater_equal", "identity", "layout_transform", "less", "less_equal", "log", "log2", "matmul", "max",
           "maximum", "min", "minimum", "mod", "multiply", "negative", "nn", "not_equal", "power", "prod", "repeat",
           "reshape", "round", "rsqrt", "sigmoid", "sin", "split", "sqrt", "squeeze", "stack", "strided_slice",
           "subtract", "sum", "tag", "take", "tanh", "tensordot", "testing", "tile", "transform", "transpose",
           "trunc", "utils", "where", "x86"]
