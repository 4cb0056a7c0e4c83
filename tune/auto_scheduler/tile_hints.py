"""Known-good starting points for the generated configuration space (:mod:`.sketch`): the
configurations a performance engineer would try first on this machine, measured before the
tuner's own choices so that a short search starts from them instead of from random draws.

A configuration is ranked by what its register tile and its parallel tile cost on the machine
(:class:`Machine`: the vector lanes and registers, the multiply-add units and their latency,
the loads a cycle, the L1 and L2 sizes, the cores):

- the register tile (the innermost tile level, accumulated in registers) must keep its
  accumulators and the operands of one step in the vector registers; it is ranked by the share
  of the multiply-add units it keeps busy, each step taking the longest of the units' time,
  the loads' time and the latency of one accumulator's chain (so a tile of fewer accumulators
  than latency x units waits on its own sums), then by its loads per multiply-add (BLIS's
  reasoning: a 4x16 tile of float32 on AVX2 makes 8 vector accumulators from 2 vector loads
  and 4 broadcasts a step), then by its broadcasts running along the later (contiguous) axes;
- the panels one register tile streams through over a reduction step (its rows and columns,
  times the other reduction axes' taps) fit in half of L1; the parallel tile's blocks, and the
  copy of an input it packs for its vector axis (the tile's columns over the whole reduction),
  in half of L2, and that copy is made once (the parallel tile spans the other axes): a
  register tile with no such parallel tile ranks after those that have one;
- the parallel loop gives every core work, in equal shares where it can.

Only the knobs the sketch defines by name are read (``tile_<i>``, ``tile_k``, ``cache``,
``vectorize``, ``vector_axis``, ``pack_<input>``, ``parallel_depth``, ``auto_unroll``); a space
without a reduction's tiles gets no hints."""

from __future__ import annotations

import functools
import itertools
import math
import os
from dataclasses import dataclass
from typing import Any

from lower.backend.c.compile import native_vector_bytes, vector_registers
from tune.auto_scheduler.sketch import CORES
from tune.autotvm.space import ConfigEntity, ConfigSpace, InstantiationError
from tune.autotvm.task import Task

#: How many hints a search measures first by default.
HINTS = 8
#: The other knobs' choices in a hint, by the knob's name prefix: inputs packed in panels, and
#: a stage its consumers read at other indices (a padding, read nine times by a 3x3
#: convolution) computed once, at the root, rather than inlined into every read.
PREFERRED = {"pack_": 1, "place_": "root"}
#: Register tiles keeping fewer of the multiply-add units busy (waiting on their own sums or
#: on their loads more than half of the time) are no hints.
MIN_BUSY = 0.5
#: Parallel tiles tried (best ranked first) for each register tile before giving it up.
MAX_TRIED = 8


@dataclass(frozen=True)
class Machine:
    """What the ranking needs to know of a CPU: float32 lanes of a vector, vector registers,
    the data caches of one core (bytes), the cores; and of one core, the vector multiply-adds
    it starts a cycle, the cycles one takes to finish, the vector loads it issues a cycle
    (2, 4, 2 on the x86 and Arm cores of the last decade)."""

    lanes: int
    registers: int
    l1: int
    l2: int
    cores: int
    fma_units: int = 2
    fma_latency: int = 4
    load_units: int = 2


def _cache_bytes(level: int, default: int) -> int:
    """The size of one core's data (or unified) cache of *level*, from sysfs."""
    root = "/sys/devices/system/cpu/cpu0/cache"
    try:
        entries = sorted(os.listdir(root))
    except OSError:
        return default
    for entry in entries:
        try:
            with open(f"{root}/{entry}/level") as f:
                found = int(f.read())
            with open(f"{root}/{entry}/type") as f:
                kind = f.read().strip()
            with open(f"{root}/{entry}/size") as f:
                size = f.read().strip()
        except (OSError, ValueError):
            continue
        if found == level and kind in ("Data", "Unified") and size[:-1].isdigit():
            scale = {"K": 1024, "M": 1024 * 1024}.get(size[-1], 1)
            return int(size[:-1]) * scale
    return default


