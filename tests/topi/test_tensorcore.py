"""TOPI's tensor-core products on CUDA (``topi.cuda.dense_tensorcore``,
``batch_matmul_tensorcore``, ``conv2d_nhwc_tensorcore``, ``conv3d_ndhwc_tensorcore`` and their schedules over TVM's wmma intrinsics): the CPU run of
the GPU schedule against NumPy for each fragment shape, dtype and knob setting, in exact and
TVM's bound modes, the CUDA source's wmma calls, and the refusals."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
import topi
from lower.build import build
from lower.target import Target

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")
TILED = dict(block_row_warps=2, block_col_warps=2, warp_row_tiles=2, warp_col_tiles=1, chunk=2, offset=8,
             offsetCS=8, vec=4)


def _operands(shapes, dtype, seed):
    rng = np.random.default_rng(seed)
    if dtype == "float16":
        return [rng.standard_normal(s).astype(dtype) for s in shapes]
    return [rng.integers(-8, 8 if dtype == "int8" else 16, s).astype(dtype) for s in shapes]


@pytest.mark.parametrize("batch, in_dim, out_dim, dtype, out_dtype, knobs", [
    (32, 32, 32, "float16", "float32", {}),  # fragments of 32 x 8 x 16
    (16, 48, 32, "float16", "float32", {}),  # 16 x 16 x 16
    (8, 16, 64, "float16", "float32", {}),  # 8 x 32 x 16
    (128, 64, 64, "float16", "float32", TILED),
    (32, 32, 16, "int8", "int32", {}),
    (16, 32, 16, "uint8", "int32", {"chunk": 2}),
])
@pytest.mark.parametrize("exact", [True, False])
def test_dense_on_tensor_cores_equals_numpy(batch, in_dim, out_dim, dtype, out_dtype, knobs, exact):
    A, W = te.placeholder((batch, in_dim), dtype, "A"), te.placeholder((out_dim, in_dim), dtype, "W")
    with Target("cuda"):
        C = topi.cuda.dense_tensorcore(A, W, None, out_dtype)
        s = topi.cuda.schedule_dense_tensorcore(C, **knobs)
    a, w = _operands([(batch, in_dim), (out_dim, in_dim)], dtype, batch + in_dim)
    got = np.zeros((batch, out_dim), out_dtype)
    build(s, [A, W, C], exact=exact)(a, w, got)
    want = a.astype("float64") @ w.T.astype("float64")
    np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == "float16" else 0, atol=1e-3 if dtype == "float16" else 0)


def test_dense_with_a_bias_and_relu_epilogue_takes_the_output_stage():
    A, W = te.placeholder((32, 32), "float16", "A"), te.placeholder((16, 32), "float16", "W")
    bias = te.placeholder((16,), "float16", "bias")
    with Target("cuda"):
        C = topi.nn.relu(topi.cuda.dense_tensorcore(A, W, bias, "float32"))
        s = topi.cuda.schedule_dense_tensorcore(C)
    a, w, b = _operands([(32, 32), (16, 32), (16,)], "float16", 1)
    got = np.zeros((32, 16), "float32")
    f = build(s, [A, W, bias, C], target="cuda")
    f(a, w, b, got)
    want = np.maximum(a.astype("float64") @ w.T.astype("float64") + b, 0)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)
    source = f.imported_modules[0].get_source()
    for call in ("wmma::load_matrix_sync", "wmma::mma_sync", "wmma::store_matrix_sync", "wmma::fill_fragment"):
        assert call in source, call
    assert "__shared__" in source


@pytest.mark.parametrize("batch, rows, depth, cols, dtype, out_dtype, knobs", [
    (2, 32, 32, 16, "float16", "float32", {}),
    (3, 16, 32, 48, "float16", "float32", {}),
    (2, 128, 64, 64, "float16", "float32", TILED),
    (2, 32, 32, 16, "int8", "int32", {}),
])
def test_batch_matmul_on_tensor_cores_equals_numpy(batch, rows, depth, cols, dtype, out_dtype, knobs):
    X, Y = te.placeholder((batch, rows, depth), dtype, "X"), te.placeholder((batch, cols, depth), dtype, "Y")
    with Target("cuda"):
        C = topi.cuda.batch_matmul_tensorcore(X, Y, None, out_dtype)
        s = topi.cuda.schedule_batch_matmul_tensorcore(C, **knobs)
    x, y = _operands([(batch, rows, depth), (batch, cols, depth)], dtype, rows + cols)
    got = np.zeros((batch, rows, cols), out_dtype)
    build(s, [X, Y, C])(x, y, got)
    want = x.astype("float64") @ y.transpose(0, 2, 1).astype("float64")
    np.testing.assert_allclose(got, want, rtol=1e-3 if dtype == "float16" else 0, atol=1e-3 if dtype == "float16" else 0)


@pytest.mark.parametrize("n, size, cin, cout, k, stride, padding, dilation, epilogue, knobs", [
    (16, 7, 16, 16, 3, 1, 1, 1, False, {}),  # fragments of 16 x 16 x 16
    (8, 6, 16, 32, 1, 1, 0, 1, False, {}),  # 8 x 32 x 16
    (32, 5, 16, 8, 3, 2, "SAME", 1, True, {}),  # 32 x 8 x 16, a bias and relu after
    (32, 5, 32, 64, 3, 1, 1, 2, False, dict(block_row_warps=2, block_col_warps=2, warp_col_tiles=2, chunk=2,
                                            offset=8, vector_width=4)),
])
def test_conv2d_nhwc_on_tensor_cores_equals_numpy(n, size, cin, cout, k, stride, padding, dilation, epilogue, knobs):
    A, W = te.placeholder((n, size, size, cin), "float16", "A"), te.placeholder((k, k, cin, cout), "float16", "W")
    bias = te.placeholder((cout,), "float32", "bias")
    with Target("cuda"):
        C = topi.cuda.conv2d_nhwc_tensorcore(A, W, stride, padding, dilation, "float32")
        if epilogue:
            C = topi.nn.relu(topi.add(C, bias))
        s = topi.cuda.schedule_conv2d_nhwc_tensorcore(C, **knobs)
    a, w, b = _operands([(n, size, size, cin), (k, k, cin, cout), (cout,)], "float16", n + cin)
    got = np.zeros([int(d) for d in C.shape], "float32")
    build(s, [A, W, bias, C])(a, w, b.astype("float32"), got)
    dilated = topi.testing.dilate_python(w.astype("float64"), (dilation, dilation, 1, 1))
    want = topi.testing.conv2d_nhwc_python(a.astype("float64"), dilated, stride, padding)
    if epilogue:
        want = np.maximum(want + b.astype("float64"), 0)
    np.testing.assert_allclose(got, want, rtol=1e-3, atol=1e-3)


def _conv3d_ndhwc(a, w, stride, padding):
    """Direct NDHWC x DHWIO convolution in float64 (padding per side, a stride for every axis)."""
    a = np.pad(a.astype("float64"), [(0, 0), *[(padding, padding)] * 3, (0, 0)])
    kd, kh, kw, _, cout = w.shape
    n, d, h, wd, _ = a.shape
    out = np.zeros((n, (d - kd) // stride + 1, (h - kh) // stride + 1, (wd - kw) // stride + 1, cout))
    for z in range(out.shape[1]):
        for y in range(out.shape[2]):
            for x in range(out.shape[3]):
                patch = a[:, z * stride:z * stride + kd, y * stride:y * stride + kh, x * stride:x * stride + kw]
                out[:, z, y, x] = np.einsum("ndhwc,dhwco->no", patch, w.astype("float64"))
    return out


@pytest.mark.parametrize("n, size, cin, cout, k, stride, padding, knobs", [
    (16, 4, 16, 16, 3, 1, 1, {}),
    (8, 5, 16, 64, 2, 2, 0, dict(block_col_warps=2, chunk=1, offset=8, vector_width=2)),
])
def test_conv3d_ndhwc_on_tensor_cores_equals_numpy(n, size, cin, cout, k, stride, padding, knobs):
    """In TVM's bound mode: exact mode's region of the accumulator, under blockIdx.z fusing three
    axes, keeps a condition ``(z // 4) % 4`` in range that its simplifier cannot drop."""
    A = te.placeholder((n, size, size, size, cin), "float16", "A")
    W = te.placeholder((k, k, k, cin, cout), "float16", "W")
    with Target("cuda"):
        C = topi.cuda.conv3d_ndhwc_tensorcore(A, W, stride, padding, 1, 1, "float32")
        s = topi.cuda.schedule_conv3d_ndhwc_tensorcore(C, **knobs)
    assert C.op.name == "Conv3dOutput"
    a, w = _operands([(n, size, size, size, cin), (k, k, k, cin, cout)], "float16", n + k)
    got = np.zeros([int(d) for d in C.shape], "float32")
    build(s, [A, W, C], exact=False)(a, w, got)
    np.testing.assert_allclose(got, _conv3d_ndhwc(a, w, stride, padding), rtol=1e-3, atol=1e-3)


def test_tensor_core_products_refuse_what_tensor_cores_cannot_take():
    with pytest.raises(ValueError, match="multiple of"):
        topi.cuda.dense_tensorcore(te.placeholder((20, 32), "float16", "A"), te.placeholder((16, 32), "float16", "W"))
    with pytest.raises(ValueError, match="float16, int8 or uint8"):
        topi.cuda.dense_tensorcore(te.placeholder((32, 32), "float32", "A"), te.placeholder((16, 32), "float32", "W"))
    with pytest.raises(ValueError, match="must agree"):
        topi.cuda.dense_tensorcore(te.placeholder((32, 32), "float16", "A"), te.placeholder((16, 32), "int8", "W"))
    with pytest.raises(TypeError, match="dense_tensorcore"):
        topi.cuda.dense_tensorcore(None, te.placeholder((16, 32), "float16", "W"))
    with pytest.raises(ValueError, match="must agree"):
        topi.cuda.batch_matmul_tensorcore(te.placeholder((2, 32, 32), "float16", "X"),
                                          te.placeholder((3, 16, 32), "float16", "Y"))
    with pytest.raises(ValueError, match="multiple of"):
        topi.cuda.conv2d_nhwc_tensorcore(te.placeholder((4, 7, 7, 16), "float16", "A"),
                                         te.placeholder((3, 3, 16, 16), "float16", "W"), 1, 1, 1)
    with pytest.raises(ValueError, match="groups=1"):
        topi.cuda.conv3d_ndhwc_tensorcore(te.placeholder((16, 4, 4, 4, 16), "float16", "A"),
                                          te.placeholder((3, 3, 3, 16, 16), "float16", "W"), 1, 1, 1, 2)
    with pytest.raises(ValueError, match="input channels"):
        topi.cuda.conv2d_nhwc_tensorcore(te.placeholder((16, 7, 7, 16), "float16", "A"),
                                         te.placeholder((3, 3, 32, 16), "float16", "W"), 1, 1, 1)
    with pytest.raises(ValueError, match="transpose_b=True"):
        topi.cuda.batch_matmul_tensorcore(te.placeholder((2, 32, 32), "float16", "X"),
                                          te.placeholder((2, 32, 16), "float16", "Y"), transpose_b=False)
