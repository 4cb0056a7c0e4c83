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


def _pad_spatial(data: te.Tensor, kh: int, kw: int, stride: int, padding: int, name: str,
                 value: float = 0.0) -> tuple[te.Tensor, int, int]:
    """NCHW *data* padded by *padding* on both sides of H and W, and the output height and width
    of a kh x kw window moved by *stride* over it."""
    h, w = int(data.shape[2]), int(data.shape[3])
    padded = pad(data, (0, 0, padding, padding), (0, 0, padding, padding), value, name=name)
    return padded, (h + 2 * padding - kh) // stride + 1, (w + 2 * padding - kw) // stride + 1


def pool2d(data: te.Tensor, kernel: int, stride: int, padding: int, kind: str) -> te.Tensor:
    """NCHW max or average pooling (average counts the padding, as count_include_pad)."""
    n, c = (int(d) for d in data.shape[:2])
    fill = float("-inf") if kind == "max" else 0.0
    padded, out_h, out_w = _pad_spatial(data, kernel, kernel, stride, padding, "pad_temp", fill)
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
    n, c = (int(d) for d in data.shape[:2])
    oc, _, kh, kw = (int(d) for d in kernel.shape)
    padded, out_h, out_w = _pad_spatial(data, kh, kw, stride, padding, "pad_temp")
    rc, ry, rx = te.reduce_axis((0, c), name="rc"), te.reduce_axis((0, kh), name="ry"), te.reduce_axis((0, kw), name="rx")
    return te.compute((n, oc, out_h, out_w), lambda b, f, y, x: te.sum(
        padded[b, rc, y * stride + ry, x * stride + rx] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]),
        name="conv2d_nchw", tag="conv2d_nchw")


def depthwise_conv2d_nchw(data: te.Tensor, kernel: te.Tensor, stride: int, padding: int) -> te.Tensor:
    """Depthwise NCHW convolution with (C, multiplier, KH, KW) weights."""
    n, c = (int(d) for d in data.shape[:2])
    _, mult, kh, kw = (int(d) for d in kernel.shape)
    padded, out_h, out_w = _pad_spatial(data, kh, kw, stride, padding, "PaddedInput")
    di, dj = te.reduce_axis((0, kh), name="di"), te.reduce_axis((0, kw), name="dj")
    return te.compute((n, c * mult, out_h, out_w), lambda b, ch, y, x: te.sum(
        padded[b, ch // mult, y * stride + di, x * stride + dj] * kernel[ch // mult, ch % mult, di, dj],
        axis=[di, dj]), name="DepthwiseConv2d", tag="depthwise_conv2d_nchw")


def argmax_reducer():
    def fcombine(x, y):
        pick = x[1] >= y[1]
        return te.if_then_else(pick, x[0], y[0]), te.if_then_else(pick, x[1], y[1])

    return te.comm_reducer(fcombine, lambda t0, t1: (te.const(-1, t0), te.min_value(t1)), name="argmax")


def cuda_reduce(n: int, k_extent: int, index: bool):
    """TOPI's CUDA schedule_reduce (32 x 32 threads): the reduction split by 32 and factored,
    its inner part bound to threadIdx.x, the outputs fused, split by 32 over threadIdx.y and
    blocks, and only thread x == 0 of a valid row storing."""
    A = te.placeholder((n, k_extent), name="A")
    k = te.reduce_axis((0, k_extent), name="k")
    if index:
        T0, _ = te.compute((n,), lambda i: argmax_reducer()((k, A[i, k]), axis=k), name="T")
        out = te.compute((n,), lambda i: T0[i], name="out")
        data_out = T0
    else:
        out = data_out = te.compute((n,), lambda i: te.sum(A[i, k], axis=k), name="out")
    s = te.create_schedule(out.op)
    bx = te.thread_axis("blockIdx.x")
    tx, ty = te.thread_axis((0, 32), "threadIdx.x"), te.thread_axis((0, 32), "threadIdx.y")
    _, ki = s[data_out].split(s[data_out].fuse(*s[data_out].op.reduce_axis), factor=32)
    rf = s.rfactor(data_out, ki)
    rf = rf[0] if index else rf
    s[data_out].bind(s[data_out].op.reduce_axis[0], tx)
    s[rf].compute_at(s[data_out], s[data_out].op.reduce_axis[0])
    outer, inner = s[out].split(s[out].fuse(*s[out].op.axis), factor=32)
    s[out].bind(inner, ty)
    s[out].bind(outer, bx)
    if index:
        s[data_out].compute_at(s[out], inner)
    s[out].set_store_predicate(te.all(tx.equal(0), outer * 32 + inner < n))
    return s, A, out
