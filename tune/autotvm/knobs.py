"""The knobs of a configuration space, as TVM's autotvm defines them: the axes a knob sees,
the choices of each kind of knob (a split of an axis, an order of axes, annotations, a list of
options), and the entity each choice applies to a schedule. Entities print as TVM's do, so
logs and printed spaces read the same."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any

from schedule import IterVar, thread_axis
from schedule.ir.arith import value_of


class SpaceError(ValueError, RuntimeError):
    """A knob or configuration that cannot be defined as asked. It is also a RuntimeError,
    which is what TVM raises in the same places."""

class InstantiationError(ValueError):
    """A configuration the template itself rejects (``cfg.raise_error``), or whose schedule
    fails before anything is built."""


class VirtualAxis:
    """An axis as a knob sees it: a name and a constant length (-1 if not constant)."""

    _count = itertools.count()

    def __init__(self, var: Any, name: str | None = None) -> None:
        if isinstance(var, bool) or not isinstance(var, (int, IterVar, VirtualAxis)):
            raise TypeError(f"autotvm: an axis is an IterVar or an int length, got {var!r}")
        if isinstance(var, VirtualAxis):
            self.name, self.length = name or var.name, var.length
        elif isinstance(var, IterVar):
            extent = value_of(var.dom.extent) if var.dom is not None else None
            self.name, self.length = var.var.name, extent if isinstance(extent, int) else -1
        else:
            self.name, self.length = name or f"axis_{next(VirtualAxis._count)}", var

    def __repr__(self) -> str:
        return f"vaxis({self.name})"


def get_factors(n: int) -> list[int]:
    """The divisors of *n*, ascending."""
    small = [i for i in range(1, math.isqrt(n) + 1) if n % i == 0]
    return sorted(set(small) | {n // i for i in small})


def get_pow2s(n: int) -> list[int]:
    """The powers of two up to *n*."""
    return [1 << k for k in range(n.bit_length())]


# -- entities ---------------------------------------------------------------------------------

class SplitEntity:
    """The lengths of the axes a split makes, outermost first; -1 for "whatever remains"."""

    def __init__(self, size: Sequence[int]) -> None:
        self.size = list(size)

    def apply(self, sch: Any, op: Any, axis: IterVar) -> list[IterVar]:
        """Splits *axis* of *op*'s stage into ``len(size)`` axes, inner lengths from ``size``."""
        out = []
        for i in range(1, len(self.size)):
            outer, axis = sch[op].split(axis, factor=math.prod(self.size[i:]))
            out.append(outer)
        return [*out, axis]

    def __repr__(self) -> str:
        return str(self.size)


class ReorderEntity:
    """A permutation of a knob's axes."""

    def __init__(self, perm: Sequence[int]) -> None:
        self.perm = list(perm)

    def apply(self, sch: Any, op: Any, axes: Sequence[IterVar]) -> list[IterVar]:
        order = [axes[i] for i in self.perm if i < len(axes)]
        sch[op].reorder(*order)
        return order

    def __repr__(self) -> str:
        return str(self.perm)


_THREAD_TAGS = ("blockIdx.x", "blockIdx.y", "blockIdx.z", "threadIdx.x", "threadIdx.y", "threadIdx.z", "vthread")


