"""topi.tensordot and topi.matmul against NumPy, and their refusals."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build

RNG = np.random.default_rng(5)


def _run(out, inputs, arrays):
    f = build(te.create_schedule(out.op), [*inputs, out])
    result = np.full([int(d) for d in out.shape], np.nan, dtype=out.dtype)
    f(*arrays, result)
    return result


@pytest.mark.parametrize("sa, sb, axes", [
    ((3,), (3,), 0), ((2, 3), (3, 5), 1), ((2, 2, 3), (2, 3, 5), 2), ((3, 2, 2), (2, 3, 5), (1, 0)),
    ((3, 2, 2), (2, 3, 5), ((1, 0), (0, 1))), ((4, 3, 2, 2), (2, 4, 3, 5), ((1, 2, 0), (2, 0, 1))),
    ((2, 3), (3, 2), ([-1], [0])),
])
def test_tensordot_as_numpy(sa, sb, axes):
    A, B = te.placeholder(sa, name="A"), te.placeholder(sb, name="B")
    a, b = RNG.standard_normal(sa).astype("float32"), RNG.standard_normal(sb).astype("float32")
    np.testing.assert_allclose(_run(topi.tensordot(A, B, axes), [A, B], [a, b]), np.tensordot(a, b, axes),
                               rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("ta, tb", [(False, False), (True, False), (False, True), (True, True)])
def test_matmul_with_either_operand_transposed(ta, tb):
    sa, sb = ((3, 5) if ta else (5, 3)), ((2, 3) if tb else (3, 2))
    A, B = te.placeholder(sa, name="A"), te.placeholder(sb, name="B")
    a, b = RNG.standard_normal(sa).astype("float32"), RNG.standard_normal(sb).astype("float32")
    expected = (a.T if ta else a) @ (b.T if tb else b)
    np.testing.assert_allclose(_run(topi.matmul(A, B, ta, tb), [A, B], [a, b]), expected, rtol=1e-5, atol=1e-5)


def test_tensordot_refuses_bad_axes():
    A, B = te.placeholder((2, 3), name="A"), te.placeholder((4, 5), name="B")
    with pytest.raises(ValueError, match="differ"):
        topi.tensordot(A, B, 1)
    with pytest.raises(ValueError, match="out of range"):
        topi.tensordot(A, B, ([2], [0]))
    with pytest.raises(ValueError, match="more than the tensors' ranks"):
        topi.tensordot(A, B, 3)
    with pytest.raises(ValueError, match="pair of axis lists"):
        topi.tensordot(A, B, "ij")
    with pytest.raises(TypeError, match="must be a tensor"):
        topi.tensordot(np.zeros(3), B, 0)
