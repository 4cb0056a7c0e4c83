"""TVM's conventions that ported code relies on: errors catchable as RuntimeError, the
AutoInline* helpers TOPI's generic schedules call, an empty schedule, and pragmas printed as
TVM prints them; each schedule builds equal to NumPy."""

from __future__ import annotations

import numpy as np
import pytest

import schedule as te
from bound import BoundError
from lower import LoweringError, build, lower, schedule_ops
from schedule.xla.hlo_lexer import HloParseError

BOTH = pytest.mark.parametrize("exact", [False, True])


@pytest.mark.parametrize("error", [te.ScheduleError, te.ScheduleTypeError, BoundError, LoweringError, HloParseError])
def test_errors_are_runtime_errors_as_tvm_errors_are(error):
    assert issubclass(error, RuntimeError) and issubclass(error, ValueError)


def test_a_schedule_error_is_caught_as_tvm_tests_catch_it():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    xo, _ = s[B].split(B.op.axis[0], factor=2)
    with pytest.raises(RuntimeError):
        s[B].split(B.op.axis[0], factor=2)  # already split


def _chain():
    """elemwise -> broadcast -> injective (a transpose) -> reduction, as TOPI ops build them."""
    A = te.placeholder((4, 6), name="A")
    b = te.placeholder((6,), name="b")
    E = te.compute((4, 6), lambda i, j: A[i, j] * 2.0, name="E")
    B = te.compute((4, 6), lambda i, j: E[i, j] + b[j], name="Bc", tag="broadcast")
    T = te.compute((6, 4), lambda i, j: B[j, i], name="T")
    k = te.reduce_axis((0, 4), name="k")
    R = te.compute((6,), lambda i: te.sum(T[i, k], axis=k), name="R")
    return A, b, E, B, T, R


@BOTH
@pytest.mark.parametrize(("helper", "inlined"), [("AutoInlineElemWise", {"E"}),
                                                  ("AutoInlineBroadcast", {"E", "Bc"}),
                                                  ("AutoInlineInjective", {"E", "Bc", "T"})])
def test_auto_inline(exact, helper, inlined):
    A, b, E, B, T, R = _chain()
    s = te.create_schedule(R.op)
    getattr(te.schedule, helper)(s)
    got = {st.name for st in s.stages if st.attach_type == te.AttachType.Inline}
    assert got == inlined
    text = str(lower(s, [A, b, R], exact=exact))
    assert all(f"allocate {name}[" not in text for name in inlined)
    a, bb = np.arange(24, dtype="float32").reshape(4, 6), np.arange(6, dtype="float32")
    r = np.full(6, np.nan, "float32")
    build(s, [A, b, R], exact=exact)(a, bb, r)
    np.testing.assert_array_equal(r, (a * 2 + bb).sum(axis=0))


def test_auto_inline_leaves_scheduled_stages_and_outputs():
    A, b, E, B, T, R = _chain()
    s = te.create_schedule([R.op, T.op])
    s[E].split(E.op.axis[0], factor=2)
    te.schedule.AutoInlineInjective(s)
    assert {st.name for st in s.stages if st.attach_type == te.AttachType.Inline} == {"Bc"}
    with pytest.raises(TypeError, match="AutoInlineInjective: expected a schedule, not list"):
        te.schedule.AutoInlineInjective([s])


def test_an_empty_schedule():
    s = te.create_schedule([])
    assert s.stages == [] and s.outputs == []


@BOTH
def test_pragmas_print_as_tvm_prints_them(exact):
    A = te.placeholder((16,), name="A")
    B = te.compute((16,), lambda i: A[i] + 1, name="B")
    s = te.create_schedule(B.op)
    xo, xi = s[B].split(B.op.axis[0], 4)
    s[B].pragma(xo, "auto_unroll_max_step", 16)
    s[B].pragma(xi, "unroll_explicit", True)
    s[B].pragma(xo, "parallel_launch_point")
    lines = [line.strip() for line in str(schedule_ops(s.normalize())).splitlines()]
    at = lines.index("for (i.outer, 0, 4) {")
    assert lines[at - 2:at] == ["// attr [iter_var(i.outer, , )] pragma_auto_unroll_max_step = 16",
                                "// attr [iter_var(i.outer, , )] pragma_parallel_launch_point = 1"]
    assert lines[at + 1:at + 3] == ["// attr [iter_var(i.inner, , )] pragma_unroll_explicit = (bool)1",
                                    "for (i.inner, 0, 4) {"]
    # lower runs UnrollLoop, which takes the unroll pragmas: 4 x 4 steps are within 16
    text = str(lower(s, [A, B], exact=exact))
    assert "for (" not in text and text.count("B[") == 16 and "pragma_auto_unroll" not in text
    assert "pragma_parallel_launch_point = 1" in text
    a = np.arange(16, dtype="float32")
    out = np.full(16, np.nan, "float32")
    build(s, [A, B], exact=exact)(a, out)
    np.testing.assert_array_equal(out, a + 1)


def test_schedule_record_gemm():
    """TVM's test_schedule_record_gemm: a copy of the schedule after each primitive."""
    from lower import PassContext

    with PassContext(config={"te.keep_schedule_record": True}):
        k = te.reduce_axis((0, 16), "k")
        A, B = te.placeholder((16, 16), name="A"), te.placeholder((16, 16), name="B")
        C = te.compute((16, 16), lambda m, n: te.sum(A[m, k] * B[k, n], axis=k), name="C")
        s = te.create_schedule(C.op)
        assert len(s.schedule_record) == 1
        mo, no, mi, ni = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 8)
        ko, ki = s[C].split(k, factor=4)
        s[C].reorder(mo, ko, no, mi, ki, ni)
        s[C].vectorize(ni)
        s[C].parallel(mo)
    assert s.primitive_record == ["vanilla", "split", "split", "reorder", "split", "reorder", "vectorize", "parallel"]
    first, last = s.schedule_record[0], s.schedule_record[-1]
    assert len(first[C].leaf_iter_vars) == 3 and len(last[C].leaf_iter_vars) == 6
    a, b = np.arange(256, dtype="float32").reshape(16, 16), np.ones((16, 16), "float32")
    for recorded in (first, last):
        c = np.full((16, 16), np.nan, "float32")
        build(recorded, [A, B, C])(a, b, c)
        np.testing.assert_array_equal(c, a @ b)


def test_schedule_record_misc():
    from lower import PassContext

    assert len(te.create_schedule([]).schedule_record) == 0
    with PassContext(config={"te.keep_schedule_record": True}):
        assert len(te.create_schedule([]).schedule_record) == 1
        empty = te.compute((), lambda *args: 0, name="empty_op")
        assert len(te.create_schedule(empty.op).schedule_record) == 1
    with pytest.raises(ValueError, match="'te.keep_schedule_record' is True or False"):
        PassContext(config={"te.keep_schedule_record": {}})
