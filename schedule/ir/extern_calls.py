"""Calls by name: external functions (``call_pure_extern``, ``call_extern``), intrinsics
(``call_intrin``), and the rules that lower an intrinsic for a target (``register_intrin_lowering``).

An external function runs as the C library function of that name (``expf``, ``__expf`` and
``exp`` are the libm exponential) or as a Python function registered under the name with
``te.register_func``. An intrinsic without a built-in meaning needs a lowering rule for the
target it is built for, as TVM's LowerIntrin requires.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any

from schedule.base.checks import check_name
from schedule.base.errors import ScheduleError, ScheduleTypeError
from schedule.ir import arith
from schedule.ir.buffer import BufferArg, DeclBuffer
from schedule.ir.dtype import check_dtype
from schedule.ir.expr import Call, Expr, StringImm

#: Names of the calls whose first argument is the external function's name.
EXTERN_CALLS = ("call_pure_extern", "call_extern")

_RULES: dict[tuple[str, str], tuple[int, Callable[[Call], Expr]]] = {}
_OP_ATTRS: dict[tuple[str, str], tuple[int, Any]] = {}


class CallEffectKind(enum.IntEnum):
    """What a call does besides returning its value (TVM's ``tir.CallEffectKind``)."""

    ExprAnnotation = 0
    Pure = 1
    ReadState = 2
    UpdateState = 3
    Opaque = 3
    SpecialCallArg = 4
    Embedded = 5
    ControlJump = 6


def register_op_attr(op_name: str, attr_key: str, value: Any = None, level: int = 10) -> Any:
    """Attaches *value* to the operator *op_name* under *attr_key* (TVM's ``ir.register_op_attr``,
    as ``"TCallEffectKind"``); of two values, the higher *level* wins. Calls of any name are
    accepted whatever their attributes: they are kept for :func:`op_attr`. A decorator without
    *value*."""
    check_name("register_op_attr", op_name)
    check_name("register_op_attr", attr_key)

    def register(v: Any) -> Any:
        key = (op_name.removeprefix("tir."), attr_key)
        if key not in _OP_ATTRS or _OP_ATTRS[key][0] <= level:
            _OP_ATTRS[key] = (level, v)
        return v
    return register(value) if value is not None else register


def op_attr(op_name: str, attr_key: str) -> Any:
    """The value registered for *op_name* under *attr_key*, or None."""
    found = _OP_ATTRS.get((op_name.removeprefix("tir."), attr_key))
    return found[1] if found is not None else None


def _args(what: str, args: tuple[Any, ...]) -> tuple[Expr, ...]:
    out: list[Expr] = []
    for k, a in enumerate(args):
        if isinstance(a, str):  # a name, such as the scope of tvm_storage_sync
            out.append(StringImm(a))
            continue
        if isinstance(a, DeclBuffer):  # a buffer or its ``.data``, as the wmma intrinsics take
            out.append(BufferArg(a))
            continue
        try:
            out.append(arith.convert(a))
        except TypeError as err:
            raise ScheduleTypeError(f"{what}: argument {k}: {err}") from None
    return tuple(out)


def call_pure_extern(dtype: str, func_name: str, *args: Any) -> Expr:
    """A call of the external function *func_name*, without side effects, returning *dtype*."""
    check_name("call_pure_extern", func_name)
    return Call(check_dtype(dtype), "call_pure_extern", (StringImm(func_name), *_args(func_name, args)))


def call_extern(dtype: str, func_name: str, *args: Any) -> Expr:
    """A call of the external function *func_name*, returning *dtype*."""
    check_name("call_extern", func_name)
    return Call(check_dtype(dtype), "call_extern", (StringImm(func_name), *_args(func_name, args)))


def call_intrin(dtype: str, op_name: str, *args: Any) -> Expr:
    """A call of the intrinsic *op_name* (``"tir.exp"`` or ``"exp"``), returning *dtype*."""
    check_name("call_intrin", op_name)
    return Call(check_dtype(dtype), op_name.removeprefix("tir."), _args(op_name, args))


def register_intrin_lowering(op_name: str, target: str = "default", f: Callable[[Call], Expr] | None = None,
                             level: int = 10) -> Any:
    """Lower the intrinsic *op_name* with *f(call)* when building for *target* (``"default"``
    applies to every target); of two rules, the higher *level* wins. A decorator without *f*."""
    check_name("register_intrin_lowering", op_name)
    check_name("register_intrin_lowering", target)

    def register(fn: Callable[[Call], Expr]) -> Callable[[Call], Expr]:
        if not callable(fn):
            raise ScheduleTypeError(f"register_intrin_lowering '{op_name}': {fn!r} is not callable")
        key = (op_name.removeprefix("tir."), target)
        if key in _RULES and _RULES[key][0] > level:
            return fn
        _RULES[key] = (level, fn)
        return fn
    return register(f) if f is not None else register


def lowering_rule(name: str, target: str | tuple[str, ...]) -> Callable[[Call], Expr] | None:
    """The rule for the intrinsic *name* on *target* (the first of several names that has one:
    a TVM target's kind, then ours), else its ``"default"`` rule."""
    for t in (*_names(target), "default"):
        found = _RULES.get((name, t))
        if found is not None:
            return found[1]
    return None


def has_rules(target: str | tuple[str, ...]) -> bool:
    """Whether any rule applies when building for *target* (one name or several)."""
    names = (*_names(target), "default")
    return any(t in names for _, t in _RULES)


def _names(target: str | tuple[str, ...]) -> tuple[str, ...]:
    return (target,) if isinstance(target, str) else tuple(target)


def check_rule_result(name: str, result: Any) -> Expr:
    """What a rule returned, if it is an expression."""
    if not isinstance(result, Expr):
        raise ScheduleError(f"the lowering rule of intrinsic '{name}' returned {type(result).__name__}, "
                            "not an expression")
    return result
