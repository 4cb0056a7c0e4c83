"""TVM's test_te_transform_layout (v0.14), written anew: a stage's tensor stored at the physical
indices a mapping gives, arguments passed in the physical shape, a compute's loops following the
physical axes; every case builds equal to NumPy."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import schedule as te
from lower import LoweringError, build, lower
from lower.ir.stmt import For
from lower.ir.stmt_functor import walk

BOTH = pytest.mark.parametrize("exact", [False, True])


def flatten_all_indices(shape):
    def mapping(*indices):
        out = 0
        for index, size in zip(indices, shape):
            out = out * size + index
        return [out]
    return mapping


def unpack_flattened_indices(shape):
    def mapping(i):
        out = []
        for dim in reversed(shape):
            out.append(i % dim)
            i = i // dim
        return out[::-1]
    return mapping


@BOTH
@pytest.mark.parametrize("a_style", ["explicit_reshape", "transform_layout"])
@pytest.mark.parametrize("b_style", ["explicit_reshape", "transform_layout"])
def test_external_reshape(exact, a_style, b_style):
    shape, n = (2, 3, 4), 24
    if a_style == "explicit_reshape":
        A_input = te.placeholder(shape, name="A_input", dtype="int32")
        A = te.compute((n,), lambda i: A_input[i // 12, (i // 4) % 3, i % 4], name="A")
    else:
        A = A_input = te.placeholder((n,), name="A", dtype="int32")
    B = te.compute(A.shape, lambda i: A[i], name="B")
    B_output = B if b_style == "transform_layout" else \
        te.compute(shape, lambda i, j, k: B[i * 12 + j * 4 + k], name="B_output")
    s = te.create_schedule(B_output.op)
    if a_style == "transform_layout":
        s[A].transform_layout(unpack_flattened_indices(shape))
    if b_style == "transform_layout":
        s[B].transform_layout(unpack_flattened_indices(shape))
    a = np.arange(n, dtype="int32").reshape(shape)
    b = np.full(shape, -1, "int32")
    build(s, [A_input, B_output], exact=exact, name="copy_reshape")(a, b)
    np.testing.assert_array_equal(b, a)


@BOTH
def test_internal_reshape(exact):
    A = te.placeholder((24,), name="A", dtype="int32")
    B = te.compute((24,), lambda i: A[i], name="B")
    C = te.compute((24,), lambda i: B[i], name="C")
    s = te.create_schedule(C.op)
    s[B].transform_layout(unpack_flattened_indices((2, 3, 4)))
    text = str(lower(s, [A, C], exact=exact))
    assert "allocate B[int32 * 24]" in text and "for (i.inner.outer, 0, 3)" in text
    a = np.arange(24, dtype="int32")
    c = np.full(24, -1, "int32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_array_equal(c, a)


TRANSFORMS_2D = {
    "1d": None,
    "2d": lambda i, j, k: [i, j, te.AXIS_SEPARATOR, k],
    "2d_rev": lambda i, j, k: [k, j, te.AXIS_SEPARATOR, i],
    "3d": lambda i, j, k: [i, te.AXIS_SEPARATOR, j, te.AXIS_SEPARATOR, k],
}
PHYSICAL_2D = {"1d": (0, 1, 2), "2d": (0, 1, 2), "2d_rev": (2, 1, 0), "3d": (0, 1, 2)}


@pytest.mark.parametrize("transform_a", sorted(TRANSFORMS_2D))
@pytest.mark.parametrize("transform_b", sorted(TRANSFORMS_2D))
def test_2d_physical(transform_a, transform_b):
    """Memory is flat here: axis separators group nothing, the order of the axes still counts."""
    A = te.placeholder((2, 3, 4), dtype="int32", name="A")
    B = te.compute(A.shape, lambda i, j, k: A[i, j, k], name="B")
    s = te.create_schedule(B.op)
    for T, name in ((A, transform_a), (B, transform_b)):
        if TRANSFORMS_2D[name] is not None:
            s[T].transform_layout(TRANSFORMS_2D[name])
    a = np.arange(24, dtype="int32").reshape(2, 3, 4)
    a_phys = a.transpose(PHYSICAL_2D[transform_a])
    b = np.full(a.transpose(PHYSICAL_2D[transform_b]).shape, -1, "int32")
    build(s, [A, B])(np.ascontiguousarray(a_phys), b)
    np.testing.assert_array_equal(b, a.transpose(PHYSICAL_2D[transform_b]))


LOGICAL = (4, 6, 40)
MAPPINGS = {
    "reverse": (lambda *i: i[::-1], lambda s: s[::-1]),
    "flatten_all": (flatten_all_indices(LOGICAL), lambda s: [functools.reduce(lambda x, y: x * y, s)]),
    "factor_last_by_4": (lambda *indices, n: [*indices, n // 4, n % 4], lambda s: [*s[:-1], s[-1] // 4, 4]),
}


def _loop_extents(stmt) -> list[int]:
    return [int(x.extent.value) for x in walk(stmt) if isinstance(x, For)]


@pytest.mark.parametrize("transform_a", [None, *MAPPINGS])
@pytest.mark.parametrize("transform_b", list(MAPPINGS))
@pytest.mark.parametrize("after", [None, "reorder", "split", "fuse"])
def test_transformed_schedules(transform_a, transform_b, after):
    A = te.placeholder(LOGICAL, dtype="int32", name="A")
    B = te.compute(A.shape, lambda i, j, k: A[i, j, k], name="B")
    s = te.create_schedule(B.op)
    if transform_a:
        s[A].transform_layout(MAPPINGS[transform_a][0])
    iter_vars = list(s[B].transform_layout(MAPPINGS[transform_b][0]))
    expected = list(MAPPINGS[transform_b][1](list(LOGICAL)))
    assert [int(iv.dom.extent) for iv in iter_vars] == expected
    assert [int(iv.dom.extent) for iv in s[B].leaf_iter_vars] == expected
    if after == "reorder":
        s[B].reorder(*iter_vars[::-1])
        expected = expected[::-1]
    elif after == "split":
        s[B].split(iter_vars[-1], nparts=2)
        expected = [*expected[:-1], 2, expected[-1] // 2]
    elif after == "fuse" and len(iter_vars) > 1:
        s[B].fuse(*iter_vars[:2])
        expected = [expected[0] * expected[1], *expected[2:]]
    elif after == "fuse":
        expected = list(expected)
    assert _loop_extents(lower(s, [A, B]).body) == expected
    a = np.arange(960, dtype="int32").reshape(LOGICAL)
    a_in = a if not transform_a else _physical(a, transform_a)
    b = np.full(MAPPINGS[transform_b][1](list(LOGICAL)), -1, "int32")
    build(s, [A, B])(np.ascontiguousarray(a_in), b)
    np.testing.assert_array_equal(b, _physical(a, transform_b))


def _physical(a: np.ndarray, name: str) -> np.ndarray:
    if name == "reverse":
        return a.transpose(2, 1, 0)
    if name == "flatten_all":
        return a.reshape(-1)
    return a.reshape(*a.shape[:-1], a.shape[-1] // 4, 4)


@pytest.mark.parametrize("transform_a", [False, True])
@pytest.mark.parametrize("transform_b", [False, True])
@pytest.mark.parametrize("cache_a", [False, True])
@pytest.mark.parametrize("cache_b", [False, True])
def test_transform_cache(transform_a, transform_b, cache_a, cache_b):
    A = te.placeholder([16], dtype="int32", name="A")
    B = te.compute(A.shape, lambda i: A[i], name="B")
    s = te.create_schedule(B.op)
    if cache_a:
        s.cache_read(A, "shared", [B])
    if cache_b:
        s.cache_write(B, "shared")
    if transform_a:
        s[A].transform_layout(lambda i: [i // 4, i % 4])
    if transform_b:
        s[B].transform_layout(lambda i: [i // 4, i % 4])
    a = (100 * np.random.default_rng(1).uniform(size=16)).astype("int32")
    b = np.full((4, 4) if transform_b else 16, -1, "int32")
    build(s, [A, B])(a.reshape(4, 4) if transform_a else a, b)
    np.testing.assert_array_equal(b.reshape(-1), a)


def test_transform_with_reduction():
    A = te.placeholder([4, 6, 8], dtype="float32", name="A")
    k = te.reduce_axis((0, 8), name="k")
    B = te.compute(A.shape[:-1], lambda i, j: te.sum(A[i, j, k], axis=[k]), name="B")
    s = te.create_schedule(B.op)
    s[B].transform_layout(lambda i, j: [j, i])
    assert [iv.name for iv in s[B].leaf_iter_vars] == ["j", "i", "k"]
    a = np.arange(192, dtype="float32").reshape(4, 6, 8)
    b = np.full((6, 4), np.nan, "float32")
    build(s, [A, B])(a, b)
    np.testing.assert_array_equal(b, a.sum(axis=2).T)


@pytest.mark.parametrize(("shape", "transform", "order"), [
    ([1, 8], lambda n, i: [i, n], (1, 0)),
    ([1, 1, 8], lambda i, j, k: [j, te.AXIS_SEPARATOR, i, k], (1, 0, 2)),
    ([1, 1, 8], lambda i, j, k: [i, te.AXIS_SEPARATOR, j, k], (0, 1, 2)),
])
def test_size_one_buffer(shape, transform, order):
    A = te.placeholder(shape, "int8", name="A")
    B = te.compute(A.shape, lambda *indices: A[indices].astype("int8"), name="B")
    s = te.create_schedule(B.op)
    s[B].transform_layout(transform)
    a = np.arange(8, dtype="int8").reshape(shape)
    b = np.full(a.transpose(order).shape, -1, "int8")
    build(s, [A, B])(a, b)
    np.testing.assert_array_equal(b, a.transpose(order))


def test_non_divisible_transform_raises_error():
    A = te.placeholder([1, 3, 8, 8], name="A")
    B = te.compute(A.shape, lambda *indices: A[indices], name="B")
    s = te.create_schedule(B.op)
    before = list(s[B].leaf_iter_vars)
    with pytest.raises(RuntimeError, match=r"transform_layout: stage 'B' the mapping from shape \(1, 3, 8, 8\) onto "
                                           r"\(1, 1, 8, 8, 3\) is not one to one \(it would need padding\)"):
        s[B].transform_layout(lambda n, c, h, w: [n, c // 4, h, w, c % 4])
    assert s[B].leaf_iter_vars == before and s[B].layout_transform is None


def test_a_mapping_that_sends_two_indices_to_one_is_refused():
    """(i, j) -> ((i + j) % 4, (i - j) % 4) over 4 x 4: a 4 x 4 result, as many elements, but
    (0, 0) and (2, 2) meet."""
    A = te.placeholder([4, 4], name="A")
    B = te.compute(A.shape, lambda i, j: A[i, j], name="B")
    s = te.create_schedule(B.op)
    before = list(s[B].leaf_iter_vars)
    with pytest.raises(RuntimeError, match=r"the mapping from shape \(4, 4\) onto \(4, 4\) is not one to one"):
        s[B].transform_layout(lambda i, j: [(i + j) % 4, (i - j + 4) % 4])
    assert s[B].leaf_iter_vars == before and s[B].layout_transform is None


@BOTH
def test_a_permuted_stage_computed_at_a_loop_stores_its_region_permuted(exact):
    """A layout that only permutes the axes holds for a region as for the whole: the region
    computed at each step is stored with its axes in the physical order."""
    A = te.placeholder((8, 6, 4), name="A")
    B = te.compute((8, 6, 4), lambda i, j, k: A[i, j, k] + 1, name="B")
    C = te.compute((8, 6, 4), lambda i, j, k: B[i, j, k] * 2, name="C")
    s = te.create_schedule(C.op)
    s[B].transform_layout(lambda i, j, k: [i, k, j])
    s[B].compute_at(s[C], C.op.axis[0])
    text = str(lower(s, [A, C], exact=exact))
    assert "allocate B[float32 * 24]" in text and "B[((k*6) + j)]" in text
    a = np.random.default_rng(3).uniform(-1, 1, (8, 6, 4)).astype("float32")
    c = np.full((8, 6, 4), np.nan, "float32")
    build(s, [A, C], exact=exact)(a, c)
    np.testing.assert_allclose(c, (a + 1) * 2)


def test_a_stage_whose_layout_splits_must_be_realized_whole():
    A = te.placeholder((8, 4), name="A")
    B = te.compute((8, 4), lambda i, j: A[i, j] + 1, name="B")
    C = te.compute((8, 4), lambda i, j: B[i, j] * 2, name="C")
    s = te.create_schedule(C.op)
    s[B].transform_layout(lambda i, j: [i // 2, j, i % 2])
    s[B].compute_at(s[C], C.op.axis[0])
    with pytest.raises(LoweringError, match="has a layout that splits or fuses axes, which needs the whole tensor"):
        lower(s, [A, C])
