"""Configuration spaces of schedule templates, as TVM's autotvm defines them.

A template is called once with a :class:`ConfigSpace`, whose ``define_*`` calls collect the
knobs (a split of an axis, an order of axes, annotations, a list of options); the space is the
product of the knobs' choices, numbered with the first knob varying fastest. It is then called
with a :class:`ConfigEntity`, which ignores the definitions and answers each knob with one
choice. Knob spaces print, and entities serialize, as TVM's do, so logs and printed spaces
read the same.

A space may also carry a filter over whole configurations (:meth:`ConfigSpace.multi_filter`).
Indices then keep their numbering (``range_length``) and some of them are not valid; ``len``
counts the valid ones, and the index helpers (``get_next_index``, ``get_rand_index``, ...)
step over the rest, as TVM's do.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from schedule.ir.arith import value_of
from tune.autotvm.knobs import (
    _THREAD_TAGS,
    AnnotateEntity,
    AnnotateSpace,
    InstantiationError,
    OtherOptionEntity,
    OtherOptionSpace,
    ReorderEntity,
    ReorderSpace,
    SpaceError,
    SplitEntity,
    SplitSpace,
    TransformSpace,
    VirtualAxis,
    get_factors,
    get_pow2s,
)

# The knobs are importable from here too, as from TVM's autotvm.task.space.
__all__ = ["AnnotateEntity", "AnnotateSpace", "ConfigEntity", "ConfigSpace", "FallbackConfigEntity",
           "InstantiationError", "OtherOptionEntity", "OtherOptionSpace", "ReorderEntity", "ReorderSpace",
           "SpaceError", "SplitEntity", "SplitSpace", "TransformSpace", "VirtualAxis", "get_factors", "get_pow2s"]

# -- spaces and entities of a whole template --------------------------------------------------

def _check_knob_name(name: Any) -> None:
    if not isinstance(name, str) or not name:
        raise TypeError(f"autotvm: a knob's name is a non-empty str, got {name!r}")


class _Knobs:
    """What :class:`ConfigSpace` and its entities share: definitions, errors, flops."""

    def __init__(self) -> None:
        self.space_map: dict[str, TransformSpace] = {}
        self._entity_map: dict[str, Any] = {}
        self.errors: list[str] = []
        self.flop = 0.0
        self.code_hash = None
        self.is_fallback = False
        self.cost: float | None = None

    axis = staticmethod(VirtualAxis)
    reduce_axis = axis

    def define_split(self, name: str, axis: Any, policy: str = "factors", **kwargs: Any) -> list[Any]:
        """A knob splitting *axis* into ``num_outputs`` axes (see :class:`SplitSpace`)."""
        return self._define(name, lambda: SplitSpace([VirtualAxis(axis)], policy, **kwargs), kwargs.get("num_outputs"))

    def define_reorder(self, name: str, axes: Sequence[Any], policy: str, **kwargs: Any) -> list[Any]:
        """A knob ordering *axes* (see :class:`ReorderSpace`)."""
        return self._define(name, lambda: ReorderSpace([VirtualAxis(a) for a in axes], policy, **kwargs), len(axes))

    def define_annotate(self, name: str, axes: Sequence[Any], policy: str, **kwargs: Any) -> list[Any]:
        """A knob annotating *axes* (see :class:`AnnotateSpace`)."""
        return self._define(name, lambda: AnnotateSpace([VirtualAxis(a) for a in axes], policy, **kwargs), len(axes))

    def define_knob(self, name: str, candidate: Sequence[Any]) -> list[Any]:
        """A knob choosing one of *candidate* (``cfg[name].val``)."""
        return self._define(name, lambda: OtherOptionSpace(candidate), 0)

    def _define(self, name: str, make: Callable[[], TransformSpace], outputs: Any) -> list[Any]:
        raise NotImplementedError


    def add_flop(self, flop: Any) -> None:
        """Adds *flop* floating-point operations to the task's count (for GFLOPS figures)."""
        value = value_of(flop) if not isinstance(flop, (int, float)) else flop
        if not isinstance(value, (int, float)):
            raise TypeError(f"add_flop: a constant number, got {flop!r}")
        self.flop += float(value)

    def raise_error(self, msg: str) -> None:
        """Marks this configuration invalid (it is then not built)."""
        self.errors.append(str(msg))

    def valid(self) -> bool:
        return not self.errors

    def __getitem__(self, name: str) -> Any:
        try:
            return self._entity_map[name]
        except KeyError:
            raise ValueError(f"autotvm: no knob named {name!r}; defined: {', '.join(self._entity_map) or 'none'}") \
                from None

    def __iter__(self) -> Iterator[str]:
        return iter(self._entity_map)


