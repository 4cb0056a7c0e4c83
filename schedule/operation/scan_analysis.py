"""What a scan's step reads of the step before (TVM's ScanGetBody and ScanFixPointAnalysis).

A spatial axis of a scan is a fix point when row ``t`` at index ``i`` of that axis depends on
row ``t - 1`` only at index ``i``: every read of the state, through every stage of the body,
indexes that axis with exactly the update's own index there, and the update's index there
reaches no other axis of any state. A schedule may then split the scan along the axis.
"""

from __future__ import annotations

from typing import Any

from schedule.base.errors import ScheduleTypeError
from schedule.ir import arith
from schedule.ir.expr import Expr, IntImm, ProducerLoad, Var
from schedule.ir.functor import free_vars, post_order_visit
from schedule.ir.itervar import IterVar
from schedule.operation.compute import ComputeOp
from schedule.operation.scan import ScanOp, scan_body
from schedule.operation.tensor import Operation, Tensor

#: An index's labels: the update axes it depends on, and the one it equals exactly (or None).
Info = tuple[frozenset[int], int | None]


def scan_get_body(op: Any) -> list[Operation]:
    """The operations of *op*'s step: the scan itself, its updates and what they read of the
    state (TVM's ScanGetBody)."""
    return [_scan(op, "ScanGetBody"), *scan_body(op)]


def scan_fix_point_analysis(op: Any) -> dict[IterVar, IntImm]:
    """Each spatial axis of the scan *op* -> 1 if it is a fix point (see above), else 0."""
    scan = _scan(op, "ScanFixPointAnalysis")
    updates = {t.op: t for t in scan.update}
    info: dict[tuple[Tensor, int], Info] = {}
    for body_op in reversed(scan_body(scan)):
        if not isinstance(body_op, ComputeOp):
            continue
        own: dict[Var, Info] = {}
        for d, iv in enumerate(body_op.axis):
            if body_op in updates:
                own[iv.var] = (frozenset([d]), d) if d else (frozenset(), None)
            else:
                own[iv.var] = info.get((body_op.output(0), d), (frozenset(), None))
        for load in _reads(body_op):
            for d, index in enumerate(load.indices):
                _merge(info, (load.producer, d), _labels(index, own))
    states = list(scan.state_placeholder)
    out: dict[IterVar, IntImm] = {}
    k = 0
    for state in states:
        for d in range(1, len(state.shape)):
            reach_elsewhere = any(d in info[key][0] for key in info
                                  if key[0] in states and key != (state, d) and key[1] != d)
            got = info.get((state, d))
            fixed = (got is None or got[1] == d) and not reach_elsewhere
            out[scan.spatial_axis[k]] = arith.const(int(fixed))
            k += 1
    return out


def _reads(op: ComputeOp) -> list[ProducerLoad]:
    found: list[ProducerLoad] = []
    for e in op.body:
        post_order_visit(e, lambda x: found.append(x) if isinstance(x, ProducerLoad) else None)
    return found


def _labels(index: Expr, own: dict[Var, Info]) -> Info:
    if isinstance(index, Var) and index in own:
        return own[index]
    reach = frozenset().union(*(own[v][0] for v in free_vars([index]) if v in own))
    return reach, None


_UNSEEN: Info = (frozenset(), -1)


def _merge(info: dict[tuple[Tensor, int], Info], key: tuple[Tensor, int], new: Info) -> None:
    old = info.get(key, _UNSEEN)
    exact = new[1] if old is _UNSEEN or old[1] == new[1] else None
    info[key] = (old[0] | new[0], exact)


def _scan(op: Any, where: str) -> ScanOp:
    op = op.op if isinstance(op, Tensor) else op
    if not isinstance(op, ScanOp):
        raise ScheduleTypeError(f"{where}: expected a scan operation, not {type(op).__name__}")
    return op
