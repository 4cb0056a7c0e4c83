"""TVM's ``tvm.tir.stmt``: the statement classes (``tvm.tir.stmt.For`` ...)."""

from lower.ir.stmt import (  # noqa: F401
    Allocate,
    AttrStmt,
    ForKind,
    IfThenElse,
    LetStmt,
    ProducerConsumer,
    Provide,
    Realize,
    SeqStmt,
    Stmt,
)
from lower.ir.stmt import Load as BufferLoad  # noqa: F401
from tebound.tvm.tir.kinds import BufferStore, Evaluate, For  # noqa: F401
