"""The operators TVM writes as extern ``ir_builder`` bodies or data-dependent reads:
``searchsorted``, ``dft``, ``scatter_nd`` and ``nn.nll_loss``, on both targets and under
their CUDA names, against NumPy (``np.searchsorted``, ``np.fft``) and direct loops."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

import schedule as te
import topi
from lower import OutOfBoundsError, build
from topi.testing import compare_numpy_tvm

RNG = np.random.default_rng(29)
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


@pytest.mark.parametrize("seq_shape, val_shape, right", [((3, 2, 64), (3, 2, 50), False), ((33,), (4, 20), True),
                                                         ((5, 21), (5, 10), True), ((1,), (3,), False)])
def test_searchsorted_equals_numpys_on_each_row(seq_shape, val_shape, right):
    seq = np.sort(RNG.integers(-5, 6, seq_shape).astype("float32"), axis=-1)  # repeated values
    values = RNG.integers(-6, 7, val_shape).astype("float32")
    rows = seq.reshape(-1, seq_shape[-1]) if len(seq_shape) > 1 else np.broadcast_to(seq, (int(np.prod(
        val_shape[:-1])), seq_shape[-1]))
    side = "right" if right else "left"
    want = np.stack([np.searchsorted(r, v, side=side) for r, v in zip(rows, values.reshape(len(rows), -1))])
    want = want.reshape(val_shape).astype("int32")
    np.testing.assert_array_equal(topi.testing.searchsorted_ref(seq, values, right, "int32"), want)
    for fn, schedule in ((topi.searchsorted, topi.generic.schedule_extern), (topi.cuda.searchsorted,
                                                                             topi.cuda.schedule_extern)):
        compare_numpy_tvm([seq, values], want, "cuda" if fn is topi.cuda.searchsorted else "llvm", None,
                          lambda s, v, fn=fn: fn(s, v, right, "int32"), schedule)


@pytest.mark.parametrize("shape, dtype, inverse", [((7,), "float64", False), ((3, 7), "float32", True),
                                                   ((3, 4, 5), "float32", False), ((2, 6), "float16", True)])
def test_dft_equals_numpys_fft(shape, dtype, inverse):
    re, im = RNG.normal(size=shape).astype(dtype), RNG.normal(size=shape).astype(dtype)
    R, I = te.placeholder(shape, dtype, "Re"), te.placeholder(shape, dtype, "Im")
    outs = topi.dft(R, I, inverse)
    got = [np.zeros(shape, dtype), np.zeros(shape, dtype)]
    build(topi.generic.schedule_extern(outs), [R, I, *outs])(re, im, *got)
    want = (np.fft.ifft if inverse else np.fft.fft)(re.astype("float64") + 1j * im.astype("float64"))
    tol = {"float16": 5e-3, "float32": 1e-5, "float64": 1e-12}[dtype]
    np.testing.assert_allclose(got[0], want.real, rtol=tol, atol=tol)
    np.testing.assert_allclose(got[1], want.imag, rtol=tol, atol=tol)


def _scatter_loop(data, indices, updates, mode):
    out = data.copy()
    m = indices.shape[0]
    for y in itertools.product(*(range(n) for n in indices.shape[1:])):
        at = tuple(int(indices[(k, *y)]) for k in range(m))
        for x in itertools.product(*(range(n) for n in data.shape[m:])):
            old, new = out[at + x], updates[y + x]
            out[at + x] = {"update": new, "add": old + new, "mul": old * new, "min": min(old, new),
                           "max": max(old, new)}[mode]
    return out


@pytest.mark.parametrize("mode", ["update", "add", "mul", "min", "max"])
def test_scatter_nd_combines_repeated_indices_in_order(mode):
    data = RNG.integers(-4, 5, (3, 4, 2)).astype("float64")
    indices = np.array([[[0, 2], [0, 1]], [[1, 3], [1, 0]]], "int64")  # (M=2, Y=2x2), (0, 1) twice
    updates = RNG.integers(-4, 5, (2, 2, 2)).astype("float64")
    want = _scatter_loop(data, indices, updates, mode)
    compare_numpy_tvm([data, indices, updates], want, "llvm", None, lambda d, i, u: topi.scatter_nd(d, i, u, mode),
                      topi.generic.schedule_extern)
    compare_numpy_tvm([data, indices, updates], want, "cuda", None,
                      lambda d, i, u: topi.cuda.scatter_nd(d, i, u, mode), topi.cuda.schedule_extern)


def test_scatter_nd_refuses_an_index_outside_the_tensor_at_run_time():
    D, I, U = te.placeholder((2, 2), name="D"), te.placeholder((1, 2), "int32", "I"), te.placeholder((2, 2), name="U")
    out = topi.scatter_nd(D, I, U, "update")
    f = build(topi.generic.schedule_extern([out]), [D, I, U, out])
    with pytest.raises(OutOfBoundsError):
        f(np.zeros((2, 2), "float32"), np.array([[0, 2]], "int32"), np.ones((2, 2), "float32"),
          np.zeros((2, 2), "float32"))


def _nll_loop(pred, targets, weights, reduction, ignore):
    losses, taken = [], []
    for at in itertools.product(*(range(n) for n in targets.shape)):
        c = int(targets[at])
        if c == ignore:
            losses.append(0.0)
            taken.append(0.0)
            continue
        where = (at[0], c, *at[1:]) if at else (c,)
        losses.append(-float(pred[where]) * float(weights[c]))
        taken.append(float(weights[c]))
    if reduction == "none":
        return np.array(losses).reshape(targets.shape)
    if reduction == "sum":
        return np.array(sum(losses))
    return np.array(sum(losses) / sum(taken) if sum(taken) else float("nan"))  # every target ignored: 0 / 0


@pytest.mark.parametrize("shape, reduction, ignore", [((6, 4), "mean", -100), ((5, 3, 2, 2), "mean", 1),
                                                      ((6, 4), "sum", 2), ((6, 4), "none", -100), ((4,), "mean", 3),
                                                      ((4,), "none", -100)])
def test_nll_loss_equals_its_definition_and_never_reads_an_ignored_target(shape, reduction, ignore):
    classes = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0], *shape[2:])
    rng = np.random.default_rng(len(shape) * 10 + (ignore % 7))
    pred = rng.uniform(size=shape).astype("float32")
    targets = rng.integers(0, classes, tshape).astype("int32")
    if ignore == -100:  # an ignored target far outside the classes: reading it would fail the checks
        targets.flat[0] = -100
    weights = rng.uniform(0.5, 1.5, classes).astype("float32")
    P, T, W = te.placeholder(shape, name="P"), te.placeholder(tshape, "int32", "T"), te.placeholder((classes,), name="W")
    out = topi.nn.nll_loss(P, T, W, reduction, ignore)
    got = np.full([int(d) for d in out.shape], np.nan, "float32")
    build(topi.generic.schedule_reduce([out]), [P, T, W, out])(pred, targets, weights, got)
    want = _nll_loop(pred, targets, weights, reduction, ignore)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
    with np.errstate(invalid="ignore"):
        np.testing.assert_allclose(topi.testing.nll_loss(pred, targets, weights, reduction, ignore), want, rtol=1e-5)


@pytest.mark.parametrize("make, message", [
    (lambda: topi.searchsorted(te.placeholder((2, 5)), te.placeholder((3, 4))), "leading dimensions"),
    (lambda: topi.searchsorted(te.placeholder((5,)), te.placeholder((3,)), out_dtype="float32"), "integer type"),
    (lambda: topi.dft(te.placeholder((4,)), te.placeholder((5,)), False), "one shape and type"),
    (lambda: topi.scatter_nd(te.placeholder((2, 3)), te.placeholder((1, 4), "int32"), te.placeholder((4, 2)), "add"),
     "updates must have the shape"),
    (lambda: topi.scatter_nd(te.placeholder((2, 3)), te.placeholder((1, 4), "int32"), te.placeholder((4, 3)), "sub"),
     "mode is one of"),
    (lambda: topi.nn.nll_loss(te.placeholder((4, 3)), te.placeholder((4,), "int32"), te.placeholder((3,)), "avg"),
     "reduction is 'mean'"),
    (lambda: topi.nn.nll_loss(te.placeholder((4, 3)), te.placeholder((3,), "int32"), te.placeholder((3, 1))),
     "take targets"),
])
def test_bad_arguments_are_refused(make, message):
    with pytest.raises(ValueError) as err:
        make()
    assert message in str(err.value)


def test_the_cuda_forms_bind_one_thread_per_item_and_compute_the_same():
    re, im = RNG.normal(size=(3, 6)).astype("float32"), RNG.normal(size=(3, 6)).astype("float32")
    R, I = te.placeholder(re.shape, name="Re"), te.placeholder(im.shape, name="Im")
    outs = topi.cuda.dft(R, I, False)
    f = build(topi.cuda.schedule_extern(outs), [R, I, *outs], "cuda")
    assert f.imported_modules[0].entry_names  # a kernel, not host code
    got = [np.zeros_like(re), np.zeros_like(re)]
    f(re, im, *got)
    want = np.fft.fft(re + 1j * im)
    np.testing.assert_allclose(got[0] + 1j * got[1], want, rtol=1e-5, atol=1e-5)
    S, V = te.placeholder((40,), name="S"), te.placeholder((1500,), name="V")
    out = topi.cuda.searchsorted(S, V, True, "int32")
    g = build(topi.cuda.schedule_extern([out]), [S, V, out], "cuda")
    assert "blockIdx.x" in g.imported_modules[0].get_source()
    seq, vals = np.sort(RNG.normal(size=40)).astype("float32"), RNG.normal(size=1500).astype("float32")
    found = np.zeros(1500, "int32")
    g(seq, vals, found)
    np.testing.assert_array_equal(found, np.searchsorted(seq, vals, "right"))


def test_a_mean_over_only_ignored_targets_is_nan_as_zero_by_zero():
    P, T, W = te.placeholder((4,), name="P"), te.placeholder((), "int32", "T"), te.placeholder((4,), name="W")
    out = topi.nn.nll_loss(P, T, W, "mean", 3)
    got = np.zeros((), "float32")
    build(topi.generic.schedule_reduce([out]), [P, T, W, out])(np.ones(4, "float32"), np.array(3, "int32"),
                                                                 np.ones(4, "float32"), got)
    assert np.isnan(got)
