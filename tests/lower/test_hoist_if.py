"""Guards sit outside the loops they do not depend on (TVM's HoistIfThenElse), and exact mode
drops the guards its shortened tails make redundant (TVM's split_uneven_unique_likely and
conv_tiling cases)."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from lower import build, lower
from lower.ir.stmt import For, ForKind, IfThenElse, Load, Store
from lower.passes.hoist_if import hoist_if_then_else

BOTH = pytest.mark.parametrize("exact", [False, True])


def _uneven_split():
    a = te.placeholder((16, 16), name="a")
    b = te.placeholder((16, 16), name="b")
    c = te.compute((16, 16), lambda x, y: a[x, y] + b[x, y], name="c")
    s = te.create_schedule(c.op)
    s[c].split(c.op.axis[0], 5)
    return s, a, b, c


@BOTH
def test_split_uneven_guard_is_outside_the_loop_it_does_not_use(exact):
    s, a, b, c = _uneven_split()
    f = lower(s, [a, b, c], exact=exact)
    outer = f.body.body  # produce c { for (x.outer ...) }
    assert isinstance(outer, For) and isinstance(outer.body, For)
    if exact:  # the tail loop is shorter instead: no guard at all
        assert "if (" not in str(f) and "for (x.inner, 0, min(5, (16 - (x.outer*5))))" in str(f)
    else:  # TVM: for x.outer { for x.inner { if (likely(...)) { for y ... } } }
        guard = outer.body.body
        assert isinstance(guard, IfThenElse) and isinstance(guard.then_case, For)
        assert str(guard.condition) == "likely((((x.outer*5) + x.inner) < 16))"
    x, y = np.random.default_rng(0).standard_normal((2, 16, 16)).astype("float32")
    out = np.full((16, 16), np.nan, "float32")
    build(s, [a, b, c], exact=exact)(x, y, out)
    np.testing.assert_array_equal(out, x + y)


def _conv_tiled(channels: int, size: int):
    data = te.placeholder((1, channels, size, size), name="data")
    kernel = te.placeholder((3, 3, channels, 4), name="kernel")
    ic, kh, kw = te.reduce_axis((0, channels), "ic"), te.reduce_axis((0, 3), "kh"), te.reduce_axis((0, 3), "kw")
    out = size - 2
    conv = te.compute((1, 4, out, out), lambda n, oc, oh, ow: te.sum(
        data[n, ic, oh + kh, ow + kw] * kernel[kh, kw, ic, oc], axis=[ic, kh, kw]), name="conv2d")
    s = te.create_schedule(conv.op)
    _, _, oh, ow = conv.op.axis
    s[conv].tile(oh, ow, 16, 16)
    return s, data, kernel, conv


@BOTH
def test_conv_tiling_guards(exact):
    s, data, kernel, conv = _conv_tiled(3, 20)
    text = str(lower(s, [data, kernel, conv], exact=exact))
    if exact:  # the tails are shorter loops, and the init needs no guard either
        assert "if (" not in text
    else:  # each guard once around the init, and around the whole reduction, not inside it
        assert text.count("if (likely((((oh.outer*16) + oh.inner) < 18)))") == 2
        reduction = text.split("for (ic, 0, 3)")[1]
        assert "if (" not in reduction
    rng = np.random.default_rng(1)
    d = rng.integers(-3, 4, (1, 3, 20, 20)).astype("float32")
    k = rng.integers(-3, 4, (3, 3, 3, 4)).astype("float32")
    out = np.full((1, 4, 18, 18), np.nan, "float32")
    build(s, [data, kernel, conv], exact=exact)(d, k, out)
    windows = np.lib.stride_tricks.sliding_window_view(d[0], (3, 3), axis=(1, 2))  # c, oh, ow, kh, kw
    np.testing.assert_array_equal(out[0], np.einsum("chwij,ijco->ohw", windows, k))


def test_guards_that_read_memory_or_have_an_else_stay():
    from lower.ir.stmt import Buffer

    buf = Buffer("B", "float32", (te.const(4),))
    v, w = te.var("v"), te.var("w")
    store = Store(buf, te.const(1.0), v)
    reads = For(v, te.const(0), te.const(4), ForKind.SERIAL, IfThenElse(Load(buf, w) > 0, store))
    assert hoist_if_then_else(reads) is reads
    other = For(v, te.const(0), te.const(4), ForKind.SERIAL, IfThenElse(w > 0, store, store))
    assert hoist_if_then_else(other) is other
    plain = For(v, te.const(0), te.const(4), ForKind.SERIAL, IfThenElse(w > 0, store))
    hoisted = hoist_if_then_else(plain)
    assert isinstance(hoisted, IfThenElse) and isinstance(hoisted.then_case, For)
    assert hoisted.then_case.body is store
