"""The names a hybrid script sees when it runs on NumPy arrays (TVM's software emulation):
loop kinds are ``range``, tensors are NumPy arrays, math is NumPy's."""

from __future__ import annotations

from typing import Any

import numpy as np


def _range(*args: Any) -> range:
    return range(*(int(a) for a in args))


def _bind(tag: str, extent: Any) -> range:
    return range(int(extent))


def _output_tensor(shape: Any, dtype: str = "float32") -> np.ndarray:
    return np.zeros(tuple(shape) if isinstance(shape, (tuple, list)) else (shape,), dtype=dtype)


def _allocate(shape: Any, dtype: str = "float32", scope: str = "global") -> np.ndarray:
    return _output_tensor(shape, dtype)


def _sigmoid(x: Any) -> Any:
    return 1 / (1 + np.exp(-x))


def _popcount(x: Any) -> int:
    return bin(int(x) & 0xFFFFFFFF).count("1")


def _ceil_div(a: Any, b: Any) -> int:
    return -(-int(a) // int(b))


def _max_num_threads(allow_none: bool = True) -> int:
    return 1024


#: Loop kinds, by the name a script calls them with.
LOOPS = ("range", "const_range", "serial", "parallel", "vectorize", "unroll", "bind")
#: Math functions, by name, and the dtype constructors (``float32(x)`` casts).
MATH = ("sqrt", "log", "exp", "tanh", "sigmoid", "power", "ceil_div", "popcount")
DTYPES = ("float16", "float32", "float64", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
          "uint64")

HYBRID_GLOBALS: dict[str, Any] = {
    **{name: _range for name in LOOPS if name != "bind"}, "bind": _bind,
    "output_tensor": _output_tensor, "allocate": _allocate,
    "sqrt": np.sqrt, "log": np.log, "exp": np.exp, "tanh": np.tanh, "sigmoid": _sigmoid, "power": np.power,
    "ceil_div": _ceil_div, "popcount": _popcount, "max_num_threads": _max_num_threads,
    **{name: getattr(np, name) for name in DTYPES},
}


def emulate(func: Any, args: tuple[Any, ...]) -> Any:
    """*func* run on NumPy arrays and numbers, the hybrid names in its globals."""
    import types

    env = {**func.__globals__, **HYBRID_GLOBALS}
    fn = types.FunctionType(func.__code__, env, func.__name__, func.__defaults__, func.__closure__)
    # A list argument is an array, as in the parsed script (b[i, j] indexes a list of lists).
    return fn(*(np.array(a) if isinstance(a, (list, tuple)) else a for a in args))
