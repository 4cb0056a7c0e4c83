"""TVM's CUDA schedules of convolutions, matrix products and pooling, for the C target's GPU
semantics: tiles over blocks and threads, operands through shared memory, accumulators in
local memory; a bias or relu after them over blocks and threads."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import schedule as te
from schedule.ir import arith
from schedule.schedule.stage import AttachType
from topi.cuda.injective import bind_every_stage, bind_flat
from topi.traverse import new_schedule, traverse_inline


def _main(s: te.Schedule, outs: list[te.Tensor], tags: tuple[str, ...]) -> Any:
    """The first operation tagged one of *tags*, every injective stage not an output inlined."""
    found: list[Any] = []
    for t in outs:
        traverse_inline(s, t.op, lambda op: found.append(op) if op.tag in tags else None)
    return found[0] if found else None


def _around(name: str, tags: tuple[str, ...], outs: Any,
            body: Callable[[te.Schedule, list[te.Tensor], Any], None]) -> te.Schedule:
    """The schedule *name* of *outs*: *body* schedules the first operation tagged one of *tags*
    (the outputs after it go over blocks and threads); without one, every stage does."""
    s, tensors = new_schedule(f"cuda.{name}", outs)
    main = _main(s, tensors, tags)
    if main is None:
        return bind_every_stage(s, tensors)
    body(s, tensors, main)
    return s


def _epilogue(s: te.Schedule, outs: list[te.Tensor], main: Any) -> None:
    for t in outs:
        if t.op != main and not s[t.op].relations:
            bind_flat(s, t)


def _conv_direct(s: te.Schedule, conv: te.Tensor, output: te.Tensor | None = None) -> None:
    """The padded input and the weights through shared memory per 2 input channels, a local
    accumulator per thread; 4 output channels by 4 rows of threads per block. With an *output*
    after the convolution (a relu, a bias: its injective stages inlined), the convolution is
    that output's local accumulator, as TVM fuses them; else a local cache of its own."""
    padded, kernel = conv.op.input_tensors
    if padded.op.name == "pad_temp":
        s[padded].compute_inline()
    PS, WS = s.cache_read(padded, "shared", [conv]), s.cache_read(kernel, "shared", [conv])
    if output is None or output.op is conv.op:
        output, CL = conv, s.cache_write(conv, "local")
    else:
        s[conv].set_scope("local")
        CL = conv
    n, f, y, x = s[output].op.axis
    bf, tf = s[output].split(f, factor=4)
    by, ty = s[output].split(y, factor=4)
    s[output].reorder(n, bf, by, tf, ty, x)
    s[output].bind(s[output].fuse(n, bf), te.thread_axis("blockIdx.y"))
    s[output].bind(by, te.thread_axis("blockIdx.x"))
    thread_f, thread_y = te.thread_axis("threadIdx.y"), te.thread_axis("threadIdx.x")
    s[output].bind(tf, thread_f)
    s[output].bind(ty, thread_y)
    s[CL].compute_at(s[output], ty)
    rc, ry, rx = s[CL].op.reduce_axis
    rco, rci = s[CL].split(rc, factor=2)
    s[CL].reorder(rco, rci, ry, rx, *s[CL].op.axis)
    for cached in (PS, WS):
        s[cached].compute_at(s[CL], rco)
        ax = s[cached].op.axis
        s[cached].bind(s[cached].split(ax[1], nparts=4)[0], thread_f)
        s[cached].bind(s[cached].split(ax[2], nparts=4)[0], thread_y)


def _fused_output(s: te.Schedule, tensors: list[te.Tensor], main: Any) -> te.Tensor | None:
    """The one output *main*'s result flows into element by element (of its shape, through
    inlined stages only), which TVM's CUDA schedules compute *main* inside; None where there is
    none."""
    result = main.output(0)
    if len(tensors) != 1 or tensors[0].op is main or not isinstance(tensors[0].op, te.ComputeOp):
        return None
    out = tensors[0]
    values = [arith.value_of(d) for d in (*out.shape, *result.shape)]
    if len(out.shape) != len(result.shape) or None in values or values[:len(out.shape)] != values[len(out.shape):]:
        return None
    stack = list(out.op.input_tensors)
    while stack:  # main, reached through inlined stages
        op = stack.pop().op
        if op is main:
            return out
        if s[op].attach_type == AttachType.Inline:
            stack.extend(op.input_tensors)
    return None


def schedule_conv2d_nchw(outs: Any) -> te.Schedule:
    """conv2d_nchw direct (see :func:`_conv_direct`), a relu or bias after it in the same
    kernel; group, depthwise and transposed convolutions every stage over blocks and threads."""

    def body(s: te.Schedule, tensors: list[te.Tensor], main: Any) -> None:
        fused = _fused_output(s, tensors, main)
        _conv_direct(s, main.output(0), fused)
        if fused is None:
            _epilogue(s, tensors, main)
    return _around("schedule_conv2d_nchw", ("conv2d_nchw",), outs, body)


