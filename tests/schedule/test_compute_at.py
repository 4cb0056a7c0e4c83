"""Placement primitives: compute_at, compute_inline, compute_root; and their refusals."""

from __future__ import annotations

import pytest

import schedule as te

from ..conftest import snapshot


def _refused(s, call, match):
    before = snapshot(s)
    with pytest.raises(te.ScheduleError, match=match):
        call()
    assert snapshot(s) == before


def test_compute_at_records_the_attachment(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(C.op.axis[0], factor=4)
    s[B].compute_at(s[C], xo)
    assert s[B].attach_type == te.AttachType.Scope
    assert s[B].attach_stage is s[C] and s[B].attach_ivar is xo
    s[B].compute_root()
    assert s[B].attach_type == te.AttachType.GroupRoot and s[B].attach_stage is None


def test_compute_at_through_an_intermediate_consumer(example_cde):
    C, D, E = example_cde
    s = te.create_schedule(E.op)
    s[C].compute_at(s[E], E.op.axis[1])
    assert s[C].attach_stage is s[E]


def test_compute_at_refuses_an_axis_that_is_not_a_leaf_of_the_target(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    s[C].split(C.op.axis[0], factor=4)
    _refused(s, lambda: s[B].compute_at(s[C], C.op.axis[0]),
             r"compute_at: stage 'B', IterVar 'i' is not a leaf of the target stage 'C': "
             r"it was already split")
    _refused(s, lambda: s[B].compute_at(s[C], B.op.axis[1]),
             r"IterVar 'j' is not a leaf of the target stage 'C': it does not belong to it")


def test_compute_at_refuses_placeholders_self_and_outputs(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    _refused(s, lambda: s[A].compute_at(s[C], C.op.axis[0]), r"stage 'A' is a placeholder")
    _refused(s, lambda: s[B].compute_at(s[B], B.op.axis[0]),
             r"stage 'B', IterVar 'i' is an axis of the stage itself")
    s2 = te.create_schedule([B.op, C.op])
    _refused(s2, lambda: s2[B].compute_at(s2[C], C.op.axis[0]), r"stage 'B' is an output of the schedule")


def test_compute_at_refuses_an_attachment_cycle(example_cde):
    C, D, E = example_cde
    s = te.create_schedule(E.op)
    s[C].compute_at(s[D], D.op.axis[1])
    _refused(s, lambda: s[D].compute_at(s[C], C.op.axis[0]),
             r"stage 'D' cannot be attached to 'C', which is itself attached inside 'D'")


def test_compute_at_refuses_a_target_that_does_not_read_the_stage():
    A = te.placeholder((8,), name="A")
    B = te.compute((8,), lambda i: A[i] + 1, name="B")
    C = te.compute((8,), lambda i: A[i] * 2, name="C")
    D = te.compute((8,), lambda i: B[i] + C[i], name="D")
    s = te.create_schedule(D.op)
    _refused(s, lambda: s[B].compute_at(s[C], C.op.axis[0]),
             r"stage 'B' is not read by 'C' \(directly or through other stages\)")


def test_compute_at_refuses_a_target_from_another_schedule(chain):
    A, B, C = chain
    s1, s2 = te.create_schedule(C.op), te.create_schedule(C.op)
    _refused(s1, lambda: s1[B].compute_at(s2[C], C.op.axis[0]), "belong to different schedules")


def test_compute_inline_marks_the_stage(chain):
    A, B, C = chain
    s = te.create_schedule(C.op)
    s[B].compute_inline()
    assert s[B].attach_type == te.AttachType.Inline


def test_compute_inline_refuses_reductions_outputs_and_placeholders(matmul, chain):
    A, B, C = matmul
    D = te.compute(C.shape, lambda i, j: C[i, j] + 1, name="D")
    s = te.create_schedule(D.op)
    _refused(s, lambda: s[C].compute_inline(), r"compute_inline: stage 'C' is a reduction")
    _refused(s, lambda: s[D].compute_inline(), r"compute_inline: stage 'D' is an output")
    _refused(s, lambda: s[A].compute_inline(), r"compute_inline: stage 'A' is a placeholder")


def test_compute_inline_refuses_multi_output_stages(chain):
    A, _, _ = chain
    M0, M1 = te.compute((16, 16), lambda i, j: (A[i, j], A[i, j] * 2), name="M")
    D = te.compute((16, 16), lambda i, j: M0[i, j] + M1[i, j], name="D")
    s = te.create_schedule(D.op)
    _refused(s, lambda: s[M0].compute_inline(), r"stage 'M' has 2 outputs")


def test_compute_inline_refuses_a_compute_at_target(example_cde):
    C, D, E = example_cde
    s = te.create_schedule(E.op)
    s[C].compute_at(s[D], D.op.axis[1])
    _refused(s, lambda: s[D].compute_inline(), r"stage 'D' is the compute_at target of 'C'")


def test_compute_at_refuses_an_inlined_target(example_cde):
    C, D, E = example_cde
    s = te.create_schedule(E.op)
    s[D].compute_inline()
    _refused(s, lambda: s[C].compute_at(s[D], D.op.axis[1]), r"cannot be attached to 'D', which is inlined")
