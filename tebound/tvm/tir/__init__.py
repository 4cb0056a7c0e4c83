"""TVM's ``tvm.tir``: expressions and their constructors, index arithmetic, math intrinsics,
calls, buffers, the IR builder, the statements (ours are flat: ``BufferStore``/``BufferLoad``
name our ``Store``/``Load``; ``For`` and ``BufferStore`` also match an ``ir_builder``'s, see
:mod:`.kinds`), ``PrimFunc``, ``stmt_functor`` and ``transform``."""

from lower.ir.stmt import (
    Allocate,
    AttrStmt,
    ForKind,
    IfThenElse,
    LetStmt,
    Load,
    ProducerConsumer,
    Provide,
    Realize,
    SeqStmt,
    Stmt,
    Store,
)
from lower.ir.stmt import Load as BufferLoad
from lower.ir.stmt import Provide as ProducerStore
from lower.ir.stmt import Realize as ProducerRealize
from lower.module import stmt_list
from schedule import (
    abs,  # noqa: A004
    all,  # noqa: A004
    any,  # noqa: A004
    call_extern,
    call_intrin,
    call_packed,
    call_pure_extern,
    const,
    decl_buffer,
    div,
    exp,
    floordiv,
    floormod,
    if_then_else,
    indexdiv,
    indexmod,
    ir_builder,
    max,
    max_value,
    min,
    min_value,
    power,
    sigmoid,
    sqrt,
    tanh,
    truncdiv,
    truncmod,
)
from schedule.ir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Broadcast,
    Call,
    Cast,
    Div,
    FloatImm,
    FloorDiv,
    FloorMod,
    IntImm,
    Let,
    Max,
    Min,
    Mod,
    Mul,
    Not,
    Or,
    ProducerLoad,
    Ramp,
    Reduce,
    Select,
    SizeVar,
    StringImm,
    Sub,
    Var,
)
from schedule.ir.expr import Expr as PrimExpr
from schedule.ir.extern_calls import CallEffectKind
from schedule.ir.intrinsics import (
    acos,
    asin,
    atan,
    ceil,
    cos,
    cosh,
    erf,
    exp2,
    exp10,
    floor,
    isfinite,
    isinf,
    isnan,
    likely,
    log1p,
    log2,
    log10,
    reinterpret,
    round,  # noqa: A004
    rsqrt,
    sin,
    sinh,
    tan,
    trunc,
)
from tebound.tvm.tir import buffer, expr, op, stmt, stmt_functor, transform
from tebound.tvm.tir.expr import Any
from tebound.tvm.tir.kinds import BufferStore, Evaluate, For, PrimFunc
from tebound.tvm.tir.op import log

__all__ = [
    "Add", "Allocate", "And", "Any", "AttrStmt", "Broadcast", "BufferLoad", "BufferStore", "Call",
    "CallEffectKind", "Cast", "Div", "EQ", "Evaluate", "FloatImm", "FloorDiv", "FloorMod", "For", "ForKind", "GE",
    "GT", "IfThenElse", "IntImm", "LE", "LT", "Let", "LetStmt", "Load", "Max", "Min", "Mod", "Mul", "NE", "Not",
    "Or", "PrimExpr", "PrimFunc", "ProducerConsumer", "ProducerLoad", "ProducerRealize", "ProducerStore",
    "Provide", "Ramp", "Realize", "Reduce", "Select", "SeqStmt", "SizeVar", "Stmt", "Store", "StringImm", "Sub",
    "Var", "abs", "acos", "all", "any", "asin", "atan", "buffer", "call_extern", "call_intrin", "call_packed",
    "call_pure_extern", "ceil", "const", "cos", "cosh", "decl_buffer", "div", "erf", "exp", "exp10", "exp2",
    "expr", "floor", "floordiv", "floormod", "if_then_else", "indexdiv", "indexmod", "ir_builder", "isfinite",
    "isinf", "isnan", "likely", "log", "log10", "log1p", "log2", "max", "max_value", "min", "min_value", "op",
    "power", "reinterpret", "round", "rsqrt", "sigmoid", "sin", "sinh", "sqrt", "stmt", "stmt_functor",
    "stmt_list", "tan", "tanh", "transform", "trunc", "truncdiv", "truncmod",
]