class ConfigSpace(_Knobs):
    """All configurations of a template: its knobs' spaces, their product, and an optional
    filter over whole configurations."""

    def __init__(self) -> None:
        super().__init__()
        self._multi_filter: Callable[[dict[str, Any]], Any] | None = None
        self._valid: list[bool] | None = None

    def _define(self, name: str, make: Callable[[], TransformSpace], outputs: Any) -> list[Any]:
        _check_knob_name(name)
        space = make()
        if not len(space):
            raise ValueError(f"autotvm: the knob {name!r} has no choices (check its policy, filter, max_factor)")
        # Defining a knob again replaces it in its place, as TVM does.
        self.space_map[name] = space
        self._entity_map[name] = space[0]
        self._valid = None
        return list(range(space.num_output))

    def multi_filter(self, filter: Callable[[Any], Any]) -> None:  # noqa: A002 - TVM's keyword
        """Keeps only the configurations for which *filter* (given the knobs' entities, as
        ``entity["tile_x"].size``) is true; their indices do not change."""
        if not callable(filter):
            raise TypeError(f"multi_filter: filter is a function of the configuration, got {filter!r}")
        self._multi_filter = filter
        self._valid = None

    def _validity(self) -> list[bool]:
        if self._valid is None:
            keep = self._multi_filter
            self._valid = [bool(keep(self._entities(i))) for i in range(self.range_length)] if keep else []
        return self._valid

    def _entities(self, index: int) -> dict[str, Any]:
        entities, rest = {}, index
        for name, space in self.space_map.items():
            entities[name] = space[rest % len(space)]
            rest //= len(space)
        return entities

    def __len__(self) -> int:
        """The number of valid configurations."""
        return sum(self._validity()) if self._multi_filter else self.range_length

    @property
    def range_length(self) -> int:
        """The number of indices, valid or not: the product of the knobs' lengths."""
        return math.prod(len(s) for s in self.space_map.values())

    @property
    def dims(self) -> list[int]:
        """The knobs' lengths, in definition order."""
        return [len(s) for s in self.space_map.values()]

    def knob_lengths(self) -> list[int]:
        return self.dims

    def _check_index(self, name: str, index: Any, end: int | None = None) -> int:
        end = self.range_length if end is None else end
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < end:
            raise SpaceError(f"ConfigSpace.{name}: an index is an int in [0, {end}), got {index!r}")
        return int(index)

    def is_index_valid(self, index: int) -> bool:
        """Whether configuration *index* passes the multi_filter."""
        index = self._check_index("is_index_valid", index)
        return not self._multi_filter or self._validity()[index]

    def get(self, index: int) -> ConfigEntity:
        """The configuration numbered *index* (the first knob varies fastest)."""
        index = self._check_index("get", index)
        if not self.is_index_valid(index):
            raise SpaceError(f"ConfigSpace.get: configuration {index} is excluded by the multi_filter; "
                             "step with get_next_index or test is_index_valid first")
        return ConfigEntity(index, self.code_hash, self._entities(index))

    def _bounds(self, name: str, start: int | None, end: int | None) -> tuple[int, int]:
        start = 0 if start is None else start
        end = self.range_length if end is None else end
        for value in (start, end):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise SpaceError(f"ConfigSpace.{name}: start and end are ints, got {value!r}")
        if not 0 <= start <= end <= self.range_length:
            raise SpaceError(f"ConfigSpace.{name}: needs 0 <= start <= end <= {self.range_length}, "
                             f"got [{start}, {end})")
        return int(start), int(end)

    def subrange_length(self, start: int, end: int) -> int:
        """The number of valid configurations with index in [start, end)."""
        start, end = self._bounds("subrange_length", start, end)
        return sum(self._validity()[start:end]) if self._multi_filter else end - start

    def get_next_index(self, index: int, n: int = 1, start: int | None = None, end: int | None = None) -> int | None:
        """The *n*-th valid index after *index* (before it when *n* < 0) within [start, end),
        or None when there is none."""
        if isinstance(n, bool) or not isinstance(n, int) or n == 0:
            raise SpaceError(f"ConfigSpace.get_next_index: n is a non-zero int, got {n!r}")
        start, end = self._bounds("get_next_index", start or None, end or None)
        step, left = (1 if n > 0 else -1), abs(n)
        while left:
            index += step
            if not start <= index < end:
                return None
            if not self._multi_filter or self._validity()[index]:
                left -= 1
        return index

    def get_rand_index(self, start: int | None = None, end: int | None = None,
                       to_exclude: Any = None) -> int:
        """A random valid index in [start, end) that is not in *to_exclude*."""
        start, end = self._bounds("get_rand_index", start or None, end or None)
        excluded = set(to_exclude or ())
        for _ in range(64):  # the common case: a dense range
            index = random.randrange(start, end) if end > start else start
            if index not in excluded and (not self._multi_filter or self._validity()[index]):
                return index
        left = [i for i in range(start, end)
                if i not in excluded and (not self._multi_filter or self._validity()[i])]
        if not left:
            raise SpaceError(f"ConfigSpace.get_rand_index: no valid index is left in [{start}, {end})")
        return random.choice(left)

    def point2knob(self, point: int) -> list[int]:
        """The index of each knob's choice in configuration *point*."""
        point = self._check_index("point2knob", point)
        knob = []
        for dim in self.dims:
            knob.append(point % dim)
            point //= dim
        return knob

    def knob2point(self, knob: Sequence[int]) -> int:
        """The configuration index of the knob choices *knob* (the inverse of point2knob)."""
        dims = self.dims
        if len(knob) != len(dims) or any(not isinstance(k, (int, np.integer)) or not 0 <= k < d
                                          for k, d in zip(knob, dims)):
            raise SpaceError(f"ConfigSpace.knob2point: one choice per knob within {dims}, got {list(knob)}")
        point, scale = 0, 1
        for k, dim in zip(knob, dims):
            point += int(k) * scale
            scale *= dim
        return point

    def sample_ints(self, m: int) -> np.ndarray:
        """*m* distinct valid indices drawn at random."""
        if isinstance(m, bool) or not isinstance(m, int) or not 0 <= m <= len(self):
            raise SpaceError(f"ConfigSpace.sample_ints: m is an int in [0, {len(self)}], got {m!r}")
        seen: set[int] = set()
        while len(seen) < m:
            seen.add(self.get_rand_index(to_exclude=seen))
        return np.fromiter(seen, int, len(seen))

    def random_walk(self, point: int) -> int:
        """A valid neighbour of *point*: one knob changed to another choice."""
        old = self.point2knob(point)
        moves = [(k, v) for k, d in enumerate(self.dims) for v in range(d) if v != old[k]]
        random.shuffle(moves)
        for k, v in moves:
            candidate = self.knob2point([*old[:k], v, *old[k + 1:]])
            if not self._multi_filter or self._validity()[candidate]:
                return candidate
        raise SpaceError(f"ConfigSpace.random_walk: configuration {point} has no valid neighbour")

    def __repr__(self) -> str:
        lines = [f"ConfigSpace (len={len(self)}, range_length={self.range_length}, space_map="]
        lines += [f"  {i:2d} {name}: {space}" for i, (name, space) in enumerate(self.space_map.items())]
        return "\n".join(lines) + "\n)"


