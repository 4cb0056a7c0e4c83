"""The arrays of a call: checked against their tensors, and shape variables bound from them.

As TVM's argument binder does: every array must have its tensor's dtype and rank; a shape
dimension that is a variable takes the array's size, and every other dimension must equal
its value. A dimension such as ``m*4`` also binds ``m`` when it is the only unknown.
"""

from __future__ import annotations

import numbers
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from bound.arith.linear import Linear
from schedule.ir.dtype import is_float
from schedule.ir.evaluate import evaluate
from schedule.ir.expr import Expr, Var
from schedule.ir.functor import free_vars
from schedule.operation.tensor import Tensor

_NUMERIC_KINDS = "biuf"


def check_array(t: Tensor, value: Any, *, writes: bool) -> None:
    """Refuse an array the function cannot read (or write, for an output) as tensor *t*.

    :raises TypeError: if *value* is not a NumPy array, holds no numbers, or has another dtype.
    :raises ValueError: if the function writes *t* and *value* is read-only.
    """
    if not isinstance(value, np.ndarray):
        raise TypeError(f"argument '{t.name}' must be a NumPy array, not {type(value).__name__}")
    if value.dtype.kind not in _NUMERIC_KINDS:
        raise TypeError(f"argument '{t.name}' holds {value.dtype} values, not numbers; the tensor is "
                        f"{t.dtype}")
    if value.dtype != np.dtype(t.dtype):
        raise TypeError(f"argument '{t.name}' has dtype {value.dtype}, but the tensor is {t.dtype}; "
                        f"convert it with .astype('{t.dtype}')")
    if writes and not value.flags.writeable:
        raise ValueError(f"argument '{t.name}' is read-only, but the function writes it; pass a "
                         "writable array")


def bind_shapes(args: Sequence[Tensor | Var], values: Sequence[Any],
                layouts: Mapping[Tensor, Any]) -> dict[Var, int]:
    """The value of every scalar argument and shape variable, from the call's values.

    :raises TypeError: for a scalar argument that is not an integer (a number, for a float one).
    :raises ValueError: for an array whose shape disagrees with its tensor's, naming the
        argument and the dimension.
    """
    env: dict[Var, int] = {}
    origin: dict[Var, str] = {}
    for a, value in zip(args, values):
        if isinstance(a, Var):
            if is_float(a.dtype):  # a float scalar (a bias ...): any real number
                if isinstance(value, bool) or not isinstance(value, numbers.Real):
                    raise TypeError(f"argument '{a.name}' is a {a.dtype} scalar; pass a number, not "
                                    f"{type(value).__name__}")
                env[a] = float(value)  # type: ignore[assignment]
                continue
            if a.dtype == "bool":  # a flag: True or False (NumPy's bools too), or 0 or 1
                if not isinstance(value, (bool, np.bool_, numbers.Integral)) or int(value) not in (0, 1):
                    raise TypeError(f"argument '{a.name}' is a bool scalar; pass True or False, not {value!r}")
                env[a], origin[a] = int(bool(value)), f"argument '{a.name}'"
                continue
            if isinstance(value, bool) or not isinstance(value, numbers.Integral):
                raise TypeError(f"argument '{a.name}' is a scalar variable; pass an integer, not "
                                f"{type(value).__name__}")
            env[a], origin[a] = int(value), f"argument '{a.name}'"
    dims: list[tuple[Tensor, int, Expr, int]] = []
    shapes: dict[Tensor, tuple[int, ...]] = {}
    for t, value in zip(args, values):
        if not isinstance(t, Tensor):
            continue
        lay = layouts.get(t)
        if lay is not None:
            shapes_ok = [(lay.physical_size,), tuple(getattr(lay, "physical_shape", ()))]
            if value.shape not in shapes_ok:
                raise ValueError(f"argument '{t.name}' has shape {value.shape}; its layout {lay} holds "
                                 f"{lay.physical_size} elements")
            continue
        if value.ndim != len(t.shape):
            raise ValueError(f"argument '{t.name}' has {value.ndim} dimensions, but the tensor has "
                             f"{len(t.shape)} (shape {_shape_text(t)})")
        dims += [(t, d, e, n) for d, (e, n) in enumerate(zip(t.shape, value.shape))]
        shapes[t] = value.shape
    pending = list(dims)
    while pending:
        rest = [item for item in pending if not _bind(item, env, origin)]
        if len(rest) == len(pending):
            t, d, e, _ = rest[0]
            unknown = ", ".join(v.name for v in free_vars([e]) if v not in env)
            raise ValueError(f"argument '{t.name}': dimension {d} is {e}, and no argument's shape gives "
                             f"{unknown} directly; add a tensor or scalar argument that does")
        pending = rest
    for t, d, e, n in dims:
        expected = evaluate(e, env)
        if expected == n:
            continue
        if not free_vars([e]):
            raise ValueError(f"argument '{t.name}' has shape {shapes[t]}; the tensor's "
                             f"shape is {_shape_text(t)}")
        raise ValueError(f"argument '{t.name}' has {n} elements in dimension {d}, but the tensor has "
                         f"{e} = {expected} there ({_given(e, origin)})")
    return env


def _bind(item: tuple[Tensor, int, Expr, int], env: dict[Var, int], origin: dict[Var, str]) -> bool:
    """Bind the one unknown of a dimension if it can be solved for; False if it cannot yet."""
    t, d, e, n = item
    unknown = [v for v in free_vars([e]) if v not in env]
    if not unknown:
        return True
    if len(unknown) > 1:
        return False
    v = unknown[0]
    lin = Linear.of(e)
    coeff = lin.terms.get(v)
    if coeff is None or any(a is not v and v in free_vars([a]) for a in lin.terms):
        return False
    rest = sum(k * evaluate(a, env) for a, k in lin.terms.items() if a is not v) + lin.const
    if (n - rest) % coeff:
        raise ValueError(f"argument '{t.name}' has {n} elements in dimension {d}, which is not {e} for "
                         f"any integer {v.name}")
    env[v], origin[v] = (n - rest) // coeff, f"dimension {d} of argument '{t.name}'"
    return True


def _given(e: Expr, origin: Mapping[Var, str]) -> str:
    return "; ".join(f"{v.name} from {origin[v]}" for v in free_vars([e]) if v in origin) or "a constant"


def _shape_text(t: Tensor) -> str:
    return "(" + ", ".join(str(e) for e in t.shape) + ("," if len(t.shape) == 1 else "") + ")"
