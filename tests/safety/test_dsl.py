"""Schedules and the DSL: stage names stay unique, extents are integers, a while loop cannot
hide in a vectorized loop, and a storage scope must be one TVM lowers."""

from __future__ import annotations

import numpy as np
import pytest

import lower
import schedule as te


def test_caching_one_tensor_twice_keeps_stage_names_unique():
    A = te.placeholder((8,), name="A")
    Cout = te.compute((8,), lambda i: A[i] * 2, name="Cout")
    s = te.create_schedule(Cout.op)
    first, second = s.cache_write(Cout, "local"), s.cache_write(Cout, "local")
    names = [st.op.name for st in s.stages]
    assert len(names) == len(set(names)) and first.op.name == "Cout.local" and second.op.name == "Cout.d.local"
    c = np.zeros(8, "float32")
    lower.build(s, [A, Cout], target="python")(np.arange(8, dtype="float32"), c)
    assert c.tolist() == [2.0 * k for k in range(8)]


@pytest.mark.parametrize("extent", [3.5, True, "4", None])
def test_an_extent_that_is_not_an_integer_is_a_type_error(extent):
    A = te.placeholder((4,), name="A")
    with pytest.raises(TypeError, match=r"compute 'B': shape\[0\]"):
        te.compute((extent,), lambda i: A[0] + 1, name="B")


def test_a_while_loop_inside_a_vectorized_loop_is_refused():
    """TVM's test_vectorize_while_fail, written anew."""
    n, num_iter = 64, 10

    def body(a, b, c):
        ib = te.ir_builder.create()
        pa, pb, pc = ib.buffer_ptr(a), ib.buffer_ptr(b), ib.buffer_ptr(c)
        i = ib.allocate("int32", (1,), name="i", scope="local")
        i[0] = 0
        with ib.for_range(0, n) as j:
            pc[j] = 0.0
        with ib.for_range(0, n, kind="vectorize") as j:
            with ib.while_loop(i[0] < num_iter):
                pc[j] += pa[j] + pb[j]
                i[0] += 1
        return ib.get()

    A, B = te.placeholder((n,), name="A"), te.placeholder((n,), name="B")
    C = te.extern((n,), [A, B], lambda ins, outs: body(ins[0], ins[1], outs[0]), name="C", dtype="float32")
    s = te.create_schedule(C.op)
    for target in ("python", "c"):
        with pytest.raises(lower.LoweringError, match="A while loop inside a vectorized loop not supported"):
            lower.build(s, [A, B, C], target=target)