_KINDS = {SplitEntity: ("sp", "size"), ReorderEntity: ("re", "perm"), AnnotateEntity: ("an", "anns"),
          OtherOptionEntity: ("ot", "val")}
_CLASSES = {code: cls for cls, (code, _) in _KINDS.items()}


class ConfigEntity(_Knobs):
    """One configuration: a choice for every knob; ``define_*`` calls only check the knob exists."""

    def __init__(self, index: int, code_hash: Any, entity_map: dict[str, Any]) -> None:
        super().__init__()
        self.index = index
        self.code_hash = code_hash
        self._entity_map = dict(entity_map)

    def _define(self, name: str, make: Callable[[], TransformSpace], outputs: Any) -> list[Any]:
        _check_knob_name(name)
        if name not in self._entity_map:
            raise InstantiationError(f"autotvm: the configuration has no knob {name!r} (it was made for another "
                                     "template or version of it)")
        return list(range(outputs or 0))

    def get_flatten_feature(self) -> list[float]:
        """The knobs' values as numbers: split lengths, permutations, one-hot annotations."""
        out: list[float] = []
        codes = ["none", "vec", "unroll", *_THREAD_TAGS, "fuse"]
        for v in self._entity_map.values():
            if isinstance(v, SplitEntity):
                out += v.size
            elif isinstance(v, ReorderEntity):
                out += v.perm
            elif isinstance(v, AnnotateEntity):
                for ann in v.anns:
                    out += [float(ann == c) for c in codes] if isinstance(ann, str) else [float(ann)]
            elif isinstance(v.val, (int, float)):
                out.append(float(v.val))
            else:
                out.append(float(hash(str(v.val)) % 997))
        return out

    def get_other_option(self) -> dict[str, Any]:
        return {k: v.val for k, v in self._entity_map.items() if isinstance(v, OtherOptionEntity)}

    def to_json_dict(self) -> dict[str, Any]:
        entity = [[k, _KINDS[type(v)][0], getattr(v, _KINDS[type(v)][1])] for k, v in self._entity_map.items()]
        return {"index": int(self.index), "code_hash": self.code_hash, "entity": entity}

    @staticmethod
    def from_json_dict(d: dict[str, Any]) -> ConfigEntity:
        try:
            entities = {str(k): _CLASSES[code](args) for k, code, args in d["entity"]}
            return ConfigEntity(int(d["index"]), d.get("code_hash"), entities)
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"autotvm: not a configuration record: {d!r} ({e})") from None

    def _entities_text(self) -> str:
        return "[" + ", ".join(f"({k!r}, {v!r})" for k, v in self._entity_map.items()) + "]"

    def __repr__(self) -> str:
        return f"{self._entities_text()},{self.code_hash},{self.index}"