class AnnotateEntity:
    """One annotation per axis: none, unroll, vec, fuse, a thread tag; or, for ``locate_cache``,
    the positions of the axes caches are attached at."""

    def __init__(self, anns: Sequence[Any]) -> None:
        self.anns = list(anns)

    def apply(self, sch: Any, op: Any, axes: Sequence[IterVar], axis_lens: Sequence[int] | None = None,
              max_unroll: int | None = None, vec_size: Sequence[int] | None = None, cfg: Any = None,
              source: Sequence[Sequence[Any]] | None = None) -> list[IterVar]:
        axes = list(axes)
        if source is not None:  # attach cache stages at the chosen axes
            for tensors, at in zip(source, self.anns):
                for t in tensors:
                    sch[t].compute_at(sch[op], axes[at])
            return axes
        for i, ann in enumerate(self.anns):
            if ann == "none":
                continue
            if ann == "unroll":
                if max_unroll and axis_lens and axis_lens[i] > max_unroll and cfg is not None:
                    cfg.raise_error("Too large factor for unrolling")
                sch[op].unroll(axes[i])
            elif ann == "vec":
                if vec_size and axis_lens and axis_lens[i] not in vec_size and cfg is not None:
                    cfg.raise_error("Wrong size of lanes in vectorization")
                sch[op].vectorize(axes[i])
            elif ann in _THREAD_TAGS:
                sch[op].bind(axes[i], thread_axis(ann))
            elif ann == "fuse":
                if i + 1 >= len(axes):
                    raise InstantiationError("autotvm: 'fuse' needs an axis after it")
                axes[i + 1] = sch[op].fuse(axes[i], axes[i + 1])
            else:
                raise InstantiationError(f"autotvm: unknown annotation {ann!r}")
        return axes

    def __repr__(self) -> str:
        return str(self.anns)


class OtherOptionEntity:
    """One candidate of a knob (``cfg["name"].val``)."""

    def __init__(self, val: Any) -> None:
        self.val = val

    def __repr__(self) -> str:
        return str(self.val)


# -- knob spaces ------------------------------------------------------------------------------

class TransformSpace:
    """The choices of one knob."""

    num_output = 0

    def __init__(self) -> None:
        self.entities: list[Any] = []

    def __len__(self) -> int:
        return len(self.entities)

    def __getitem__(self, index: int) -> Any:
        return self.entities[index]


class SplitSpace(TransformSpace):
    """Every way to split an axis into *num_outputs* axes under a policy: ``factors`` (divisors,
    no tail), ``power2`` (powers of two, tails allowed), ``verbose`` (both), or ``candidate``."""

    def __init__(self, axes: Sequence[VirtualAxis], policy: str, num_outputs: int = 0, max_factor: int = 1 << 31,
                 filter: Callable[[SplitEntity], bool] | None = None,  # noqa: A002 - TVM's keyword
                 no_tail: bool | None = None, candidate: Sequence[Sequence[int]] | None = None) -> None:
        super().__init__()
        if not isinstance(num_outputs, int) or num_outputs < 1:
            raise SpaceError(f"define_split: num_outputs is a positive int, got {num_outputs!r}")
        self.policy, self.num_output, self.product = policy, num_outputs, axes[0].length
        if policy == "candidate":
            if candidate is None:
                raise SpaceError("define_split: policy 'candidate' needs candidate=[[...], ...]")
            for size in candidate:
                if len(size) != num_outputs:
                    raise SpaceError(f"define_split: candidate {list(size)} does not have {num_outputs} lengths")
                self.entities.append(SplitEntity(size))
        else:
            if self.product < 1:
                raise SpaceError(f"define_split: axis {axes[0].name} has no constant length; "
                                 "use policy='candidate' with explicit lengths")
            choices = {"factors": lambda n: get_factors(n), "power2": get_pow2s,
                       "verbose": lambda n: sorted(set(get_factors(n)) | set(get_pow2s(n)))}
            if policy not in choices:
                raise SpaceError(f"define_split: unknown policy {policy!r}; "
                                 "use 'factors', 'power2', 'verbose' or 'candidate'")
            self.factors = [f for f in choices[policy](self.product) if f <= max_factor]
            exact = policy == "factors" if no_tail is None else no_tail
            for inner in itertools.product(self.factors, repeat=num_outputs - 1):
                prod = math.prod(inner)
                if prod <= self.product and (self.product % prod == 0 or (not exact and prod < self.product)):
                    self.entities.append(SplitEntity([-1, *inner[::-1]]))
        if filter is not None:
            self.entities = [e for e in self.entities if filter(e)]

    def __repr__(self) -> str:
        return f"Split(policy={self.policy}, product={self.product}, num_outputs={self.num_output}) len={len(self)}"


