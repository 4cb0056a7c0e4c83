"""TVM's ``tvm.tir.transform``: the passes we have, one at a time (``lower.transform``), with
``Simplify``, ``RemoveNoOp``, ``HoistIfThenElse``, ``UnrollLoop``, ``LoopPartition`` (SSA)
and ``VectorizeLoop`` as TVM v0.13 has them (TVM's analyzer and forms, its pass options), so
that TVM's pass tests compare with TVM's results. Our own lowering keeps its simplifier
(``lower.transform``)."""

import dataclasses
import functools
import inspect
from collections.abc import Callable
from typing import Any

import lower.transform as _ours
from lower.backend.cuda.split import HostAccessError, host_access
from lower.ir.stmt import AttrStmt, For, ForKind, Stmt
from lower.ir.stmt_functor import ir_transform
from lower.passes.loop_partition import loop_partition, partition_options
from lower.passes.unroll_loop import unroll_loop
from lower.target import Target
from lower.transform import *  # noqa: F403
from lower.transform import FunctionPass, Pass
from schedule.ir import arith
from schedule.ir.expr import Expr
from tebound.tvm.tir.allocations import bare, scoped
from tebound.tvm.tir.double_buffer import inject_double_buffer
from tebound.tvm.tir.hoist_if import hoist_if_then_else
from tebound.tvm.tir.remove_no_op import remove_no_op
from tebound.tvm.tir.simplify import simplify
from tebound.tvm.tir.ssa import convert_ssa
from tebound.tvm.tir.vectorize import vectorize_loop


def Simplify() -> Pass:  # noqa: N802
    """TVM's Simplify (see :mod:`tebound.tvm.tir.simplify`)."""
    return Pass("Simplify", simplify)


def RemoveNoOp() -> Pass:  # noqa: N802
    """TVM's RemoveNoOp (see :mod:`tebound.tvm.tir.remove_no_op`)."""
    return Pass("RemoveNoOp", remove_no_op)


def HoistIfThenElse(variant: str | None = None) -> Pass:  # noqa: N802
    """TVM's HoistIfThenElse (see :mod:`tebound.tvm.tir.hoist_if`); *variant* is TVM's and
    is ignored."""
    return Pass("HoistIfThenElse", hoist_if_then_else)


def UnrollLoop() -> Pass:  # noqa: N802
    """Our unrolling, then each copied definition made fresh, as TVM's UnrollLoop does."""
    return Pass("UnrollLoop", lambda s: convert_ssa(unroll_loop(s)[0]))


def VectorizeLoop(enable_vectorize: bool = True) -> Pass:  # noqa: N802
    """TVM's VectorizeLoop (see :mod:`tebound.tvm.tir.vectorize`); with *enable_vectorize*
    False, vectorized loops become serial."""
    if not enable_vectorize:
        return Pass("VectorizeLoop", lambda s: ir_transform(s, None, _serial, ["tir.For"]))
    return Pass("VectorizeLoop", vectorize_loop)


def _serial(loop: For) -> For | None:
    return dataclasses.replace(loop, kind=ForKind.SERIAL) if loop.kind is ForKind.VECTORIZED else None


def LoopPartition() -> Pass:  # noqa: N802
    """Our loop partitioning, then each copied loop given a variable of its own, as TVM's
    LoopPartition leaves the program in SSA form."""
    return Pass("LoopPartition", lambda s: convert_ssa(loop_partition(s, **partition_options())))


def InjectDoubleBuffer() -> Pass:  # noqa: N802
    """TVM's InjectDoubleBuffer (see :mod:`tebound.tvm.tir.double_buffer`)."""
    return Pass("InjectDoubleBuffer", inject_double_buffer)


def LowerOpaqueBlock() -> Pass:  # noqa: N802
    """TVM's LowerOpaqueBlock on the functions we read (which have no blocks): a loop's
    ``pragma_*`` annotations become attributes around it, as TVM lowers them."""
    return Pass("LowerOpaqueBlock", lambda s: ir_transform(s, None, _pragmas_as_attributes, ["tir.For"]))


