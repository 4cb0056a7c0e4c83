"""TVM classes that stand for two of ours: a loop is a lowered ``For`` or an ``ir_builder``
loop (``ib.get()`` before lowering), a store a flat ``Store`` or a store into an extern's
declared buffer, an evaluation a lowered one or an ``ir_builder``'s, a function what
``tvm.lower`` returns or one built from a body. ``isinstance``
accepts either; calling the class builds the lowered kind (an evaluation the ``ir_builder``'s,
which ``ib.emit`` takes and lowering turns into the other)."""

from __future__ import annotations

from typing import Any, ClassVar

from lower.ir.stmt import DeclStore, Store
from lower.ir.stmt import Evaluate as LoweredEvaluate
from lower.ir.stmt import For as LoweredFor
from lower.lower import LoweredFunc
from lower.module import PrimFunc as ModulePrimFunc
from schedule.ir import arith
from schedule.ir.extern_stmt import Eval, Loop


class _EitherKind(type):
    kinds: tuple[type, ...]

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, cls.kinds)


class For(metaclass=_EitherKind):
    """TVM's ``tir.For``: a lowered loop, or an ``ir_builder`` loop."""

    kinds: ClassVar[tuple[type, ...]] = (LoweredFor, Loop)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return LoweredFor(*args, **kwargs)


class BufferStore(metaclass=_EitherKind):
    """TVM's ``tir.BufferStore``: a flat store, or a store into a declared buffer."""

    kinds: ClassVar[tuple[type, ...]] = (Store, DeclStore)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return Store(*args, **kwargs)


class Evaluate(metaclass=_EitherKind):
    """TVM's ``tir.Evaluate``: an expression evaluated for its effect."""

    kinds: ClassVar[tuple[type, ...]] = (LoweredEvaluate, Eval)

    def __new__(cls, value: Any) -> Any:
        return Eval(arith.convert(value))


class PrimFunc(metaclass=_EitherKind):
    """TVM's ``tir.PrimFunc``: what ``tvm.lower`` returns, or a function built from a body."""

    kinds: ClassVar[tuple[type, ...]] = (LoweredFunc, ModulePrimFunc)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return ModulePrimFunc(*args, **kwargs)
