"""What a vectorized loop may hold: TVM's VectorizeLoop refuses a ``while`` loop inside one
(its trip count differs between lanes), and so does lowering here, on every target."""

from __future__ import annotations

from lower.errors import LoweringError
from lower.ir.stmt import For, ForKind, Stmt, While
from lower.ir.stmt_functor import stmt_children


def check_vectorized(body: Stmt) -> None:
    """Refuse a ``while`` loop inside a vectorized loop.

    :raises LoweringError: naming the vectorized loop.
    """
    stack: list[tuple[Stmt, For | None]] = [(body, None)]
    while stack:
        s, vectorized = stack.pop()
        if isinstance(s, While) and vectorized is not None:
            raise LoweringError(f"lower: A while loop inside a vectorized loop not supported (loop "
                                f"'{vectorized.loop_var.name}'); make the loop serial, or move the while "
                                "loop out of it")
        inner = s if isinstance(s, For) and s.kind == ForKind.VECTORIZED else vectorized
        stack.extend((c, inner) for c in stmt_children(s))
