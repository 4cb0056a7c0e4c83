"""Winograd's minimal filtering for 3 x 3 convolutions (TVM's ``topi.nn.conv2d_winograd_nhwc``
and ``winograd_transform_matrices``): output tiles of m x m computed from (m + 2)-square input
tiles by ``Y = A^T [(G g G^T) * (B^T d B)] A``, the transforms built from interpolation points
by the Cook-Toom construction, exactly in rationals, then rounded to the output type."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

import schedule as te
from schedule import Tensor
from topi.nn.pad import pad
from topi.utils import const_value, get_pad_tuple

#: Interpolation points, the first ``m + r - 2`` taken (the last point is infinity).
_POINTS = [Fraction(0), Fraction(1), Fraction(-1), Fraction(1, 2), Fraction(-1, 2), Fraction(2), Fraction(-2),
           Fraction(1, 4), Fraction(-1, 4), Fraction(4), Fraction(-4)]


def _poly_mul(a: list[Fraction], b: list[Fraction]) -> list[Fraction]:
    out = [Fraction(0)] * (len(a) + len(b) - 1)
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            out[i + j] += x * y
    return out


def _transforms(m: int, r: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A (alpha x m), B (alpha x alpha) and G (alpha x r) of F(m, r), alpha = m + r - 1, such
    that the correlation of d (alpha) with g (r) is ``A^T [(G g) * (B^T d)]``."""
    alpha = m + r - 1
    if alpha - 1 > len(_POINTS):
        raise ValueError(f"winograd: tiles of {m} with kernels of {r} need more interpolation points than kept")
    pts = _POINTS[:alpha - 1]
    # Lagrange bases over the finite points; the point at infinity takes the leading coefficient.
    full = [Fraction(1)]
    for p in pts:
        full = _poly_mul(full, [-p, Fraction(1)])  # prod (x - p), coefficients lowest first
    A = [[p ** j for j in range(m)] for p in pts] + [[Fraction(0)] * (m - 1) + [Fraction(1)]]
    G, B = [], []
    for p in pts:
        denom = Fraction(1)
        for q in pts:
            if q != p:
                denom *= p - q
        G.append([p ** j / denom for j in range(r)])
        basis = [Fraction(1)]
        for q in pts:
            if q != p:
                basis = _poly_mul(basis, [-q, Fraction(1)])
        B.append(basis + [Fraction(0)] * (alpha - len(basis)))
    G.append([Fraction(0)] * (r - 1) + [Fraction(1)])
    B.append(full[:alpha])
    to = np.vectorize(float)
    # B^T d evaluates the input polynomial's remainders; the rows above are its transpose
    return to(np.array(A, dtype=object)), to(np.array(B, dtype=object)).T, to(np.array(G, dtype=object))


def winograd_transform_matrices(tile_size: int, kernel_size: int, out_dtype: str) -> tuple[Tensor, Tensor, Tensor]:
    """The transforms A, B and G as constant tensors of *out_dtype* (TVM's names)."""
    a, b, g = _transforms(tile_size, kernel_size)
    return tuple(_const_matrix(x.astype(out_dtype), name) for x, name in ((a, "A"), (b, "B"), (g, "G")))


def _const_matrix(values: np.ndarray, name: str) -> Tensor:
    rows, cols = values.shape
    dtype = str(values.dtype)

    def element(i: Any, j: Any) -> Any:
        out: Any = te.const(0.0, dtype)
        for x in range(rows):
            for y in range(cols):
                out = te.Select(te.all(i == x, j == y), te.const(float(values[x, y]), dtype), out)
        return out
    return te.compute((rows, cols), element, name=name, tag="const_matrix")


def conv2d_winograd_nhwc(data: Tensor, weight: Tensor, strides: Any, padding: Any, dilation: Any, out_dtype: str,
                         pre_computed: bool = False, auto_scheduler_rewritten_layout: str = "",
                         tile_size: int = 4) -> Tensor:
    """A 3 x 3, stride 1 NHWC convolution (kernel HWIO, or with *pre_computed* the transformed
    kernel ``(alpha, alpha, out, in)``) by Winograd's F(tile_size, 3): the
    kernel transformed (``kernel_pack``), the input cut into tiles (``input_tile``) and
    transformed (``data_pack``), multiplied per tile position (``bgemm``), transformed back
    (``inverse``) and put in place (``conv2d_winograd``). The transforms' stages name the
    indices of the constant matrices, as TVM's do, for the auto-scheduler to unroll.

    :raises ValueError: for another kernel size, a stride or a dilation other than 1.
    """
    return _winograd("conv2d_winograd_nhwc", data, weight, strides, padding, dilation, out_dtype, pre_computed,
                     tile_size, False)


def conv2d_winograd_nchw(data: Tensor, weight: Tensor, strides: Any, padding: Any, dilation: Any, out_dtype: str,
                         pre_computed: bool = False, auto_scheduler_rewritten_layout: str = "",
                         meta_schedule_original_shape: Any = None, tile_size: int = 4) -> Tensor:
    """:func:`conv2d_winograd_nhwc` of an NCHW input and an OIHW kernel, the output NCHW."""
    return _winograd("conv2d_winograd_nchw", data, weight, strides, padding, dilation, out_dtype, pre_computed,
                     tile_size, True)