def schedule_depthwise_conv2d_nchw(outs: Any) -> te.Schedule:
    """depthwise_conv2d_nchw: one block per (batch, channel), threads over output rows and
    columns, the channel's padded input and filter copied to shared memory by the same threads."""

    def body(s: te.Schedule, tensors: list[te.Tensor], main: Any) -> None:
        out = main.output(0)
        padded, kernel = out.op.input_tensors
        s[padded].compute_inline()
        IS, FS = s.cache_read(padded, "shared", [out]), s.cache_read(kernel, "shared", [out])
        b, ch, y, x = s[out].op.axis
        s[out].bind(s[out].fuse(b, ch), te.thread_axis("blockIdx.x"))
        ty, tx = te.thread_axis("threadIdx.y"), te.thread_axis("threadIdx.x")
        s[out].bind(y, ty)
        s[out].bind(x, tx)
        for cached in (IS, FS):
            s[cached].compute_at(s[out], s[out].leaf_iter_vars[0])
        _, _, iy, ix = IS.op.axis  # the fetch split over the same threads as the output
        s[IS].bind(s[IS].split(iy, nparts=out.shape[2])[0], ty)
        s[IS].bind(s[IS].split(ix, nparts=out.shape[3])[0], tx)
        _epilogue(s, tensors, main)
    return _around("schedule_depthwise_conv2d_nchw", ("depthwise_conv2d_nchw",), outs, body)


def schedule_dense(outs: Any) -> te.Schedule:
    """dense for small batches: one block per output element, its inner product factored over 32
    threads and combined across them, thread 0 storing."""

    def body(s: te.Schedule, tensors: list[te.Tensor], main: Any) -> None:
        out = tensors[0] if len(tensors[0].shape) == 2 else main.output(0)
        mat = main.output(0)
        tx = te.thread_axis((0, 32), "threadIdx.x")
        _, kf = s[mat].split(s[mat].op.reduce_axis[0], factor=32)
        rf = s.rfactor(mat, kf)
        if out != mat:
            s[mat].compute_at(s[out], s[out].op.axis[1])
        s[out].bind(s[out].op.axis[0], te.thread_axis("blockIdx.y"))
        s[out].bind(s[out].op.axis[1], te.thread_axis("blockIdx.x"))
        s[mat].bind(s[mat].op.reduce_axis[0], tx)
        s[rf].compute_at(s[mat], s[mat].op.reduce_axis[0])
        s[mat].set_store_predicate(tx.var.equal(0))
        if out != mat:
            s[out].set_store_predicate(tx.var.equal(0))
        _epilogue(s, tensors, out.op)
    return _around("schedule_dense", ("dense", "matmul"), outs, body)


def schedule_batch_matmul(outs: Any) -> te.Schedule:
    """batch_matmul: 8 x 8 tiles per block over 4 x 4 threads, both operands through shared
    and local memory, a local accumulator."""

    def body(s: te.Schedule, tensors: list[te.Tensor], main: Any) -> None:
        C = main.output(0)
        A, B = C.op.input_tensors
        AS, BS = s.cache_read(A, "shared", [C]), s.cache_read(B, "shared", [C])
        AL, BL = s.cache_read(AS, "local", [C]), s.cache_read(BS, "local", [C])
        CC = s.cache_write(C, "local")
        ty, tx = te.thread_axis((0, 4), "threadIdx.y"), te.thread_axis((0, 4), "threadIdx.x")
        b, y, x = s[C].op.axis
        by, yi = s[C].split(y, factor=8)
        bx, xi = s[C].split(x, factor=8)
        ty_o, yi = s[C].split(yi, nparts=4)
        tx_o, xi = s[C].split(xi, nparts=4)
        s[C].reorder(b, by, bx, ty_o, tx_o, yi, xi)
        for axis, thread in ((b, "blockIdx.z"), (by, "blockIdx.y"), (bx, "blockIdx.x")):
            s[C].bind(axis, te.thread_axis(thread))
        s[C].bind(ty_o, ty)
        s[C].bind(tx_o, tx)
        s[CC].compute_at(s[C], tx_o)
        ko, ki = s[CC].split(s[CC].op.reduce_axis[0], factor=4)
        _, cy, cx = s[CC].op.axis
        s[CC].reorder(ko, ki, cy, cx)
        for shared, local in ((AS, AL), (BS, BL)):
            s[shared].compute_at(s[CC], ko)
            s[local].compute_at(s[CC], ki)
            _, sy, sk = s[shared].op.axis
            s[shared].bind(s[shared].split(sy, nparts=4)[0], ty)
            s[shared].bind(s[shared].split(sk, nparts=4)[0], tx)
        _epilogue(s, tensors, main)
    return _around("schedule_batch_matmul", ("batch_matmul",), outs, body)


def schedule_pool(outs: Any, layout: str = "NCHW") -> te.Schedule:
    """Pooling: the padding inlined, the output over blocks and threads, an average's window sums
    computed at its thread."""
    s, tensors = new_schedule("cuda.schedule_pool", outs)
    sums: list[Any] = []
    for t in tensors:
        traverse_inline(s, t.op, lambda op: sums.append(op) if op.tag in ("pool_sum", "adaptive_pool_sum") else None)
    for t in tensors:
        thread = bind_flat(s, t, 64)
        for op in sums:
            if op in [x.op for x in t.op.input_tensors]:
                s[op].compute_at(s[t], thread)
    return s


def schedule_adaptive_pool(outs: Any) -> te.Schedule:
    """Adaptive and global pools, as :func:`schedule_pool`."""
    return schedule_pool(outs)
