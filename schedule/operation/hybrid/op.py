"""A hybrid script's operation: an extern body whose outermost perfectly nested loops are the
operation's axes, so that a schedule may split, fuse, reorder, bind and annotate them.

The body inside those loops (``loop_body``) is what lowering places in the stage's loop nest,
with each axis' variable replaced by its value there. Loops below the first statement that is
not a loop, and loops whose bounds read a tensor or an enclosing axis, stay as the script
wrote them.
"""

from __future__ import annotations

from collections.abc import Sequence

from schedule.ir.buffer import DeclBuffer
from schedule.ir.expr import Expr
from schedule.ir.extern_stmt import Block, BodyStmt, ElemLoad, Loop
from schedule.ir.functor import free_vars, post_order_visit
from schedule.ir.itervar import IterVar, IterVarType, Range
from schedule.operation.extern import ExternOp
from schedule.operation.tensor import Tensor, _node

_ANNOTATIONS = {"parallel": IterVarType.Parallelized, "vectorize": IterVarType.Vectorized,
                "unroll": IterVarType.Unrolled}


@_node
class HybridOp(ExternOp):
    """TVM's HybridOp: ``axis`` are the script's outer loops; ``loop_body`` is the body inside them."""

    axis: tuple[IterVar, ...] = ()
    loop_body: BodyStmt | None = None
    loop_kinds: tuple[str, ...] = ()
    #: The script's Python source, without its decorators (what ``hybrid.build``'s module saves).
    source: str = ""

    @property
    def root_iter_vars(self) -> list[IterVar]:
        return list(self.axis)

    def annotated_axes(self) -> dict[IterVar, IterVarType]:
        return {iv: _ANNOTATIONS[k] for iv, k in zip(self.axis, self.loop_kinds) if k in _ANNOTATIONS}


def hybrid_op(name: str, inputs: Sequence[tuple[Tensor, DeclBuffer]], outputs: Sequence[DeclBuffer],
              body: Expr | BodyStmt, source: str = "") -> HybridOp:
    """The operation of a parsed script: *body* over the declared buffers of *inputs* and *outputs*."""
    axes: list[IterVar] = []
    kinds: list[str] = []
    inner: BodyStmt | None = None
    if isinstance(body, BodyStmt):
        inner = body
        while True:
            loop = _single(inner)
            if not isinstance(loop, Loop) or not _independent(loop, axes):
                break
            axes.append(IterVar(Range.from_min_extent(loop.min, loop.extent), loop.var, IterVarType.DataPar))
            kinds.append(loop.kind)
            inner = loop.body
    return HybridOp(name, tuple(t for t, _ in inputs), tuple(b for _, b in inputs), tuple(outputs), body,
                    axis=tuple(axes), loop_body=inner if axes else None, loop_kinds=tuple(kinds), source=source)


def _single(s: BodyStmt) -> BodyStmt:
    while isinstance(s, Block) and len(s.stmts) == 1:
        s = s.stmts[0]
    return s


def _independent(loop: Loop, axes: list[IterVar]) -> bool:
    """Whether *loop*'s bounds are fixed before the nest runs: no tensor read, no enclosing axis."""
    loads: list[Expr] = []
    for e in (loop.min, loop.extent):
        post_order_visit(e, lambda x: loads.append(x) if isinstance(x, ElemLoad) else None)
    outer = {iv.var for iv in axes}
    return not loads and not any(v in outer for v in free_vars([loop.min, loop.extent]))
