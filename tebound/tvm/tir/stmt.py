"""TVM's ``tvm.tir.stmt``: the statement classes (``tvm.tir.stmt.For`` ...)."""

from lower.ir.stmt import (  # noqa: F401
    ForKind,
    ProducerConsumer,
    Provide,
    Realize,
    Stmt,
)
from tebound.tvm.tir.kinds import (  # noqa: F401
    Allocate,
    AttrStmt,
    BufferLoad,
    BufferStore,
    Evaluate,
    For,
    IfThenElse,
    LetStmt,
    SeqStmt,
)
