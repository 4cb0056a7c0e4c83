"""TVM's operator library (``tvm.topi``) over our te: element-wise operators (:mod:`.math`),
broadcasting binary operators (:mod:`.broadcast`) and reductions (:mod:`.reduction`), with
TVM's names, signatures and tags (:mod:`.tag`). Computes only, so far: schedule them with te
(or ``te.create_schedule`` as they are)."""

from topi import tag
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

__all__ = ["abs", "add", "argmax", "argmin", "broadcast_shape", "cast", "ceil", "clip", "cos", "divide", "equal",
           "erf", "exp", "fast_erf", "fast_exp", "fast_log", "fast_tanh", "floor", "floor_divide", "greater",
           "greater_equal", "identity", "less", "less_equal", "log", "log2", "max", "maximum", "min", "minimum",
           "mod", "multiply", "negative", "not_equal", "power", "prod", "round", "rsqrt", "sigmoid", "sin", "sqrt",
           "subtract", "sum", "tag", "tanh", "trunc", "where"]
