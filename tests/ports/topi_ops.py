"""TOPI's operators as te computes, written anew for the ports: the same tensors, tags and
stage structure (padding stages, reductions, the stages a schedule looks for)."""

from __future__ import annotations

import schedule as te


def pad(data: te.Tensor, before: tuple[int, ...], after: tuple[int, ...], value: float = 0.0,
        name: str = "pad") -> te.Tensor:
    """*data* with *before*/*after* elements of *value* around each dimension (tag injective)."""
    shape = tuple(int(d) + b + a for d, b, a in zip(data.shape, before, after))

    def element(*i):
        inside = [j >= b for j, b in zip(i, before) if b] + [j < b + int(d) for j, b, d, a in
                                                              zip(i, before, data.shape, after) if a]
        value_at = data(*(j - b if b else j for j, b in zip(i, before)))
        return te.if_then_else(te.all(*inside), value_at, te.const(value, data.dtype)) if inside else value_at

    return te.compute(shape, element, name=name, tag="injective,pad")


def softmax(x: te.Tensor) -> te.Tensor:
    """Row softmax of a 2-D tensor: max, exp, sum, divide (TOPI's four stages)."""
    n, m = x.shape
    k1 = te.reduce_axis((0, m), name="k1")
    k2 = te.reduce_axis((0, m), name="k2")
    max_elem = te.compute((n,), lambda i: te.max(x[i, k1], axis=k1), name="T_softmax_maxelem")
    exp = te.compute((n, m), lambda i, j: te.exp(x[i, j] - max_elem[i]), name="T_softmax_exp")
    expsum = te.compute((n,), lambda i: te.sum(exp[i, k2], axis=k2), name="T_softmax_expsum")
    return te.compute((n, m), lambda i, j: exp[i, j] / expsum[i], name="T_softmax_norm",
                      tag="softmax_output", attrs={"axis": 1})


def dense(data: te.Tensor, weight: te.Tensor, bias: te.Tensor | None = None) -> te.Tensor:
    """``data @ weight.T (+ bias)``: TOPI's dense."""
    batch, in_dim = data.shape
    out_dim = weight.shape[0]
    k = te.reduce_axis((0, in_dim), name="k")
    mat = te.compute((batch, out_dim), lambda i, j: te.sum(data[i, k] * weight[j, k], axis=k),
                     name="T_matmul_NT", tag="dense")
    if bias is None:
        return mat
    return te.compute((batch, out_dim), lambda i, j: mat[i, j] + bias[j], name="T_add", tag="broadcast")


def batch_matmul(x: te.Tensor, y: te.Tensor) -> te.Tensor:
    """``x[b] @ y[b].T`` for every batch b."""
    batch, m, k_dim = x.shape
    n = y.shape[1]
    k = te.reduce_axis((0, k_dim), name="k")
    return te.compute((batch, m, n), lambda b, i, j: te.sum(x[b, i, k] * y[b, j, k], axis=k),
                      name="T_batch_matmul_NT", tag="batch_matmul")


def pool2d(data: te.Tensor, kernel: int, stride: int, padding: int, kind: str) -> te.Tensor:
    """NCHW max or average pooling (average counts the padding, as count_include_pad)."""
    n, c, h, w = (int(d) for d in data.shape)
    out_h, out_w = (h + 2 * padding - kernel) // stride + 1, (w + 2 * padding - kernel) // stride + 1
    fill = float("-inf") if kind == "max" else 0.0
    padded = pad(data, (0, 0, padding, padding), (0, 0, padding, padding), fill, name="pad_temp")
    rh, rw = te.reduce_axis((0, kernel), name="rv0"), te.reduce_axis((0, kernel), name="rv1")

    def window(b, ch, y, x):
        return padded[b, ch, y * stride + rh, x * stride + rw]

    if kind == "max":
        return te.compute((n, c, out_h, out_w), lambda b, ch, y, x: te.max(window(b, ch, y, x), axis=[rh, rw]),
                          name="pool_max", tag="pool_max")
    total = te.compute((n, c, out_h, out_w), lambda b, ch, y, x: te.sum(window(b, ch, y, x), axis=[rh, rw]),
                       name="pool_sum", tag="pool_sum")
    return te.compute((n, c, out_h, out_w), lambda b, ch, y, x: total[b, ch, y, x] / float(kernel * kernel),
                      name="pool_avg", tag="elemwise")


def conv2d_nchw(data: te.Tensor, kernel: te.Tensor, stride: int, padding: int) -> te.Tensor:
    """Direct NCHW convolution with OIHW weights."""
    n, c, h, w = (int(d) for d in data.shape)
    oc, _, kh, kw = (int(d) for d in kernel.shape)
    out_h, out_w = (h + 2 * padding - kh) // stride + 1, (w + 2 * padding - kw) // stride + 1
    padded = pad(data, (0, 0, padding, padding), (0, 0, padding, padding), name="pad_temp")
    rc, ry, rx = te.reduce_axis((0, c), name="rc"), te.reduce_axis((0, kh), name="ry"), te.reduce_axis((0, kw), name="rx")
    return te.compute((n, oc, out_h, out_w), lambda b, f, y, x: te.sum(
        padded[b, rc, y * stride + ry, x * stride + rx] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]),
        name="conv2d_nchw", tag="conv2d_nchw")


def depthwise_conv2d_nchw(data: te.Tensor, kernel: te.Tensor, stride: int, padding: int) -> te.Tensor:
    """Depthwise NCHW convolution with (C, multiplier, KH, KW) weights."""
    n, c, h, w = (int(d) for d in data.shape)
    _, mult, kh, kw = (int(d) for d in kernel.shape)
    out_h, out_w = (h + 2 * padding - kh) // stride + 1, (w + 2 * padding - kw) // stride + 1
    padded = pad(data, (0, 0, padding, padding), (0, 0, padding, padding), name="PaddedInput")
    di, dj = te.reduce_axis((0, kh), name="di"), te.reduce_axis((0, kw), name="dj")
    return te.compute((n, c * mult, out_h, out_w), lambda b, ch, y, x: te.sum(
        padded[b, ch // mult, y * stride + di, x * stride + dj] * kernel[ch // mult, ch % mult, di, dj],
        axis=[di, dj]), name="DepthwiseConv2d", tag="depthwise_conv2d_nchw")
