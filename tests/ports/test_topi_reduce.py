"""TVM's TOPI reduction and injective tests, written anew against our topi: sum, max and
argmax scheduled by topi.x86 and topi.cuda's schedule_reduce, transpose and concatenate by
their schedule_injective; both modes, both targets, equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build
from lower.target import Target

BOTH = pytest.mark.parametrize("exact", [False, True])
STYLES = pytest.mark.parametrize("style", ["x86", "cuda"])
TARGET = {"x86": "llvm", "cuda": "cuda"}


def _built(style, schedule, outs, args, exact):
    with Target(TARGET[style]):
        s = getattr(getattr(topi, style), schedule)(outs)
    return build(s, args, exact=exact)


@BOTH
@STYLES
@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("kind", ["sum", "max", "argmax"])
@pytest.mark.parametrize("shape", [(4, 5, 12), (3, 7), (40, 32), (5, 37)])
def test_reduce_over_the_last_axis(exact, style, kind, shape):
    A = te.placeholder(shape, name="A")
    out = getattr(topi, kind)(A, axis=-1)
    a = np.random.default_rng(len(shape)).integers(-50, 50, shape).astype("float32")
    expected = {"sum": a.sum(axis=-1), "max": a.max(axis=-1), "argmax": a.argmax(axis=-1)}[kind]
    got = np.full(expected.shape, -7, out.dtype)
    _built(style, "schedule_reduce", out, [A, out], exact)(a, got)
    np.testing.assert_array_equal(got, expected)


@BOTH
@STYLES
@pytest.mark.filterwarnings("ignore::UserWarning")
def test_transpose_of_a_relu_and_concatenate(exact, style):
    A = te.placeholder((3, 5, 7), name="A")
    B = te.placeholder((3, 2, 7), name="B")
    T = topi.transpose(topi.nn.relu(A), (2, 0, 1))
    cat = topi.concatenate([A, B], axis=1)
    rng = np.random.default_rng(9)
    a, b = rng.standard_normal((3, 5, 7)).astype("float32"), rng.standard_normal((3, 2, 7)).astype("float32")
    for out, args, arrays, expected in ((T, [A, T], [a], np.maximum(a, 0).transpose(2, 0, 1)),
                                        (cat, [A, B, cat], [a, b], np.concatenate([a, b], axis=1))):
        got = np.full(expected.shape, np.nan, "float32")
        _built(style, "schedule_injective", out, args, exact)(*arrays, got)
        np.testing.assert_array_equal(got, expected)