@functools.cache
def machine() -> Machine:
    """This machine (the compiler's vector width and features, sysfs's caches, the cores the
    sketch's parallel loops are checked against)."""
    return Machine(lanes=native_vector_bytes() // 4, registers=vector_registers(), l1=_cache_bytes(1, 32 * 1024),
                   l2=_cache_bytes(2, 512 * 1024), cores=CORES)


def _sizes(space: ConfigSpace, name: str) -> list[list[int]]:
    knob = space.space_map[name]
    return [list(knob[i].size) for i in range(len(knob))]


def _values(space: ConfigSpace, name: str) -> list[Any]:
    knob = space.space_map[name]
    return [knob[i].val for i in range(len(knob))]


def _register_cost(inners: list[int], lane: int, kc: int, taps: int, m: Machine) -> tuple[Any, ...] | None:
    """The rank of a register tile of *inners* with its vectors along axis *lane*, taking *kc*
    reduction steps of *taps* each: minus the share of the multiply-add units it keeps busy,
    its loads then its vector loads per multiply-add (a broadcast is the cheaper load), and
    which other axes its broadcasts run along (the later the better); None: its accumulators
    and one step's operands do not fit the registers, or its panels overflow half of L1."""
    if inners[lane] % m.lanes:
        return None
    vectors = inners[lane] // m.lanes
    broadcasts = math.prod(inners) // inners[lane]
    accumulators = vectors * broadcasts
    if accumulators + min(vectors, broadcasts) + 1 > m.registers:
        return None
    if (inners[lane] + broadcasts) * kc * taps * 4 > m.l1 // 2:  # one register tile's panels
        return None
    loads = vectors + broadcasts
    cycles = max(m.fma_latency, accumulators / m.fma_units, loads / m.load_units)
    spread = tuple(inners[k] > 1 for k in range(len(inners)) if k != lane)
    return -accumulators / (m.fma_units * cycles), loads / accumulators, vectors / accumulators, spread


