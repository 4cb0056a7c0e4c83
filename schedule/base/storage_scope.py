"""Storage scopes as TVM names them: a rank (``global``, ``shared``, ``warp``, ``local``, the
tensor-core fragments, ``texture``) and an optional tag after it (``shared.dyn``,
``global.texture``, ``global:tag``)."""

from __future__ import annotations

from typing import Any

from schedule.base.errors import ScheduleError
from schedule.base.memory_info import memory_info

#: Each rank's name, numbered as TVM's StorageRank; a scope is a name followed by any tag.
RANKS = ("global", "shared", "warp", "local", "wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator", "texture")
#: The tagged scopes TVM's lowering knows without memory information.
TAGGED = ("shared.dyn", "global.texture", "global.texture-nhwc", "global.texture-weight", "global.vtcm")


def scope_rank(scope: str) -> int:
    """The storage rank of *scope* ("" is global).

    :raises ScheduleError: for a scope that starts with none of TVM's rank names.
    """
    if scope == "":
        return 0
    for rank, name in enumerate(RANKS):
        if scope.startswith(name):
            return rank
    raise ScheduleError(f"unknown storage scope {scope!r}; a scope starts with one of "
                        f"{', '.join(repr(n) for n in RANKS)} (a tag may follow, as in 'shared.dyn')")


def per_thread(scope: str) -> bool:
    """Whether each thread has its own copy of a buffer in *scope* (local memory, registers,
    tensor-core fragments)."""
    rank = scope_rank(scope)
    return RANKS[rank] in ("local", "wmma.matrix_a", "wmma.matrix_b", "wmma.accumulator")


def per_block(scope: str) -> bool:
    """Whether each block of threads shares one copy of a buffer in *scope*."""
    return RANKS[scope_rank(scope)] in ("shared", "warp")


def check_scope(primitive: str, scope: Any, allow_empty: bool = False) -> str:
    """*scope* if it is one TVM lowers: a rank's name, one of TVM's tagged scopes, or a scope
    whose memory information is registered (``tvm.info.mem.<scope>``); ``sharedd`` is none.

    :raises ScheduleError: naming *primitive*, the scope and the known scopes.
    """

    if not isinstance(scope, str) or (not scope and not allow_empty):
        raise ScheduleError(f"{primitive}: a storage scope is a non-empty string such as 'shared', not {scope!r}")
    if scope and scope not in RANKS and scope not in TAGGED and not _colon_tagged(scope) and memory_info(scope) is None:
        known = ", ".join(repr(n) for n in (*RANKS, *TAGGED))
        raise ScheduleError(f"{primitive}: unknown storage scope {scope!r}; the known scopes are {known}, a rank "
                            "with a tag after a colon ('global:tag'), and those registered with "
                            "te.register_func('tvm.info.mem.<scope>', ...)")
    return scope


def _colon_tagged(scope: str) -> bool:
    """``<rank>:<tag>``: a rank's memory under a tag of its own (TVM's ``global:tag``)."""
    rank, sep, tag = scope.partition(":")
    return bool(sep) and rank in RANKS and bool(tag)
