"""TVM's ``tvm.tir``: expressions and their constructors, index arithmetic, math intrinsics,
calls, buffers, the IR builder, the statements (ours are flat: ``BufferStore``/``BufferLoad``
name our ``Store``/``Load``; ``For``, ``Allocate``, ``IfThenElse``, ``SeqStmt``, the stores and
loads ... also match an ``ir_builder``'s, see :mod:`.kinds`), ``PrimFunc``, ``stmt_functor``
and ``transform``."""

from lower.ir.stmt import (
    ForKind,
    Load,
    ProducerConsumer,
    Provide,
    Realize,
    Stmt,
    Store,
)
from lower.ir.stmt import Provide as ProducerStore
from lower.ir.stmt import Realize as ProducerRealize
from lower.module import stmt_list
from schedule import decl_buffer, ir_builder
from schedule.ir.extern_calls import CallEffectKind
from tebound.tvm.tir import buffer, expr, op, stmt, stmt_functor, transform
from tebound.tvm.tir.buffer import Buffer
from tebound.tvm.tir.expr import (
    EQ,
    GE,
    GT,
    LE,
    LT,
    NE,
    Add,
    And,
    Any,
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
    PrimExpr,
    ProducerLoad,
    Ramp,
    Reduce,
    Select,
    SizeVar,
    StringImm,
    Sub,
    Var,
)
from tebound.tvm.tir.kinds import (
    Allocate,
    AttrStmt,
    BufferLoad,
    BufferStore,
    Evaluate,
    For,
    IfThenElse,
    LetStmt,
    PrimFunc,
    SeqStmt,
)
from tebound.tvm.tir.op import (
    abs,  # noqa: A004
    acos,
    all,  # noqa: A004
    any,  # noqa: A004
    asin,
    atan,
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    call_extern,
    call_intrin,
    call_packed,
    call_pure_extern,
    ceil,
    const,
    cos,
    cosh,
    div,
    erf,
    exp,
    exp2,
    exp10,
    floor,
    floordiv,
    floormod,
    if_then_else,
    indexdiv,
    indexmod,
    isfinite,
    isinf,
    isnan,
    likely,
    log,
    log1p,
    log2,
    log10,
    max,
    max_value,
    min,
    min_value,
    popcount,
    power,
    reinterpret,
    round,  # noqa: A004
    rsqrt,
    shift_left,
    shift_right,
    sigmoid,
    sin,
    sinh,
    sqrt,
    tan,
    tanh,
    trunc,
    truncdiv,
    truncmod,
)

__all__ = [
    "Add", "Allocate", "And", "Any", "AttrStmt", "Broadcast", "Buffer", "BufferLoad", "BufferStore", "Call",
    "CallEffectKind", "Cast", "Div", "EQ", "Evaluate", "FloatImm", "FloorDiv", "FloorMod", "For", "ForKind", "GE",
    "GT", "IfThenElse", "IntImm", "LE", "LT", "Let", "LetStmt", "Load", "Max", "Min", "Mod", "Mul", "NE", "Not", "Or",
    "PrimExpr", "PrimFunc", "ProducerConsumer", "ProducerLoad", "ProducerRealize", "ProducerStore", "Provide", "Ramp",
    "Realize", "Reduce", "Select", "SeqStmt", "SizeVar", "Stmt", "Store", "StringImm", "Sub", "Var", "abs", "acos",
    "all", "any", "asin", "atan", "bitwise_and", "bitwise_not", "bitwise_or", "bitwise_xor", "buffer", "call_extern",
    "call_intrin", "call_packed", "call_pure_extern", "ceil", "const", "cos", "cosh", "decl_buffer", "div", "erf",
    "exp", "exp10", "exp2", "expr", "floor", "floordiv", "floormod", "if_then_else", "indexdiv", "indexmod",
    "ir_builder", "isfinite", "isinf", "isnan", "likely", "log", "log10", "log1p", "log2", "max", "max_value", "min",
    "min_value", "op", "popcount", "power", "reinterpret", "round", "rsqrt", "shift_left", "shift_right", "sigmoid",
    "sin", "sinh", "sqrt", "stmt", "stmt_functor", "stmt_list", "tan", "tanh", "transform", "trunc", "truncdiv",
    "truncmod"
]
