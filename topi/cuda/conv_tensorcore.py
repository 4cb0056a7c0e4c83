"""Channels-last convolutions on tensor cores (TVM's ``topi.cuda.conv2d_nhwc_tensorcore``,
``conv3d_ndhwc_tensorcore`` and their schedules): the batch is a fragment's rows, the filters
its columns and the input channels its depth; each block computes one output pixel's (voxel's)
tile of batch x filters, the kernel window and channels its reduction, operands in float16
through shared memory into fragments. Without AutoTVM, each knob takes its first value (TVM's
fallback); the knobs are keyword arguments of the schedules."""

from __future__ import annotations

import math
from typing import Any

import schedule as te
from schedule import Tensor
from topi.cuda.tensor_intrin import (
    intrin_wmma_gemm,
    intrin_wmma_load_matrix_A,
    intrin_wmma_load_matrix_W,
    intrin_wmma_store_matrix,
)
from topi.cuda.tensorcore import fragment_shape, schedule_tagged, spread_over_warps
from topi.nn.pad import pad
from topi.transform.shape import tensor
from topi.utils import get_const_tuple, get_pad_tuple_generic

#: The fragment shapes (m, n, k) in TVM's order of preference for a convolution: m the batch, n the filters.
FRAGMENTS = ((16, 16, 16), (8, 32, 16), (32, 8, 16))


def _fragment(op: str, batch: int, channels: int, filters: int) -> tuple[int, int, int]:
    """The fragment shape: the batch its rows, the filters its columns, the channels its depth
    (the operands are read as float16)."""
    return fragment_shape(op, batch, channels, filters, "float16", FRAGMENTS)


def conv2d_nhwc_tensorcore(data: Tensor, kernel: Tensor, strides: Any, padding: Any, dilation: Any,
                           out_dtype: str = "float32") -> Tensor:
    """NHWC *data* by HWIO *kernel*, both read as float16, summed in *out_dtype*."""
    return nhwc_tensorcore_cuda(data, kernel, strides, padding, dilation, out_dtype)


def nhwc_tensorcore_cuda(data: Tensor, kernel: Tensor, strides: Any, padding: Any, dilation: Any,
                         out_dtype: str = "float32") -> Tensor:
    """The compute of :func:`conv2d_nhwc_tensorcore` (TVM's name without AutoTVM's wrapper)."""
    return _conv("conv2d_nhwc_tensorcore", data, kernel, strides, padding, dilation, out_dtype, 2)


def conv3d_ndhwc_tensorcore(data: Tensor, kernel: Tensor, strides: Any, padding: Any, dilation: Any, groups: int = 1,
                            out_dtype: str = "float32") -> Tensor:
    """NDHWC *data* by DHWIO *kernel*, both read as float16, summed in *out_dtype* (TVM's
    signature: *groups* must be 1)."""
    if groups != 1:
        raise ValueError(f"topi.cuda.conv3d_ndhwc_tensorcore: takes no groups (groups=1), got {groups!r}")
    return ndhwc_tensorcore_cuda(data, kernel, strides, padding, dilation, out_dtype)


def ndhwc_tensorcore_cuda(data: Tensor, kernel: Tensor, strides: Any, padding: Any, dilation: Any,
                          out_dtype: str = "float32") -> Tensor:
    """The compute of :func:`conv3d_ndhwc_tensorcore`."""
    return _conv("conv3d_ndhwc_tensorcore", data, kernel, strides, padding, dilation, out_dtype, 3)