class ReorderSpace(TransformSpace):
    """Orders of a list of axes: ``identity``, ``all`` permutations, ``interval_all`` (those of
    an interval), or ``candidate`` orders."""

    def __init__(self, axes: Sequence[VirtualAxis], policy: str, interval: tuple[int, int] | None = None,
                 candidate: Sequence[Sequence[Any]] | None = None) -> None:
        super().__init__()
        self.policy, self.num_output = policy, len(axes)
        n = len(axes)
        if policy == "identity":
            perms: list[Sequence[int]] = [range(n)]
        elif policy == "all":
            perms = list(itertools.permutations(range(n)))
        elif policy == "interval_all":
            if interval is None:
                raise SpaceError("define_reorder: policy 'interval_all' needs interval=(begin, end)")
            begin, end = interval
            perms = [(*range(begin), *p, *range(end, n)) for p in itertools.permutations(range(begin, end))]
        elif policy == "candidate":
            if candidate is None:
                raise SpaceError("define_reorder: policy 'candidate' needs candidate=[[axes...], ...]")
            perms = [[_position(axes, x) for x in order] for order in candidate]
        else:
            raise SpaceError(f"define_reorder: unknown policy {policy!r}; "
                             "use 'identity', 'all', 'interval_all' or 'candidate'")
        self.entities = [ReorderEntity(p) for p in perms]

    def __repr__(self) -> str:
        return f"Reorder(policy={self.policy}) len={len(self)}"


def _position(axes: Sequence[VirtualAxis], axis: Any) -> int:
    for i, a in enumerate(axes):
        if a is axis or (isinstance(axis, (IterVar, VirtualAxis)) and a.name == VirtualAxis(axis).name):
            return i
    raise SpaceError(f"define_reorder: candidate axis {axis!r} is not one of the knob's axes")


class AnnotateSpace(TransformSpace):
    """Annotations of a list of axes: a policy of ``none``, ``unroll``, ``vec`` joined by ``_``
    (``try_unroll_vec``: none, unroll or vec on each axis, at most one vectorized), ``bind_gpu``,
    or ``locate_cache`` (*num_anchor* axes to attach caches at)."""

    def __init__(self, axes: Sequence[VirtualAxis], policy: str, num_anchor: int | None = None) -> None:
        super().__init__()
        self.policy, self.num_output = policy, len(axes)
        n = len(axes)
        if policy == "bind_gpu":
            tags = {6: ["blockIdx.z", "blockIdx.y", "blockIdx.x", "threadIdx.z", "threadIdx.y", "threadIdx.x"],
                    4: ["blockIdx.y", "blockIdx.x", "threadIdx.y", "threadIdx.x"], 2: ["blockIdx.x", "threadIdx.x"]}
            width = next((w for w in (6, 4, 2) if n >= w), None)
            if width is None:
                raise SpaceError("define_annotate: 'bind_gpu' needs at least 2 axes")
            self.entities = [AnnotateEntity(["fuse"] * (n - width) + tags[width])]
        elif policy == "locate_cache":
            if num_anchor is None:
                raise SpaceError("define_annotate: policy 'locate_cache' needs num_anchor=")
            self.entities = [AnnotateEntity(list(c)) for c in itertools.combinations(range(n), num_anchor)]
        else:
            options = policy.replace("try", "none").split("_")
            if any(o not in ("none", "unroll", "vec") for o in options):
                raise SpaceError(f"define_annotate: unknown policy {policy!r}; use words of none, unroll, vec "
                                 "joined by '_' (try_unroll_vec), 'bind_gpu' or 'locate_cache'")
            for anns in itertools.product(options, repeat=n):
                if anns.count("vec") <= 1:  # at most one axis vectorized
                    self.entities.append(AnnotateEntity(list(anns)))
        self.ins = list(axes)

    def __repr__(self) -> str:
        return f"Annotate(policy={self.policy}) len={len(self)}"


class OtherOptionSpace(TransformSpace):
    """The candidates of a ``define_knob``."""

    def __init__(self, candidate: Sequence[Any]) -> None:
        super().__init__()
        if isinstance(candidate, (str, bytes)) or not isinstance(candidate, Sequence) or not candidate:
            raise SpaceError(f"define_knob: the candidates are a non-empty list, got {candidate!r}")
        self.entities = [OtherOptionEntity(x) for x in candidate]

    def __repr__(self) -> str:
        return f"OtherOption({self.entities}) len={len(self)}"