def conv2d_nchw_winograd(data: Tensor, kernel: Tensor, strides: Any, padding: Any, dilation: Any,
                         out_dtype: str | None = None) -> Tensor:
    """The target libraries' name (``topi.arm_cpu``, ``topi.cuda``, ``topi.mali``) of
    :func:`conv2d_winograd_nchw` (F(4, 3)), tagged ``conv2d_nchw_winograd``."""
    return _winograd("conv2d_nchw_winograd", data, kernel, strides, padding, dilation, out_dtype or data.dtype,
                     False, 4, True)


def _winograd(op: str, data: Tensor, weight: Tensor, strides: Any, padding: Any, dilation: Any, out_dtype: str,
              pre_computed: bool, tile_size: int, nchw: bool) -> Tensor:
    for what, t in (("data", data), ("weight", weight)):
        if not isinstance(t, Tensor) or len(t.shape) != 4:
            raise TypeError(f"topi.nn.{op}: {what} must be a 4-d tensor, got {t!r}")
    if nchw:
        n, ci, h, w = (const_value(d) for d in data.shape)
    else:
        n, h, w, ci = (const_value(d) for d in data.shape)
    m, r = tile_size, 3
    alpha = m + r - 1
    if pre_computed:  # the kernel already transformed: (alpha, alpha, out channels, in channels)
        pa, pb, co, wci = (const_value(d) for d in weight.shape)
        kh = kw = 3 if (pa, pb) == (alpha, alpha) else None
    elif nchw:
        co, wci, kh, kw = (const_value(d) for d in weight.shape)
    else:
        kh, kw, wci, co = (const_value(d) for d in weight.shape)
    strides = (strides, strides) if isinstance(strides, int) else tuple(strides)
    dilation = (dilation, dilation) if isinstance(dilation, int) else tuple(dilation)
    if (kh, kw) != (3, 3) or strides != (1, 1) or dilation != (1, 1) or None in (n, h, w, ci, co) or wci != ci:
        raise ValueError(f"topi.nn.{op}: takes a constant {'NCHW' if nchw else 'NHWC'} input and a 3 x 3 "
                         f"{'OIHW' if nchw else 'HWIO'} kernel of its channels, stride and dilation 1; got kernel "
                         f"{list(map(str, weight.shape))}, stride {strides}, dilation {dilation}")
    A, B, G = winograd_transform_matrices(m, r, out_dtype)
    top, left, bottom, right = get_pad_tuple(padding, (kh, kw))
    out_h, out_w = h + top + bottom - kh + 1, w + left + right - kw + 1
    tiles_h, tiles_w = (out_h + m - 1) // m, (out_w + m - 1) // m
    tiles = n * tiles_h * tiles_w
    extra_h = (tiles_h - 1) * m + alpha - (h + top + bottom)
    extra_w = (tiles_w - 1) * m + alpha - (w + left + right)
    after_h, after_w = bottom + max(extra_h, 0), right + max(extra_w, 0)
    padded = pad(data, (0, 0, top, left) if nchw else (0, top, left, 0),
                 (0, 0, after_h, after_w) if nchw else (0, after_h, after_w, 0), name="data_pad")
    if pre_computed:
        kernel_pack = weight
    else:
        rkh, rkw = te.reduce_axis((0, kh), name="r_kh"), te.reduce_axis((0, kw), name="r_kw")
        kernel_pack = te.compute((alpha, alpha, co, ci), lambda eps, nu, o, c: te.sum(
            (weight[o, c, rkh, rkw] if nchw else weight[rkh, rkw, c, o]).astype(out_dtype) * G[eps, rkh] * G[nu, rkw],
            axis=[rkh, rkw]), name="kernel_pack")

    def tile_read(eps: Any, nu: Any, p: Any, c: Any) -> Any:
        b, y, x = p // (tiles_h * tiles_w), (p // tiles_w) % tiles_h * m + eps, p % tiles_w * m + nu
        return padded[b, c, y, x] if nchw else padded[b, y, x, c]
    input_tile = te.compute((alpha, alpha, tiles, ci), tile_read, name="input_tile")
    ra, rb = te.reduce_axis((0, alpha), name="r_a"), te.reduce_axis((0, alpha), name="r_b")
    data_pack = te.compute((alpha, alpha, tiles, ci), lambda eps, nu, p, c: te.sum(
        input_tile[ra, rb, p, c].astype(out_dtype) * B[ra, eps] * B[rb, nu], axis=[ra, rb]), name="data_pack",
        attrs={"auto_scheduler_simplify_const_tensor_indices": ["eps", "nu", "r_a", "r_b"]})
    rc = te.reduce_axis((0, ci), name="ci")
    bgemm = te.compute((alpha, alpha, tiles, co), lambda eps, nu, p, o: te.sum(
        data_pack[eps, nu, p, rc] * kernel_pack[eps, nu, o, rc], axis=[rc]), name="bgemm")
    ia, ib = te.reduce_axis((0, alpha), name="r_a"), te.reduce_axis((0, alpha), name="r_b")
    inverse = te.compute((m, m, tiles, co), lambda vh, vw, p, o: te.sum(
        bgemm[ia, ib, p, o] * A[ia, vh] * A[ib, vw], axis=[ia, ib]), name="inverse",
        attrs={"auto_scheduler_simplify_const_tensor_indices": ["vh", "vw", "r_a", "r_b"]})

    def place(b: Any, y: Any, x: Any, o: Any) -> Any:
        return inverse[y % m, x % m, b * tiles_h * tiles_w + y // m * tiles_w + x // m, o]
    if nchw:
        return te.compute((n, co, out_h, out_w), lambda b, o, y, x: place(b, y, x, o), name="conv2d_winograd", tag=op)
    return te.compute((n, out_h, out_w, co), place, name="conv2d_winograd", tag=op)
