"""Building a ported TVM schedule and running it on NumPy arrays, in both modes."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

import schedule as te
from lower import build
from lower.binding import bind_shapes
from schedule.ir.evaluate import evaluate


def run(s: te.Schedule, args: Sequence[te.Tensor], arrays: Sequence[np.ndarray], exact: bool,
        shapes: Sequence[tuple[int, ...]] | None = None) -> list[np.ndarray]:
    """Build *s* over *args* and call it: *arrays* for the leading inputs, then fresh outputs.

    Outputs start as NaN (or -1 for integers), so a function that writes nothing fails the
    caller's comparison. Symbolic output shapes take the sizes the inputs bind, or *shapes*.
    """
    f = build(s, list(args), exact=exact)
    env = bind_shapes(list(args[:len(arrays)]), list(arrays), {})
    outs = []
    for k, t in enumerate(args[len(arrays):]):
        shape = tuple(shapes[k]) if shapes else tuple(evaluate(e, env) for e in t.shape)
        fill = np.nan if t.dtype.startswith("float") else -1
        outs.append(np.full(shape, fill, dtype=t.dtype))
    f(*arrays, *outs)
    return outs


def random(shape: Sequence[int], dtype: str = "float32", seed: int = 0) -> np.ndarray:
    """Small random values (integers, exact in any float type)."""
    return np.random.default_rng(seed).integers(-4, 5, size=tuple(shape)).astype(dtype)
