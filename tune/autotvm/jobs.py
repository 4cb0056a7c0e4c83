"""What worker processes do for a trial: compile a schedule, time it on random inputs, or
extract its features for the cost model.

Both take the pickled ``(schedule, argument tensors)`` the parent instantiated. Compiling
leaves the kernel in the shared kernel cache, so the timing job's build is a cache hit.
"""

from __future__ import annotations

import pickle
import time
from typing import Any

import numpy as np

from lower import build, nd
from lower.errors import GpuLimitError
from lower.timing import time_evaluator
from schedule import PlaceholderOp, Tensor, create_schedule
from tune.autotvm.knobs import InstantiationError
from tune.features import schedule_features


def build_job(payload: bytes, target: str) -> float:
    """Lowers and compiles the schedule in *payload*; the seconds it took."""
    start = time.perf_counter()
    s, args = pickle.loads(payload)
    try:
        build(s, args, target=target)
    except GpuLimitError as e:  # TVM's builder skips such a kernel as an invalid configuration
        raise InstantiationError(f"Skipped because of invalid gpu kernel: {e}") from None
    return time.perf_counter() - start


def feature_job(payload: bytes, explain: bool) -> list[float]:
    """The schedule features (:mod:`tune.features`) of the schedule in *payload*."""
    s, args = pickle.loads(payload)
    return list(schedule_features(s, args, explain))


def _inputs(args: list[Any], ref_input: list[np.ndarray] | None, seed: int) -> list[Any]:
    """Aligned arrays for the tensors of *args*: *ref_input* if given, else random values
    (outputs start as NaN, or -1 for integers, so an unwritten output is seen)."""
    tensors = [a for a in args if isinstance(a, Tensor)]
    if ref_input is not None:
        if len(ref_input) != len(tensors):
            raise ValueError(f"ref_input has {len(ref_input)} arrays for {len(tensors)} tensors")
        return [nd.array(x) for x in ref_input]
    rng = np.random.default_rng(seed)
    out = []
    for t in tensors:
        shape = tuple(int(d) for d in t.shape)
        dtype = np.dtype(t.dtype)
        if np.issubdtype(dtype, np.floating):
            out.append(nd.array(rng.random(shape).astype(dtype)))
        elif dtype == np.bool_:
            out.append(nd.array(rng.random(shape) < 0.5))
        else:
            out.append(nd.array(rng.integers(1, 8, shape).astype(dtype)))
    return out


def run_job(payload: bytes, target: str, number: int, repeat: int, min_repeat_ms: float,
            ref_input: list[np.ndarray] | None, check_correctness: bool) -> dict[str, Any]:
    """Builds (a cache hit) and times the schedule in *payload*: ``{"costs": [seconds per call,
    one per repeat], "wrong": message or None}``. With *check_correctness*, the outputs are
    compared with those of the unscheduled computation built the same way."""
    s, args = pickle.loads(payload)
    f = build(s, args, target=target)
    arrays = _inputs(args, ref_input, seed=0)
    outputs = [i for i, t in enumerate(args) if not _is_input(t)]
    for i in outputs:
        arrays[i][...] = np.nan if np.issubdtype(arrays[i].dtype, np.floating) else -1
    f(*arrays)
    wrong = None
    if check_correctness:
        expected = [a.copy() for a in arrays]
        naive = build(create_schedule([args[i].op for i in outputs]), args, target=target)
        naive(*expected)
        for i in outputs:
            if not np.allclose(arrays[i], expected[i], rtol=1e-3, atol=1e-5, equal_nan=False):
                wrong = f"output {args[i].name} differs from the unscheduled computation's"
                break
    result = time_evaluator(f, number=number, repeat=repeat, min_repeat_ms=min_repeat_ms)(*arrays)
    return {"costs": list(result.results), "wrong": wrong}


def _is_input(t: Any) -> bool:
    return not isinstance(t, Tensor) or isinstance(t.op, PlaceholderOp)
