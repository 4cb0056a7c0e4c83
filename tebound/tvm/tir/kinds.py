"""TVM classes that stand for two of ours: a loop is a lowered ``For`` or an ``ir_builder``
loop (``ib.get()`` before lowering); so are an allocation, a branch, a sequence, a let and an
attribute; a store is a flat ``Store``, a store into an extern's declared buffer or an
``ir_builder``'s, a load a flat one or an ``ir_builder``'s, an evaluation a lowered one or an
``ir_builder``'s, a function what ``tvm.lower`` returns or one built from a body.
``isinstance`` accepts either; calling the class builds the lowered kind (an evaluation the
``ir_builder``'s, which ``ib.emit`` takes and lowering turns into the other)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

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


def _either(name: str, doc: str, kinds: tuple[type, ...], make: Callable[..., Any]) -> Any:
    """The class *name* that ``isinstance`` matches to any of *kinds* and whose call is *make*'s."""
    def new(cls: type, *args: Any, **kwargs: Any) -> Any:
        return make(*args, **kwargs)
    return _EitherKind(name, (), {"__doc__": doc, "__module__": __name__, "kinds": kinds, "__new__": new})


For = _either("For", "TVM's ``tir.For``: a lowered loop, or an ``ir_builder`` loop.", (LoweredFor, Loop), LoweredFor)
BufferStore = _either("BufferStore", "TVM's ``tir.BufferStore``: a flat store, a store into a declared buffer, or "
                      "an ``ir_builder``'s.", (Store, DeclStore, ElemStore), Store)
Evaluate = _either("Evaluate", "TVM's ``tir.Evaluate``: an expression evaluated for its effect.",
                   (LoweredEvaluate, Eval), lambda value: Eval(arith.convert(value)))
PrimFunc = _either("PrimFunc", "TVM's ``tir.PrimFunc``: what ``tvm.lower`` returns, or a function built from a "
                   "body.", (LoweredFunc, ModulePrimFunc), ModulePrimFunc)
BufferLoad = _either("BufferLoad", "TVM's ``tir.BufferLoad``: a flat load, or an ``ir_builder``'s load of a "
                     "buffer.", (Load, ElemLoad), Load)
Allocate = _either("Allocate", "TVM's ``tir.Allocate``: a lowered allocation, or an ``ir_builder``'s.",
                   (lowered.Allocate, Alloc), lowered.Allocate)
IfThenElse = _either("IfThenElse", "TVM's ``tir.IfThenElse``: a lowered branch, or an ``ir_builder``'s.",
                     (lowered.IfThenElse, Branch), lowered.IfThenElse)
SeqStmt = _either("SeqStmt", "TVM's ``tir.SeqStmt``: lowered statements in order, or an ``ir_builder``'s.",
                  (lowered.SeqStmt, Block), lowered.SeqStmt)
LetStmt = _either("LetStmt", "TVM's ``tir.LetStmt``: a lowered let, or an ``ir_builder``'s.",
                  (lowered.LetStmt, Let), lowered.LetStmt)
AttrStmt = _either("AttrStmt", "TVM's ``tir.AttrStmt``: a lowered attribute, or an ``ir_builder``'s.",
                   (lowered.AttrStmt, Attr), lowered.AttrStmt)