def _conv(name: str, data: Tensor, kernel: Tensor, strides: Any, padding: Any, dilation: Any, out_dtype: str,
          dims: int) -> Tensor:
    op = f"cuda.{name}"
    data, kernel = tensor(op, data), tensor(op, kernel)
    if len(data.shape) != dims + 2 or len(kernel.shape) != dims + 2:
        raise ValueError(f"topi.{op}: data is channels-last with {dims} spatial axes, the kernel (spatial..., in, "
                         f"out)")
    stride = _per_axis(op, "strides", strides, dims)
    dilate = _per_axis(op, "dilation", dilation, dims)
    batch, *size, channels = get_const_tuple(data.shape)
    *window, k_channels, filters = get_const_tuple(kernel.shape)
    if k_channels != channels:
        raise ValueError(f"topi.{op}: the kernel's input channels ({k_channels}) must be the data's ({channels})")
    _fragment(name, batch, channels, filters)
    dilated = [(w - 1) * d + 1 for w, d in zip(window, dilate)]
    before, after = get_pad_tuple_generic(padding, dilated, name)
    out_size = [(s + b + a - d) // st + 1 for s, b, a, d, st in zip(size, before, after, dilated, stride)]
    padded = pad(data, [0, *before, 0], [0, *after, 0], name="PaddedInput")
    rc = te.reduce_axis((0, channels), "rc")
    rs = [te.reduce_axis((0, w), n) for w, n in zip(window, ("rz", "ry", "rx")[3 - dims:])]
    half_input = te.compute(padded.shape, lambda *i: padded(*i).astype("float16"), name="TransPaddedInput")
    half_kernel = te.compute(kernel.shape, lambda *i: kernel(*i).astype("float16"), name="TransFilter")

    def element(n: Any, *rest: Any) -> Any:
        *at, f = rest
        where = [a * st + r * d for a, st, r, d in zip(at, stride, rs, dilate)]
        return te.sum(half_input[(n, *where, rc)].astype(out_dtype) * half_kernel[(*rs, rc, f)].astype(out_dtype),
                      axis=[*rs, rc])
    return te.compute((batch, *out_size, filters), element, name=f"Conv{dims}dOutput", tag=name)


def _per_axis(op: str, name: str, value: Any, dims: int) -> list[int]:
    values = list(value) if isinstance(value, (list, tuple)) else [value] * dims
    if len(values) != dims or not all(isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in values):
        raise ValueError(f"topi.{op}: {name} is a positive int or {dims} of them, got {value!r}")
    return values


def schedule_conv2d_nhwc_tensorcore(outs: Any, **knobs: int) -> te.Schedule:
    """The schedule of :func:`conv2d_nhwc_tensorcore` and its fused element-wise epilogue;
    *knobs*: ``block_row_warps``, ``block_col_warps``, ``warp_row_tiles``, ``warp_col_tiles``,
    ``chunk``, ``offset``, ``vector_width``."""
    return schedule_tagged("schedule_conv2d_nhwc_tensorcore", outs, "conv2d_nhwc_tensorcore",
                           schedule_nhwc_tensorcore_cuda, knobs)


def schedule_conv3d_ndhwc_tensorcore(outs: Any, **knobs: int) -> te.Schedule:
    """The schedule of :func:`conv3d_ndhwc_tensorcore` and its fused element-wise epilogue
    (the knobs as :func:`schedule_conv2d_nhwc_tensorcore` takes them)."""
    return schedule_tagged("schedule_conv3d_ndhwc_tensorcore", outs, "conv3d_ndhwc_tensorcore",
                           schedule_ndhwc_tensorcore_cuda, knobs)


def schedule_ndhwc_tensorcore_cuda(s: te.Schedule, conv: Tensor, **knobs: int) -> None:
    """TVM's tensor-core schedule of the 3-d *conv* in *s*: :func:`schedule_nhwc_tensorcore_cuda`'s."""
    schedule_nhwc_tensorcore_cuda(s, conv, **knobs)


def schedule_nhwc_tensorcore_cuda(s: te.Schedule, conv: Tensor, block_row_warps: int = 1, block_col_warps: int = 1,
                                  warp_row_tiles: int = 1, warp_col_tiles: int = 1, chunk: int = 1, offset: int = 0,
                                  vector_width: int = 1) -> None:
    """TVM's tensor-core schedule of *conv* in *s* (see the module); 2 or 3 spatial axes."""
    *window, ic = s[conv].op.reduce_axis
    dims = len(window)
    half_input, half_kernel = s[conv].op.input_tensors
    batch = get_const_tuple(conv.shape)[0]
    *_, channels, filters = get_const_tuple(half_kernel.shape)
    m, n, k = _fragment(conv.op.tag, batch, channels, filters)
    in_dtype, out_dtype = half_input.dtype, conv.dtype
    padded = half_input.op.input_tensors[0]
    for t in (half_input, half_kernel, padded):
        s[t].compute_inline()
    AS, WS = s.cache_read(half_input, "shared", [conv]), s.cache_read(half_kernel, "shared", [conv])
    AF, WF = s.cache_read(AS, "wmma.matrix_a", [conv]), s.cache_read(WS, "wmma.matrix_b", [conv])
    CF = s.cache_write(conv, "wmma.accumulator")
    if conv.op in s.outputs:
        output = conv
        OL = s.cache_read(CF, "shared", [conv])
    else:  # an epilogue is the output; the convolution itself becomes the shared stage
        output = s.outputs[0].output(0)
        s[conv].set_scope("shared")
        OL = conv
    block_x, block_y, block_z = (te.thread_axis(f"blockIdx.{a}") for a in "xyz")
    thread_x, thread_y, thread_z = (te.thread_axis(f"threadIdx.{a}") for a in "xyz")
    as_align = chunk * k + offset
    ws_align = warp_col_tiles * block_col_warps * n + offset
    block_n, block_o = m * warp_row_tiles * block_row_warps, n * warp_col_tiles * block_col_warps
    cs_align = block_o + offset
    ones = [1] * (dims - 1)
    as_strides, al_strides = _product_strides([*ones, 1, as_align, 1]), _product_strides([*ones, 1, k, 1])
    ws_strides, wl_strides = _product_strides([ws_align, 1]), _product_strides([n * warp_col_tiles, 1])
    cl_strides = _product_strides([*ones, 1, n * warp_col_tiles, 1])
    cs_strides = _product_strides([*ones, 1, cs_align, 1])

    # the output: one pixel a block along z, its batch x filter tile over x and y
    nc, *spatial, oc = output.op.axis
    pixel = s[output].fuse(*spatial)
    s[output].bind(pixel, block_z)
    block_i, nc = s[output].split(nc, factor=block_n)
    block_j, oc = s[output].split(oc, factor=block_o)
    s[output].reorder(pixel, block_i, block_j, nc, oc)
    s[output].bind(block_i, block_x)
    s[output].bind(block_j, block_y)
    threads = (thread_x, thread_y, thread_z)
    spread_over_warps(s, output, s[output].fuse(nc, oc), vector_width, block_row_warps, block_col_warps, threads)

    # the accumulators through shared memory
    s[OL].compute_at(s[output], block_j)
    nc, *spatial, oc = OL.op.axis
    s[OL].reorder(*spatial, nc, oc)
    s[OL].storage_align(spatial[-1], cs_align - 1, cs_align)
    oc, ooc = s[OL].split(oc, factor=n)
    oc, oci = s[OL].split(oc, factor=warp_col_tiles)
    _, oc = s[OL].split(oc, factor=block_col_warps)
    nc, nnc = s[OL].split(nc, factor=m)
    nc, nci = s[OL].split(nc, factor=warp_row_tiles)
    _, nc = s[OL].split(nc, factor=block_row_warps)
    s[OL].reorder(nc, oc, nci, oci, nnc, ooc)
    s[OL].bind(nc, thread_y)
    s[OL].bind(oc, thread_z)

    # a warp's multiply-accumulate over the window and the channels
    s[CF].compute_at(s[OL], oc)
    fn, *_, fo = CF.op.axis
    fn, nnf = s[CF].split(fn, factor=m)
    fo, oof = s[CF].split(fo, factor=n)
    ic, ii = s[CF].split(ic, factor=k)
    ko, ki = s[CF].split(ic, factor=chunk)
    s[CF].reorder(*window, ko, ki, fn, fo, nnf, oof, ii)

    s[AF].compute_at(s[CF], ki)
    s[WF].compute_at(s[CF], ki)
    an, *_, ai = AF.op.axis
    an, ann = s[AF].split(an, factor=m)
    ai, aii = s[AF].split(ai, factor=k)
    s[AF].reorder(an, ai, ann, aii)
    *_, wi, wo = WF.op.axis
    wi, wii = s[WF].split(wi, factor=k)
    wo, woo = s[WF].split(wo, factor=n)
    s[WF].reorder(wo, wi, woo)
    s[WF].reorder(wi, wo, wii, woo)

    # the shared tiles, loaded by all the block's threads
    s[WS].compute_at(s[CF], ko)
    s[AS].compute_at(s[CF], ko)
    sn, *spatial, si = AS.op.axis
    s[AS].reorder(*spatial, sn, si)
    s[AS].storage_align(spatial[-1], as_align - 1, as_align)
    spread_over_warps(s, AS, s[AS].fuse(sn, si), vector_width, block_row_warps, block_col_warps, threads)
    *_, wsi, wso = WS.op.axis
    fused = s[WS].fuse(wsi, wso)
    s[WS].storage_align(wsi, ws_align - 1, ws_align)
    spread_over_warps(s, WS, fused, vector_width, block_row_warps, block_col_warps, threads)

    shape = (m, n, k)
    a_shape, w_shape, c_shape = (m, *[1] * dims, k), (k, n), (m, *[1] * dims, n)
    a_gemm = te.placeholder(a_shape, name="A", dtype=in_dtype)
    w_gemm = te.placeholder(w_shape, name="B", dtype=in_dtype)
    k_gemm = te.reduce_axis((0, k), name="k")
    c_gemm = te.compute(c_shape, lambda i, *rest: te.sum(
        a_gemm[(i, *rest[:-1], k_gemm)].astype(out_dtype) * w_gemm[k_gemm, rest[-1]].astype(out_dtype), axis=k_gemm),
        name="C")
    s[AF].tensorize(ann, intrin_wmma_load_matrix_A(al_strides, as_strides, shape, "row_major", a_shape, a_shape,
                                                   in_dtype))
    s[WF].tensorize(wii, intrin_wmma_load_matrix_W(wl_strides, ws_strides, shape, "row_major", w_shape, w_shape,
                                                   in_dtype))
    s[OL].tensorize(nnc, intrin_wmma_store_matrix(cs_strides, cl_strides, shape, out_dtype, c_shape, c_shape))
    s[CF].tensorize(nnf, intrin_wmma_gemm(a_gemm, w_gemm, c_gemm, al_strides, wl_strides, cl_strides, shape))


def _product_strides(extents: list[int]) -> list[int]:
    """TVM's strides of the intrinsics' buffers: each dimension's the product of the extents from it on."""
    return [math.prod(extents[d:]) for d in range(len(extents))]
