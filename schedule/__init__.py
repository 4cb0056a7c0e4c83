"""The te-like DSL and the schedule language (``import schedule as te`` mirrors ``tvm.te``).

The XLA side lives in ``schedule.xla``: ``ops`` (an XLA-like op library), ``hlo`` (HLO text
into those ops) and ``rewrite`` (reshape/broadcast rewrites), also reachable as
``schedule.ops``, ``schedule.hlo`` and ``schedule.rewrite``.
"""

from __future__ import annotations

from typing import Any

# First: arith, functor and printer give expressions their operators, hashing and text.
from schedule import arith, functor, hybrid, ir_builder, printer  # noqa: F401, I001
from schedule.arith import (  # noqa: A004
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
from schedule.arith import div as truncdiv
from schedule.autodiff import gradient
from schedule.buffer import BufferArg, DeclBuffer, call_packed, decl_buffer
from schedule.errors import InternalError, ScheduleError, ScheduleTypeError, TeError
from schedule.expr import (
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
    StringImm,
    Sub,
    Var,
)
from schedule.extern_calls import call_extern, call_intrin, call_pure_extern, register_intrin_lowering
from schedule.functor import (
    ExprFunctor,
    ExprMutator,
    ExprVisitor,
    post_order_visit,
    structural_equal,
    substitute,
)
from schedule.graph import (
    attach_path,
    create_attach_path,
    feed_graph,
    post_dfs_order,
    read_graph,
    stage_graph,
)
from schedule.intrinsics import (
    abs,  # noqa: A004
    acos,
    asin,
    atan,
    ceil,
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
    likely,
    log,
    log1p,
    log2,
    log10,
    power,
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
from schedule.itervar import IterVar, IterVarType, Range, reduce_axis, thread_axis
from schedule.memory_info import MemoryInfo
from schedule.packed import get_global_func, register_func
from schedule.reduce import CommReducer, comm_reducer, max, min, sum  # noqa: A004
from schedule.relations import Fuse, IterVarRelation, Rebase, Singleton, Split
from schedule.scan import ScanOp, scan
from schedule.schedule import Schedule, create_schedule
from schedule.serialize import load_json, save_json
from schedule.stage import AttachType, IterVarAttr, Stage
from schedule.tag import TagScope, tag_scope
from schedule.tensor import (
    ComputeOp,
    ExternOp,
    Operation,
    PlaceholderOp,
    Tensor,
    compute,
    extern,
    placeholder,
)
from schedule.tensor_intrin import TensorIntrin, decl_tensor_intrin
from schedule.transform_layout import AXIS_SEPARATOR

indexdiv = floordiv
indexmod = floormod


def var(name: str = "tindex", dtype: str = "int32") -> Var:
    """A new symbolic variable (for symbolic shapes, split factors ...)."""
    return Var(name, dtype)


size_var = var


def __getattr__(name: str) -> Any:
    """``schedule.ops``, ``schedule.hlo`` and ``schedule.rewrite``: the XLA modules, loaded when
    first asked for (they build on this package)."""
    if name in ("ops", "hlo", "rewrite"):
        import importlib

        return importlib.import_module(f"schedule.xla.{name}")
    raise AttributeError(f"module 'schedule' has no attribute '{name}'")
