"""The entry points of TVM's ``auto_scheduler._ffi_api`` that its users and tests call."""

from typing import Any

from tune.auto_scheduler.loop_state import State
from tune.auto_scheduler.search_task import deserialize_task, serialize_task
from tune.auto_scheduler.sketch_rules import made_by


def SerializeSearchTask(task: Any) -> str:  # noqa: N802 - TVM's name
    """*task* as TVM's JSON text (:func:`DeserializeSearchTask` reads it)."""
    return serialize_task(task)


def DeserializeSearchTask(text: str) -> Any:  # noqa: N802
    """The task *text* describes; its workload must be registered."""
    return deserialize_task(text)


def SearchPolicyUtilsHasCacheReadStage(state: State, stage_id: int) -> bool:  # noqa: N802
    """Whether the stage at *stage_id* was cache-read (``made_by``)."""
    return made_by(state, stage_id, "CHR")


def SearchPolicyUtilsHasCacheWriteStage(state: State, stage_id: int) -> bool:  # noqa: N802
    """Whether a cache write names *stage_id*: the cache stage it added (``made_by``)."""
    return made_by(state, stage_id, "CHW")


def SearchPolicyUtilsHasRfactorStage(state: State, stage_id: int) -> bool:  # noqa: N802
    """Whether an rfactor names *stage_id*: the stage it added (``made_by``)."""
    return made_by(state, stage_id, "RF")


def SearchPolicyUtilsHasCrossThreadReduction(state: State, stage_id: int) -> bool:  # noqa: N802
    """Whether a reduction iterator of the stage, or of a stage computed inside it, is bound to
    threadIdx.x."""
    thread_x = State.ANNOTATION_TRANS_TABLE["threadIdx.x"]

    def bound(stage: Any) -> bool:
        return any(it.iter_kind == 1 and it.annotation == thread_x for it in stage.iters)
    stages = state.stages
    inner = [s for s, (t, _) in state._attach.at.items() if t == stage_id]
    return bound(stages[stage_id]) or any(bound(stages[s]) for s in inner)


def SearchPolicyUtilsIsTiled(stage: Any) -> bool:  # noqa: N802
    """Whether the stage has more or fewer iterators than its operation's axes (a split or a
    fuse happened)."""
    op = stage.op
    return len(stage.iters) != len(getattr(op, "axis", ())) + len(getattr(op, "reduce_axis", ()))
