"""TVM classes that stand for two of ours: a loop is a lowered ``For`` or an ``ir_builder``
loop (``ib.get()`` before lowering); so are an allocation, a branch, a sequence, a let and an
attribute; a store is a flat ``Store``, a store into an extern's declared buffer or an
``ir_builder``'s, a load a flat one or an ``ir_builder``'s, an evaluation a lowered one or an
``ir_builder``'s, a function what ``tvm.lower`` returns or one built from a body.
``isinstance`` accepts either; calling the class builds the lowered kind (an evaluation the
``ir_builder``'s, which ``ib.emit`` takes and lowering turns into the other)."""

from __future__ import annotations

from typing import Any, ClassVar

from lower.ir import stmt as lowered
from lower.ir.stmt import DeclStore, Load, Store
from lower.ir.stmt import Evaluate as LoweredEvaluate
from lower.ir.stmt import For as LoweredFor
from lower.lower import LoweredFunc
from lower.module import PrimFunc as ModulePrimFunc
from schedule.ir import arith
from schedule.ir.extern_stmt import Alloc, Attr, Block, Branch, ElemLoad, ElemStore, Eval, Let, Loop


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

    kinds: ClassVar[tuple[type, ...]] = (Store, DeclStore, ElemStore)

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


class BufferLoad(metaclass=_EitherKind):
    """TVM's ``tir.BufferLoad``: a flat load, or an ``ir_builder``'s load of a buffer."""

    kinds: ClassVar[tuple[type, ...]] = (Load, ElemLoad)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return Load(*args, **kwargs)


class Allocate(metaclass=_EitherKind):
    """TVM's ``tir.Allocate``: a lowered allocation, or an ``ir_builder``'s."""

    kinds: ClassVar[tuple[type, ...]] = (lowered.Allocate, Alloc)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return lowered.Allocate(*args, **kwargs)


class IfThenElse(metaclass=_EitherKind):
    """TVM's ``tir.IfThenElse``: a lowered branch, or an ``ir_builder``'s."""

    kinds: ClassVar[tuple[type, ...]] = (lowered.IfThenElse, Branch)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return lowered.IfThenElse(*args, **kwargs)


class SeqStmt(metaclass=_EitherKind):
    """TVM's ``tir.SeqStmt``: lowered statements in order, or an ``ir_builder``'s."""

    kinds: ClassVar[tuple[type, ...]] = (lowered.SeqStmt, Block)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return lowered.SeqStmt(*args, **kwargs)


class LetStmt(metaclass=_EitherKind):
    """TVM's ``tir.LetStmt``: a lowered let, or an ``ir_builder``'s."""

    kinds: ClassVar[tuple[type, ...]] = (lowered.LetStmt, Let)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return lowered.LetStmt(*args, **kwargs)


class AttrStmt(metaclass=_EitherKind):
    """TVM's ``tir.AttrStmt``: a lowered attribute, or an ``ir_builder``'s."""

    kinds: ClassVar[tuple[type, ...]] = (lowered.AttrStmt, Attr)

    def __new__(cls, *args: Any, **kwargs: Any) -> Any:
        return lowered.AttrStmt(*args, **kwargs)
