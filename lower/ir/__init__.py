"""The statement IR of lowered functions (TVM's tir statements): the nodes, their functors, their
printer and substitution. ``printer`` is imported first: it gives statements their text
(``lower.ir.stmt._impl``)."""

# isort: off
from lower.ir import printer
# isort: on
from lower.ir.printer import stmt_str
from lower.ir.stmt import (
    Allocate,
    AttrStmt,
    Buffer,
    Evaluate,
    For,
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
from lower.ir.stmt_functor import StmtFunctor, StmtMutator, StmtVisitor, walk
from lower.ir.substitute import substitute_stmt

__all__ = ["Allocate", "AttrStmt", "Buffer", "Evaluate", "For", "ForKind", "IfThenElse", "LetStmt", "Load",
           "ProducerConsumer", "Provide", "Realize", "SeqStmt", "Stmt", "StmtFunctor", "StmtMutator", "StmtVisitor",
           "Store", "printer", "stmt_str", "substitute_stmt", "walk"]
