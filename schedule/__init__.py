"""The te-like DSL and the schedule language (``import schedule as te`` mirrors ``tvm.te``).

The XLA side lives in ``schedule.xla``: ``ops`` (an XLA-like op library), ``hlo`` (HLO text
into those ops) and ``rewrite`` (reshape/broadcast rewrites), also reachable as
``schedule.ops``, ``schedule.hlo`` and ``schedule.rewrite``.
"""

from __future__ import annotations

import importlib
from typing import Any

from schedule.base import moved
from schedule.base.errors import InternalError, ScheduleError, ScheduleTypeError, TeError
from schedule.base.memory_info import MemoryInfo
from schedule.base.packed import get_global_func, register_func
from schedule.base.serialize import load_json, save_json

# The faces of schedule.ir and schedule.operation install the operators of expressions and
# tensors when first imported (see their docstrings).
from schedule.ir import arith, functor, ir_builder, printer  # noqa: F401
from schedule.ir.arith import (  # noqa: A004
    all,
    any,
    const,
    div,
    floordiv,
    floormod,
    if_then_else,
    max_value,
    min_value,
    select,
    truncmod,
)
from schedule.ir.arith import div as truncdiv
from schedule.ir.buffer import BufferArg, DeclBuffer, call_packed, decl_buffer
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Call,
    Cast,
    Div,
    Expr,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    ProducerLoad,
    Reduce,
    Select,
    SizeVar,
    StringImm,
    Sub,
    Var,
)
from schedule.ir.extern_calls import call_extern, call_intrin, call_pure_extern, register_intrin_lowering
from schedule.ir.functor import (
    ExprFunctor,
    ExprMutator,
    ExprVisitor,
    post_order_visit,
    structural_equal,
    substitute,
)
from schedule.ir.intrinsics import (
    abs,  # noqa: A004
    acos,
    acosh,
    asin,
    asinh,
    atan,
    atan2,
    atanh,
    ceil,
    clz,
    copysign,
    cos,
    cosh,
    erf,
    exp,
    exp2,
    exp10,
    fast_erf,
    fast_exp,
    fast_log,
    fast_sigmoid,
    fast_tanh,
    floor,
    hypot,
    isfinite,
    isinf,
    isnan,
    ldexp,
    likely,
    log,
    log1p,
    log2,
    log10,
    nearbyint,
    nextafter,
    popcount,
    power,
    reinterpret,
    round,  # noqa: A004
    rsqrt,
    sigmoid,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    trunc,
)
from schedule.ir.itervar import IterVar, IterVarType, Range, reduce_axis, thread_axis
from schedule.ir.reduce import CommReducer, comm_reducer, max, min, sum  # noqa: A004
from schedule.operation import hybrid  # noqa: F401
from schedule.operation.autodiff import gradient
from schedule.operation.compute import ComputeOp, compute
from schedule.operation.extern import ExternOp, extern
from schedule.operation.graph import feed_graph, post_dfs_order, read_graph
from schedule.operation.hybrid.op import HybridOp
from schedule.operation.placeholder import PlaceholderOp, placeholder
from schedule.operation.scan import ScanOp, scan
from schedule.operation.tag import TagScope, tag_scope
from schedule.operation.tensor import Operation, Tensor
from schedule.operation.tensor_intrin import TensorIntrin, decl_tensor_intrin
from schedule.schedule.graph import attach_path, create_attach_path, stage_graph
from schedule.schedule.relations import Fuse, IterVarRelation, Rebase, Singleton, Split
from schedule.schedule.schedule import Schedule, create_schedule
from schedule.schedule.stage import AttachType, IterVarAttr, Stage
from schedule.schedule.transform_layout import AXIS_SEPARATOR

#: Marks the package as this project's (see bound.package_clash).
__tebound__ = True

indexdiv = floordiv
indexmod = floormod


moved.install()  # text and pickles saved before the split into layers name the old modules


def var(name: str = "tindex", dtype: str = "int32") -> Var:
    """A new symbolic variable (for symbolic shapes, split factors ...)."""
    return Var(name, dtype)


def size_var(name: str = "size", dtype: str = "int32") -> SizeVar:
    """A new variable standing for a size (never negative), for symbolic shapes."""
    return SizeVar(name, dtype)


def __getattr__(name: str) -> Any:
    """``schedule.ops``, ``schedule.hlo`` and ``schedule.rewrite``: the XLA modules, loaded when
    first asked for (they build on this package); and the modules that moved into rooms, under
    their old names (``te.tensor``, ``te.expr`` ...)."""
    if name in ("ops", "hlo", "rewrite"):
        return importlib.import_module(f"schedule.xla.{name}")
    return moved.old_submodule("schedule", name)
