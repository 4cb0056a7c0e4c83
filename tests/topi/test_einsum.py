"""topi.einsum against NumPy's einsum: traces and diagonals, implicit outputs, ellipses,
broadcast extents of 1 (constant and symbolic), chains of three operands; refusals."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower import build

RNG = np.random.default_rng(7)

CASES = [
    ("ii", [(4, 4)]), ("ii->i", [(3, 3)]), ("ij->j", [(3, 5)]), ("ij", [(2, 3)]), ("ji", [(2, 3)]),
    ("...k->...", [(2, 3, 4)]), ("...k, k", [(3, 4), (4,)]), ("..., ...", [(), (2, 3)]),
    ("abc, bad->cd", [(2, 3, 4), (3, 2, 5)]), ("ij, ij -> i", [(1, 4), (3, 4)]),
    ("...ij, ...jk -> ...ik", [(2, 1, 3, 4), (5, 4, 2)]), ("ik,jk,hk->ijh", [(2, 3), (4, 3), (5, 3)]),
    ("i,j->ij", [(3,), (4,)]), ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
]


def _run(out, inputs, arrays, shape):
    f = build(te.create_schedule(out.op), [*inputs, out])
    result = np.full(shape, np.nan, dtype="float32")
    f(*arrays, result)
    return result


@pytest.mark.parametrize("subscripts, shapes", CASES, ids=[c[0] for c in CASES])
def test_einsum_as_numpy(subscripts, shapes):
    inputs = [te.placeholder(s, name=f"p{k}") for k, s in enumerate(shapes)]
    arrays = [np.asarray(RNG.standard_normal(s), dtype="float32") for s in shapes]
    expected = np.einsum(subscripts, *arrays)
    got = _run(topi.einsum(subscripts, *inputs), inputs, arrays, expected.shape)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("k2", [3, 1])
def test_a_symbolic_extent_broadcasts_when_it_is_one(k2):
    K, N, K2 = te.var("K"), te.var("N"), te.var("K2")
    A, B = te.placeholder((2, K), name="A"), te.placeholder((K2, N), name="B")
    a, b = RNG.standard_normal((2, 3)).astype("float32"), RNG.standard_normal((k2, 4)).astype("float32")
    expected = np.einsum("ij,jk->ik", a, b)
    np.testing.assert_allclose(_run(topi.einsum("ij,jk->ik", A, B), [A, B], [a, b], expected.shape), expected,
                               rtol=1e-5, atol=1e-5)


def test_einsum_refuses_malformed_subscripts():
    A = te.placeholder((2, 3), name="A")
    with pytest.raises(ValueError, match="name 2 operands, 1 given"):
        topi.einsum("ij,jk", A)
    with pytest.raises(ValueError, match="3 labels for an operand of 2"):
        topi.einsum("ijk", A)
    with pytest.raises(ValueError, match="extents 2 and 3"):
        topi.einsum("ii", A)
    with pytest.raises(ValueError, match="is in no operand"):
        topi.einsum("ij->k", A)
    with pytest.raises(ValueError, match="use letters"):
        topi.einsum("i1", A)
    with pytest.raises(TypeError, match="operands are tensors"):
        topi.einsum("ij", np.zeros((2, 3)))
