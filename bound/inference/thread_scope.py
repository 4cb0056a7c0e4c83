"""Thread and storage ranks, and TVM's rule for which loops a producer must relax over."""

from __future__ import annotations

from bound.errors import BoundError
from schedule.base.errors import ScheduleError
from schedule.base.storage_scope import scope_rank

#: Storage ranks, as TVM numbers them.
STORAGE_RANK = {"global": 0, "shared": 1, "shared.dyn": 1, "warp": 2, "local": 3}
RANK_NAME = {0: "global", 1: "shared", 2: "warp", 3: "local"}


def thread_rank(tag: str) -> tuple[int, int]:
    """``(rank, dim)`` of a thread tag: blockIdx.* rank 0, threadIdx.* and vthread rank 1."""
    if tag.startswith("vthread") or tag == "cthread":
        return 1, -1
    if tag.startswith("blockIdx.") and len(tag) == 10 and tag[9] in "xyz":
        return 0, "xyz".index(tag[9])
    if tag.startswith("threadIdx.") and len(tag) == 11 and tag[10] in "xyz":
        return 1, "xyz".index(tag[10])
    raise BoundError(f"unknown thread tag '{tag}'; use blockIdx.x/y/z, threadIdx.x/y/z or vthread")


def default_storage_rank(max_thread_rank: int) -> int:
    """Where a stage lives when not told: global outside threads, shared under blocks, local under threads."""
    return {-1: 0, 0: 1}.get(max_thread_rank, 3)


def storage_rank(scope: str) -> int:
    """TVM's rank of *scope*: global 0, shared 1, warp 2, local 3, tensor-core fragments above."""
    try:
        return scope_rank(scope)
    except ScheduleError as err:
        raise BoundError(str(err)) from None


def need_relax(tag: str, found_attach: bool, scope_rank: int) -> bool:
    """Whether a consumer loop with thread *tag* ("" for none) spans the producer's region.

    Ordinary loops are relaxed when they lie inside the producer's attach point; thread
    loops when the storage is shared across them (global: blocks and threads; shared:
    threads; warp: threadIdx.x; local: none).
    """
    if not tag or tag == "pipeline":
        return not found_attach
    rank, dim = thread_rank(tag)
    if scope_rank == STORAGE_RANK["warp"] and rank == 1 and dim == 0:
        return True
    return scope_rank <= rank
