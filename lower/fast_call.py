"""The usual call of a built function, checked by a function written for its arguments.

Checking a call through the general code (:mod:`lower.binding`, :mod:`lower.call_checks`)
costs tens of microseconds, most of it in looking things up that do not change between calls.
As TVM's argument binder is generated for each function, a Python function is written for
each built function: it accepts only the usual call (plain C-contiguous NumPy arrays of the
tensors' dtypes and shapes, integer scalars in range, no overlap) and returns the arrays' data
addresses and the scalar values. Anything else returns None, and the general code then raises
the precise error, or handles the rest (copies of non-contiguous arrays, arrays that are one
array in place).
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from lower.backend.names import Names
from lower.backend.python.expr import ExprSource
from lower.backend.python.runtime import RUNTIME
from lower.call_checks import CallChecks
from schedule.ir.expr import Expr, IntImm, Var
from schedule.ir.functor import free_vars
from schedule.operation.tensor import Tensor

#: ``(data addresses, scalar values)`` of a call, or None for the general path.
FastCall = Callable[..., "tuple[list[int], list[Any]] | None"]

_c_char, _addressof = ctypes.c_char, ctypes.addressof


def address(a: np.ndarray) -> int:
    """The address of *a*'s data (faster than ``a.ctypes.data`` for a writable array)."""
    try:
        return _addressof(_c_char.from_buffer(a))
    except (TypeError, ValueError):  # read-only, or empty
        return a.ctypes.data


def fast_call(args: Sequence[Tensor | Var], params: Sequence[Var], writes: Sequence[bool],
              checks: CallChecks) -> FastCall | None:
    """The checking function of a call of *args* (see the module); None where a shape needs
    the general binding (a dimension such as ``m * 4`` whose variable no other gives)."""
    names = Names()
    expr = ExprSource(names, checks=False)
    lines: list[str] = []
    env: dict[str, Any] = {**RUNTIME, "_ndarray": np.ndarray, "_address": address}
    arg_names = [names(a, f"a{k}") for k, a in enumerate(args)]

    def bind(v: Var, text: str) -> None:
        lines.append(f"{names(v, v.name)} = {text}")
        expr.defined[v] = 1

    for k, a in enumerate(args):  # scalars first: they may give shapes
        if isinstance(a, Var):
            kinds = "(float, int)" if a.dtype.startswith("float") else "(int,)"
            lines.append(f"if {arg_names[k]}.__class__ not in {kinds}: return None")
            bind(a, arg_names[k])
    tensors = [(k, a) for k, a in enumerate(args) if isinstance(a, Tensor)]
    compound: list[tuple[int, int, Expr]] = []
    for k, t in tensors:
        a = arg_names[k]
        env[f"_d{k}"] = np.dtype(t.dtype)
        lines.append(f"if {a}.__class__ is not _ndarray or {a}.dtype is not _d{k}: return None")
        lines.append(f"s{k} = {a}.shape")
        lines.append(f"if len(s{k}) != {len(t.shape)}: return None")
        for d, e in enumerate(t.shape):
            if isinstance(e, Var) and not expr.defined.get(e):
                bind(e, f"s{k}[{d}]")
            elif isinstance(e, IntImm):
                lines.append(f"if s{k}[{d}] != {e.value}: return None")
            else:
                compound.append((k, d, e))
    known = [v for v in expr.defined if expr.defined[v]]
    exprs = [e for _, _, e in compound] + [c.expr for c in checks.conditions]
    if any(v not in known for v in [*params, *free_vars(exprs)]):
        return None  # a shape the general binding solves for
    if compound:
        lines.append(f"if {' or '.join(f's{k}[{d}] != ({expr(e)})' for k, d, e in compound)}: return None")
    for j, (k, _) in enumerate(tensors):
        test = f"{arg_names[k]}.flags.c_contiguous" + (f" and {arg_names[k]}.flags.writeable" if writes[j] else "")
        lines.append(f"if not ({test}): return None")
    tests = [f"{lo} <= {names(v, v.name)} <= {hi}" for v, lo, hi in checks.ranges]
    tests += [f"({expr(c.expr)}) >= {c.least}" for c in checks.conditions]
    if tests:
        lines.append(f"if not ({' and '.join(tests)}): return None")
    if checks.reads is not None:  # checked once for each set of values, by the general path
        env["_reads_ok"] = checks.reads_ok
        if any(v not in known for v in checks.reads.variables):
            return None
        key = "".join(f"{names(v, v.name)}, " for v in checks.reads.variables)
        lines.append(f"if ({key}) not in _reads_ok: return None")
    for k, _ in tensors:
        lines.append(f"p{k} = _address({arg_names[k]})")
    overlaps = []
    for j, (o, _) in enumerate(tensors):
        for i, (k, _) in enumerate(tensors):
            if checks.overlap and writes[j] and k != o and not (writes[i] and i < j):
                overlaps.append(f"(p{o} < p{k} + {arg_names[k]}.nbytes and p{k} < p{o} + {arg_names[o]}.nbytes)")
    if overlaps:
        lines.append(f"if {' or '.join(overlaps)}: return None")
    values = ", ".join(names(v, v.name) for v in params)
    lines.append(f"return [{', '.join(f'p{k}' for k, _ in tensors)}], [{values}]")
    source = f"def _fast({', '.join(arg_names)}):\n" + "".join(f"    {line}\n" for line in lines)
    exec(compile(source, "<fast call>", "exec"), env)  # noqa: S102 - our own generated source
    return env["_fast"]
