"""The entry points of TVM's ``auto_scheduler._ffi_api`` that its users and tests call."""

from typing import Any

from tune.auto_scheduler.loop_state import State
from tune.auto_scheduler.search_task import deserialize_task, serialize_task


def SerializeSearchTask(task: Any) -> str:  # noqa: N802 - TVM's name
    """*task* as TVM's JSON text (:func:`DeserializeSearchTask` reads it)."""
    return serialize_task(task)


def DeserializeSearchTask(text: str) -> Any:  # noqa: N802
    """The task *text* describes; its workload must be registered."""
    return deserialize_task(text)


def _made_by(state: State, stage_id: int, kind: str) -> bool:
    """Whether a step of *kind* names stage *stage_id* (TVM's reading: after a cache write or
    rfactor, the id of the stage it added): the steps read from the last back, the id moved
    back over the stages that later steps inserted before it."""
    for step in reversed(state.transform_steps):
        if step.kind == kind and step.stage_id == stage_id:
            return True
        # cache_write and rfactor insert a stage at their own id, cache_read one after it
        inserted = {"CHR": step.stage_id + 1, "CHW": step.stage_id, "RF": step.stage_id}.get(step.kind)
        if inserted is not None and stage_id > inserted:
            stage_id -= 1
    return False


def SearchPolicyUtilsHasCacheReadStage(state: State, stage_id: int) -> bool:  # noqa: N802
    """Whether the stage at *stage_id* was cache-read (see :func:`_made_by`)."""
    return _made_by(state, stage_id, "CHR")


def SearchPolicyUtilsHasCacheWriteStage(state: State, stage_id: int) -> bool:  # noqa: N802
    """Whether a cache write names *stage_id*: the cache stage it added (see :func:`_made_by`)."""
    return _made_by(state, stage_id, "CHW")


def SearchPolicyUtilsHasRfactorStage(state: State, stage_id: int) -> bool:  # noqa: N802
    """Whether an rfactor names *stage_id*: the stage it added (see :func:`_made_by`)."""
    return _made_by(state, stage_id, "RF")


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
