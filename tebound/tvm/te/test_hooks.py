"""The functions TVM registers for its own tests of tensorize, registered here under the same
names: ``test.op.InferTensorizeRegion`` (a tensorized stage's output ranges and input boxes)
and ``test.op.MatchTensorizeBody`` (its body written over the intrinsic's axes)."""

from __future__ import annotations

from typing import Any

from bound.inference.tensorize import TensorizeRegion, as_selects, match_body, tensorize_region, tensorized_leaf
from schedule.base.packed import register_func
from schedule.schedule.stage import Stage
from tebound.tvm.runtime.container import Map


def infer_tensorize_region(stage: Stage, dom_map: Any) -> tuple[Map, Map]:
    """The range of each root axis per outer iteration, and the box of each input read there."""
    region = tensorize_region(stage, dom_map)
    return Map(region.out_dom), Map(region.in_region)


def match_tensorize_body(stage: Stage, out_dom: Any, in_region: Any, intrin: Any) -> list[Any]:
    """*stage*'s body over *intrin*'s axes and inputs; a guard is a ``select``, as TVM writes it."""
    position = tensorized_leaf(stage)
    if position is None:
        raise ValueError(f"MatchTensorizeBody: stage '{stage.name}' has no tensorized loop")
    region = TensorizeRegion(stage.op, position, intrin, dict(out_dom), dict(in_region))
    return [as_selects(e) for e in match_body(stage, dict(out_dom), region)[0]]


register_func("test.op.InferTensorizeRegion", infer_tensorize_region, override=True)
register_func("test.op.MatchTensorizeBody", match_tensorize_body, override=True)
