"""The buffers of one tagged scope in one allocation (the tag-merging part of TVM's
StorageRewrite).

A scope with a tag (``global:tag``, ``local.L0A``, a scope registered with
``tvm.info.mem.<scope>``) names a special memory: after sharing (see :mod:`.storage_share`), the
buffers of such a scope opened together become one allocation, each at an offset aligned to the
memory's ``max_simd_bits`` (32 bits when it registers none). Buffers of a size that is not a
constant, of another element type than the first, or reached other than by loads and stores
keep their own allocations.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from lower.ir.stmt import Buffer
from schedule import arith
from schedule.base.memory_info import memory_field, memory_info
from schedule.base.storage_scope import RANKS, TAGGED
from schedule.ir.dtype import bits


def tagged(scope: str) -> bool:
    """Whether *scope* names a special memory whose buffers are combined (TVM leaves ``.dyn``,
    ``.workspace`` and ``.vtcm`` alone)."""
    return scope not in RANKS and scope not in TAGGED and scope != "" and not scope.endswith(
        (".dyn", ".workspace", ".vtcm"))


def combine(buffers: Sequence[Buffer], opaque: set[Buffer]) -> dict[Buffer, tuple[Buffer, int]]:
    """Each buffer of *buffers* that joins a combined allocation -> (that allocation's buffer,
    its offset in elements). The first buffer of a scope carries the allocation, resized."""
    groups: dict[str, list[Buffer]] = {}
    for b in buffers:
        if tagged(b.scope) and b not in opaque and arith.value_of(b.size) is not None:
            groups.setdefault(b.scope, []).append(b)
    out: dict[Buffer, tuple[Buffer, int]] = {}
    for scope, members in groups.items():
        members = [b for b in members if b.dtype == members[0].dtype]
        if len(members) < 2:
            continue
        info = memory_info(scope)
        align = int(memory_field(info, "max_simd_bits") or 32)
        width = bits(members[0].dtype)
        offsets, total = [], 0
        for b in members:
            offsets.append(total // width)
            total += int(arith.value_of(b.size)) * width
            total += -total % align
        size = -(-total // width)
        combo = replace(members[0], extents=(arith.const(size, members[0].extents[0].dtype),))
        out.update({b: (combo, off) for b, off in zip(members, offsets)})
    return out
