"""The tensors the user holds stay the arguments, whatever primitives rebuilt their operations.

(Multi-output cache_write with inlining: TVM's test_schedule_compute_inline in tests/ports.)
"""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower


def _run(s, args, inputs, exact):
    """Build and run; outputs start as NaN so that a build writing nothing fails the comparison."""
    outs = [np.full([int(d) for d in t.shape], np.nan, dtype=t.dtype) for t in args[len(inputs):]]
    build(s, args, exact=exact)(*inputs, *outs)
    return outs


@pytest.fixture
def elementwise():
    A = te.placeholder((6, 8), name="A")
    C = te.compute((6, 8), lambda i, j: A[i, j] * 2 + 1, name="C")
    a = np.random.default_rng(0).standard_normal((6, 8)).astype("float32")
    return A, C, a


@pytest.mark.parametrize("exact", [False, True])
@pytest.mark.parametrize("scope", ["local", "global", "shared"])
def test_cache_write_writes_the_users_output(elementwise, exact, scope):
    A, C, a = elementwise
    s = te.create_schedule(C.op)
    CC = s.cache_write(C, scope)
    xo, xi = s[C].split(C.op.axis[1], factor=3)
    s[CC].compute_at(s[C], xo)
    (c,) = _run(s, [A, C], [a], exact)
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


@pytest.mark.parametrize("exact", [False, True])
def test_cache_read_into_the_outputs_reader(elementwise, exact):
    A, C, a = elementwise
    s = te.create_schedule(C.op)
    AA = s.cache_read(A, "shared", [C])
    s[AA].compute_at(s[C], C.op.axis[0])
    (c,) = _run(s, [A, C], [a], exact)
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


@pytest.mark.parametrize("exact", [False, True])
def test_cache_read_of_an_intermediate_and_cache_write_of_the_output(exact):
    A = te.placeholder((5, 4), name="A")
    B = te.compute((5, 4), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((5, 4), lambda i, j: B[i, j] * B[i, 3 - j], name="C")
    s = te.create_schedule(C.op)
    BL = s.cache_read(B, "local", [C])
    CL = s.cache_write(C, "local")
    s[BL].compute_at(s[CL], CL.op.axis[0])
    a = np.arange(20, dtype="float32").reshape(5, 4)
    (c,) = _run(s, [A, C], [a], exact)
    np.testing.assert_array_equal(c, (a + 1) * (a + 1)[:, ::-1])


@pytest.mark.parametrize("exact", [False, True])
def test_inline_then_normalize_keeps_the_users_tensors(exact):
    A = te.placeholder((7,), name="A")
    B = te.compute((7,), lambda i: A[i] * 3, name="B")
    C = te.compute((7,), lambda i: B[i] - A[i], name="C")
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    s = s.normalize()
    a = np.arange(7, dtype="float32")
    (c,) = _run(s, [A, C], [a], exact)
    np.testing.assert_array_equal(c, a * 2)


@pytest.mark.parametrize("exact", [False, True])
def test_a_computed_intermediate_may_be_an_argument(exact):
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((4, 4), lambda i, j: B[j, i], name="C")
    s = te.create_schedule(C.op)
    a = np.arange(16, dtype="float32").reshape(4, 4)
    b, c = _run(s, [A, B, C], [a], exact)
    np.testing.assert_array_equal(b, a + 1)
    np.testing.assert_array_equal(c, (a + 1).T)


def test_an_unused_input_is_bound_but_not_read(elementwise):
    A, C, a = elementwise
    unused = te.placeholder((2,), name="U")
    s = te.create_schedule(C.op)
    c = np.full((6, 8), np.nan, "float32")
    build(s, [A, unused, C])(a, np.zeros(2, "float32"), c)
    np.testing.assert_allclose(c, a * 2 + 1, rtol=1e-6)


def test_an_inlined_tensor_is_accepted_and_left_alone(elementwise):
    """As in TVM: an inlined tensor's buffer is bound and never written."""
    A, C, a = elementwise
    D = te.compute((6, 8), lambda i, j: C[i, j] + 1, name="D")
    s = te.create_schedule(D.op)
    s[C].compute_inline()
    assert "C[" not in str(lower(s, [A, C, D]))
    c = np.full((6, 8), -5.0, "float32")
    d = np.full((6, 8), np.nan, "float32")
    build(s, [A, C, D])(a, c, d)
    np.testing.assert_allclose(d, a * 2 + 2, rtol=1e-6)
    np.testing.assert_array_equal(c, np.full((6, 8), -5.0, "float32"))


def test_a_tensor_of_another_schedule_is_refused(elementwise):
    A, C, _ = elementwise
    other = te.compute((6, 8), lambda i, j: A[i, j], name="Other")
    s = te.create_schedule(C.op)
    with pytest.raises(ValueError, match="tensor 'Other' is not part of this schedule"):
        build(s, [A, other])


@pytest.mark.parametrize("bad, message", [
    ("tensor", r"wrap the tensor 'C' in a list \(\[C\]\)"),
    ("op", r"argument 1 is the operation 'C'; pass its tensor"),
    ("str", "argument 1 is a str"),
    ("none", "argument 1 is a NoneType"),
    ("twice", "'A' is given twice"),
])
def test_arguments_of_the_wrong_kind_are_refused(elementwise, bad, message):
    A, C, _ = elementwise
    s = te.create_schedule(C.op)
    args = {"tensor": C, "op": [A, C.op], "str": [A, "C"], "none": [A, None], "twice": [A, A, C]}[bad]
    error = ValueError if bad == "twice" else TypeError
    for entry in (lower, build):
        with pytest.raises(error, match=message):
            entry(s, args)


@pytest.mark.parametrize("call", ["lower", "build", "schedule_ops", "infer_bound", "explain"])
def test_entry_points_refuse_what_is_not_a_schedule(elementwise, call):
    from bound import explain, infer_bound
    from lower import schedule_ops

    A, C, _ = elementwise
    s = te.create_schedule(C.op)
    entry = {"lower": lambda x, **kw: lower(x, [A, C], **kw), "build": lambda x, **kw: build(x, [A, C], **kw),
             "schedule_ops": schedule_ops, "infer_bound": infer_bound, "explain": explain}[call]
    with pytest.raises(TypeError, match=f"{call}: expected a Schedule"):
        entry(C.op)
    with pytest.raises(TypeError, match=f"{call}: exact= must be True or False, not 'yes'"):
        entry(s, exact="yes")


def test_schedule_ops_refuses_bounds_of_another_schedule(elementwise):
    from bound import infer_bound
    from lower import schedule_ops

    A, C, _ = elementwise
    s = te.create_schedule(C.op)
    other = te.create_schedule(te.compute((2,), lambda i: A[i, 0], name="D").op)
    with pytest.raises(ValueError, match="no range for IterVar 'i' of stage 'C'"):
        schedule_ops(s, infer_bound(other))
    with pytest.raises(TypeError, match="bounds must be the mapping"):
        schedule_ops(s, [1, 2])