def _block_cost(extents: list[int], tiles: list[int], lane: int, kc: int, taps: int, reduction: int,
                m: Machine) -> tuple[float, ...]:
    """The share of the cores left idle by the parallel tiles of *tiles* over *extents*; where
    its vectors run along another axis than the last, how many times the copy of their input
    the sketch makes at the parallel tile is made of each element (once per parallel tile
    along the other axes); how far the parallel tile's blocks (its rows and columns over *kc*
    steps of *taps*, its accumulators, that copy over the whole *reduction*) overflow half of
    L2; then minus its multiply-adds per element loaded (the reuse a larger tile buys)."""
    count = math.prod(-(-e // t) for e, t in zip(extents, tiles))
    idle = (-(-count // m.cores) * m.cores - count) / count
    rows = math.prod(tiles) // tiles[lane]
    block = (rows + tiles[lane]) * kc * taps * 4 + math.prod(tiles) * 4
    copies = 1
    if lane != len(tiles) - 1:  # the sketch copies the vector axis' input at the parallel tile
        block += tiles[lane] * reduction * 4
        copies = count // -(-extents[lane] // tiles[lane])
    return idle, copies, max(0.0, block / (m.l2 / 2) - 1), -rows * tiles[lane] / (rows + tiles[lane])


def hints(task: Task, count: int = HINTS, m: Machine | None = None) -> list[ConfigEntity]:
    """Up to *count* configurations of *task*'s generated space worth measuring first, best
    first, no two with the same register tile and reduction step; [] where the space has no
    reduction tiles."""
    m = m or machine()
    space = task.config_space
    names = list(space.space_map)
    tiles_named = sorted((n for n in names if n.startswith("tile_") and n[5:].isdigit()), key=lambda n: int(n[5:]))
    if "tile_k" not in names or not tiles_named or "cache" not in names or 1 not in _values(space, "cache"):
        return []
    by_inner: list[dict[int, list[list[int]]]] = []  # each axis' splits, by their register tile
    for name in tiles_named:
        groups: dict[int, list[list[int]]] = {}
        for size in _sizes(space, name):
            groups.setdefault(size[-1], []).append(size)
        by_inner.append(groups)
    lanes_axes = _values(space, "vector_axis") if "vector_axis" in names else [len(tiles_named) - 1]
    extents = [space.space_map[name].product for name in tiles_named]
    reduction = _reduction(task, extents)
    taps = max(1, reduction // space.space_map["tile_k"].product)  # the other reduction axes' steps
    ranked: dict[tuple[int, tuple[int, ...]], list[tuple[Any, ...]]] = {}  # by register tile: its steps
    for lane in lanes_axes:
        for kc in sorted({s[-1] for s in _sizes(space, "tile_k")}, reverse=True):
            for inners in itertools.product(*(sorted(g) for g in by_inner)):
                cost = _register_cost(list(inners), lane, kc, taps, m)
                if cost is None or -cost[0] < MIN_BUSY:
                    continue
                def block(choice: tuple[list[int], ...], lane: int = lane, kc: int = kc) -> tuple[float, ...]:
                    return _block_cost(extents, [math.prod(s[1:]) for s in choice], lane, kc, taps, reduction, m)
                blocks = sorted(itertools.product(*(g[i] for g, i in zip(by_inner, inners))), key=block)
                _, copies, overflow, _ = block(blocks[0])
                # (whether its best parallel tile copies twice or overflows L2, its rank, its step)
                ranked.setdefault((lane, inners), []).append((copies > 1 or overflow > 0, cost, -kc, blocks))
    for steps in ranked.values():
        steps.sort(key=lambda step: step[:3])
    # the register tiles best first, each with its best reduction step, then their next steps;
    # the steps of tiles with a parallel tile that fits before any of those without
    tiles_first = sorted(ranked, key=lambda tile: ranked[tile][0][:3])
    rounds = sorted(((tile, ranked[tile][r]) for r in range(max(map(len, ranked.values()), default=0))
                     for tile in tiles_first if r < len(ranked[tile])), key=lambda pair: pair[1][0])
    out: list[ConfigEntity] = []
    for (lane, _), (_, _, kc, blocks) in rounds:
        for choice in blocks[:MAX_TRIED]:
            knobs = {**dict(zip(tiles_named, choice)), "tile_k": _find(space, "tile_k", -kc), "cache": 1,
                     "vectorize": 1, **({"vector_axis": lane} if "vector_axis" in names else {})}
            entity = _admitted(task, space, knobs)
            if entity is not None:
                out.append(entity)
                break
        if len(out) >= count:
            break
    return out


def _reduction(task: Task, extents: list[int]) -> int:
    """The multiply-adds of one output element (every reduction axis), from the task's count of
    floating-point operations; the first reduction axis' extent where it has none."""
    flop = task.flop
    first = task.config_space.space_map["tile_k"].product
    return max(first, int(flop // (2 * math.prod(extents)))) if flop else first


def _find(space: ConfigSpace, name: str, last: int) -> list[int]:
    return next(s for s in _sizes(space, name) if s[-1] == last)


def _admitted(task: Task, space: ConfigSpace, knobs: dict[str, Any]) -> ConfigEntity | None:
    """The configuration of *knobs* with the other knobs chosen (:data:`PREFERRED`, the
    shallowest parallel loop that feeds the cores, no unrolling), if the sketch accepts it."""
    choice = []
    for name, knob in space.space_map.items():
        options = [getattr(knob[i], "size", None) or knob[i].val for i in range(len(knob))]
        want = knobs.get(name)
        if want is None:
            want = next((v for prefix, v in PREFERRED.items() if name.startswith(prefix)), None)
        index = next((i for i, o in enumerate(options) if _same(o, want)), 0) if want is not None else 0
        choice.append(index)
    depth_index = list(space.space_map).index("parallel_depth") if "parallel_depth" in space.space_map else None
    depths = range(len(space.space_map["parallel_depth"])) if depth_index is not None else [None]
    for depth in depths:
        if depth is not None:
            choice[depth_index] = depth
        point = space.knob2point(choice)
        if not space.is_index_valid(point):
            continue
        try:
            task.instantiate(space.get(point))
        except InstantiationError:  # a configuration the sketch rejects is no hint
            continue
        return space.get(point)  # a fresh entity: instantiating one leaves its errors on it
    return None


def _same(option: Any, want: Any) -> bool:
    return list(option) == list(want) if isinstance(option, (list, tuple)) else option == want


__all__ = ["HINTS", "Machine", "hints", "machine"]