def FlattenBuffer() -> Pass:  # noqa: N802
    """Nothing: our buffers are flat already (TVM's FlattenBuffer flattens TensorIR's)."""
    return Pass("FlattenBuffer", lambda s: s)


def _pragmas_as_attributes(loop: For) -> Stmt | None:
    pragmas = [(k, v) for k, v in loop.annotations if k.startswith("pragma_")]
    if not pragmas:
        return None
    out: Stmt = dataclasses.replace(loop, annotations=tuple((k, v) for k, v in loop.annotations
                                                            if not k.startswith("pragma_")))
    for key, value in reversed(pragmas):
        out = AttrStmt(loop.loop_var, key, value if isinstance(value, Expr) else arith.convert(value), out)
    return out


def prim_func_pass(pass_func: Any = None, opt_level: int | None = None, name: str | None = None,
                   required: Any = None, traceable: bool = False) -> Any:
    """TVM's decorator making a pass of ``pass_func(func, mod, ctx)``, which returns the function
    rewritten (``func.with_body(...)``), or of a class with that as ``transform_function``;
    without *pass_func*, the decorator itself (``@prim_func_pass(opt_level=0)``).

    :raises TypeError: for something that is neither a function nor such a class.
    """
    def make(fn: Any) -> FunctionPass:
        if inspect.isclass(fn):
            instance = fn()
            if not callable(getattr(instance, "transform_function", None)):
                raise TypeError(f"prim_func_pass: the class {fn.__name__} has no transform_function(func, mod, ctx)")
            return FunctionPass(name or fn.__name__, instance.transform_function)
        if not callable(fn):
            raise TypeError(f"prim_func_pass: decorates a function (func, mod, ctx) -> func, not {fn!r}")
        return FunctionPass(name or getattr(fn, "__name__", "prim_func_pass"), fn)
    return make if pass_func is None else make(pass_func)


def Apply(ftransform: Callable[[Any], Any]) -> FunctionPass:  # noqa: N802
    """The pass applying *ftransform* to each function of a module (TVM's ``tir.transform.Apply``)."""
    if not callable(ftransform):
        raise TypeError(f"Apply: takes a function func -> func, not {ftransform!r}")
    return FunctionPass("Apply", lambda func, mod, ctx: ftransform(func))


def VerifyMemory() -> FunctionPass:  # noqa: N802
    """The check that a function for a GPU (its ``"target"`` attribute's keys hold ``gpu``) reads
    and writes memory only inside thread-bound loops, where the device runs; functions for other
    targets pass unchanged.

    :raises HostAccessError: (a ``RuntimeError``) naming the function and the buffer the host touches.
    """
    def check(func: Any, mod: Any, ctx: Any) -> Any:
        target = getattr(func, "attrs", {}).get("target")
        if target is not None and not isinstance(target, Target):
            target = Target(str(target))
        touched = host_access(func.body) if target is not None and "gpu" in target.keys else None
        if touched is not None:
            raise HostAccessError(f"VerifyMemory: function '{getattr(func, 'name', 'main')}' for target "
                                  f"'{target.kind.name}' reads or writes '{touched.name}' outside every thread-bound "
                                  f"loop, where only the host runs; bind the loops of the stage that computes it to "
                                  f"blockIdx and threadIdx (did you forget to bind?)")
        return func
    return FunctionPass("VerifyMemory", check)


def _in_tvm_form(make: Callable[..., Pass]) -> Callable[..., Pass]:
    """*make*'s pass taking and giving allocations in TVM's form (see
    :mod:`tebound.tvm.tir.allocations`)."""
    @functools.wraps(make)
    def wrapped(*args: object, **kwargs: object) -> Pass:
        inner = make(*args, **kwargs)
        return Pass(inner.name, lambda s: bare(inner.rewrite(scoped(s))))
    return wrapped


for _name, _make in list(globals().items()):
    if (_name[:1].isupper() and callable(_make)
            and _name not in ("Pass", "Sequential", "FunctionPass", "Apply", "VerifyMemory", "Target")
            and (getattr(_make, "__module__", None) in (__name__, _ours.__name__))):
        globals()[_name] = _in_tvm_form(_make)
