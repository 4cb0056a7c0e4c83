"""TVM's ``te.schedule`` functions over the stage graph, under TVM's names, for ported code
(``te.schedule.CreateReadGraph``, ``PostDFSOrder``, ``CreateAttachPath``, ``ScanGetBody``,
``ScanFixPointAnalysis``); each is a thin view of this package's own function."""

from __future__ import annotations

from typing import Any

from schedule.base.errors import ScheduleTypeError
from schedule.ir.itervar import IterVar
from schedule.operation.graph import post_dfs_order, read_graph
from schedule.operation.scan_analysis import scan_fix_point_analysis, scan_get_body
from schedule.operation.tensor import Operation, Tensor
from schedule.schedule.graph import create_attach_path
from schedule.schedule.schedule import Schedule


def _ops(roots: Any, where: str) -> list[Operation]:
    items = list(roots) if isinstance(roots, (list, tuple)) else [roots]
    ops = [r.op if isinstance(r, Tensor) else r for r in items]
    for op in ops:
        if not isinstance(op, Operation):
            raise ScheduleTypeError(f"{where}: expected operations, not {type(op).__name__}")
    return ops


def CreateReadGraph(roots: Any) -> dict[Operation, list[Tensor]]:  # noqa: N802 - TVM's name
    """Each operation reachable from *roots* -> the tensors it reads, in order."""
    g = read_graph(_ops(roots, "CreateReadGraph"))
    return {op: list(g.nodes[op]["inputs"]) for op in g.nodes}


def PostDFSOrder(roots: Any, g: Any = None) -> list[Operation]:  # noqa: N802 - TVM's name
    """The operations reachable from *roots*, each after its inputs (*g*, a read graph, is
    accepted as TVM takes it; the order is the same)."""
    ops = _ops(roots, "PostDFSOrder")
    return post_dfs_order(ops, read_graph(ops))


def CreateAttachPath(sch: Any) -> dict[Operation, list[IterVar]]:  # noqa: N802 - TVM's name
    """Each stage's operation -> the loops around it, innermost first."""

    if not isinstance(sch, Schedule):
        raise ScheduleTypeError(f"CreateAttachPath: expected a schedule, not {type(sch).__name__}")
    return {st.op: path for st, path in create_attach_path(sch).items()}


ScanGetBody = scan_get_body
ScanFixPointAnalysis = scan_fix_point_analysis