class FallbackConfigEntity(ConfigSpace):
    """The configuration used when none is known for a workload: each knob's first choice
    (or what ``fallback_split`` sets), with ``is_fallback`` true."""

    def __init__(self) -> None:
        super().__init__()
        self.is_fallback = True

    def _define(self, name: str, make: Callable[[], TransformSpace], outputs: Any) -> list[Any]:
        if name in self.space_map:  # a template called again under the same fallback
            return list(range(self.space_map[name].num_output))
        return super()._define(name, make, outputs)

    def fallback_split(self, name: str, constraints: Sequence[int]) -> None:
        """Sets split *name* to the largest divisor lengths within *constraints* (-1: none),
        innermost first, as TVM's fallback does."""
        space = self.space_map.get(name)
        if not isinstance(space, SplitSpace) or len(constraints) != space.num_output:
            raise SpaceError(f"fallback_split: {name!r} is not a split knob of {len(constraints)} outputs")
        limits = [float("inf") if c == -1 else c for c in constraints]
        rest, size = space.product, [0] * space.num_output
        for i in reversed(range(space.num_output)):
            fits = [f for f in get_factors(rest) if f <= limits[i]]
            if not fits:
                raise SpaceError(f"fallback_split: no split of {name!r} meets {list(constraints)}")
            size[i] = fits[-1]
            rest //= fits[-1]
        self._entity_map[name] = SplitEntity(size)

    def __setitem__(self, name: str, entity: Any) -> None:
        """Sets knob *name*: an entity, or plainly a split's lengths (a list or tuple) or an
        option's value (anything else), so that layers below autotvm can set a fallback."""
        if isinstance(entity, (list, tuple)):
            entity = SplitEntity(entity)
        elif not isinstance(entity, (SplitEntity, ReorderEntity, AnnotateEntity, OtherOptionEntity)):
            entity = OtherOptionEntity(entity)
        self._entity_map[name] = entity

    def __repr__(self) -> str:
        return "[" + ", ".join(f"({k!r}, {v!r})" for k, v in self._entity_map.items()) + f"],{self.code_hash}"
