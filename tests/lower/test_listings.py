"""The InferBound document's IR listings, reproduced character for character (white space aside)."""

from __future__ import annotations

import re

import pytest

import schedule as te
from lower import lower, schedule_ops


def same_text(actual, expected):
    return re.sub(r"\s+", "", str(actual)) == re.sub(r"\s+", "", expected)


EXAMPLE_4 = """
realize D([0, 4], [0, 5], [0, 16]) {
produce D {
for (di, 0, 4) {
for (dj, 0, 5) {
for (dk, 0, 16) {
realize C([dj, 1], [dk, 1]) {
produce C {
for (i, 0, 1) {
for (j, 0, 1) {
C((i + dj), (j + dk)) =5
}
}
}
D(di, dj, dk) =(C(dj, dk)*2)
}
}
}
}
}
}
"""

C_AT_D_AT_E = """
// attr [D] storage_scope = "global"
allocate D[int32 * 1]
// attr [C] storage_scope = "global"
allocate C[int32 * 1]
produce E {
for (ei, 0, 5) {
for (ej, 0, 16) {
produce D {
for (di, 0, 1) {
for (dj, 0, 1) {
produce C {
for (ci, 0, 1) {
for (cj, 0, 1) {
C[(ci + cj)] = 5
}
}
}
D[(di + dj)] = (C[(di + dj)]*2)
}
}
}
E[((ei*16) + ej)] = (D[0]*4)
}
}
}
"""

EXAMPLE_6_FUSED = """
// attr [B] storage_scope = "global"
allocate B[float32 * 16]
produce C {
for (ci.cj.fused.outer, 0, 4) {
produce B {
for (bi, 0, 4) {
for (bj, 0, 4) {
B[((bi*4) + bj)] = (A[((bi*4) + bj)] + 2.000000f)
}
}
}
for (ci.cj.fused.inner, 0, 4) {
C[((ci.cj.fused.outer*4) + ci.cj.fused.inner)] = (B[((ci.cj.fused.outer*4) + ci.cj.fused.inner)]*3.000000f)
}
}
}
"""

EXAMPLE_6_ROWS = """
// attr [B] storage_scope = "global"
allocate B[float32 * 4]
produce C {
for (ci, 0, 4) {
produce B {
for (bj, 0, 4) {
B[bj] = (A[((ci*4) + bj)] + 2.000000f)
}
}
for (cj, 0, 4) {
C[((ci*4) + cj)] = (B[cj]*3.000000f)
}
}
}
"""


@pytest.mark.parametrize("exact", [False, True])
def test_example_4_realize_form(exact):
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((4, 5, 16), lambda di, dj, dk: C[dj, dk] * 2, name="D")
    s = te.create_schedule(D.op)
    s[C].compute_at(s[D], D.op.axis[2])
    assert same_text(schedule_ops(s, debug_keep_trivial_loop=True, exact=exact), EXAMPLE_4)


@pytest.mark.parametrize("exact", [False, True])
def test_c_at_d_at_e(exact, example_cde):
    C, D, E = example_cde
    s = te.create_schedule(E.op)
    s[C].compute_at(s[D], D.op.axis[1])
    s[D].compute_at(s[E], E.op.axis[1])
    assert same_text(lower(s, [E], exact=exact, debug_keep_trivial_loop=True), C_AT_D_AT_E)


def example_6():
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda bi, bj: A[bi, bj] + 2, name="B")
    C = te.compute((4, 4), lambda ci, cj: B[ci, cj] * 3, name="C")
    return A, B, C, te.create_schedule(C.op)


def test_example_6_faithful_recomputes_all_of_b():
    A, B, C, s = example_6()
    xo, _ = s[C].split(s[C].fuse(C.op.axis[0], C.op.axis[1]), 4)
    s[B].compute_at(s[C], xo)
    assert same_text(lower(s, [A, C], exact=False), EXAMPLE_6_FUSED)


def test_example_6_exact_computes_one_row_like_the_unfused_schedule():
    A, B, C, s = example_6()
    xo, _ = s[C].split(s[C].fuse(C.op.axis[0], C.op.axis[1]), 4)
    s[B].compute_at(s[C], xo)
    expected = EXAMPLE_6_ROWS.replace("(ci, 0, 4)", "(ci.cj.fused.outer, 0, 4)").replace(
        "(cj, 0, 4)", "(ci.cj.fused.inner, 0, 4)").replace("ci*4", "ci.cj.fused.outer*4").replace(
        "+ cj", "+ ci.cj.fused.inner").replace("B[cj]", "B[ci.cj.fused.inner]")
    assert same_text(lower(s, [A, C], exact=True), expected)


@pytest.mark.parametrize("exact", [False, True])
def test_example_6_without_fuse(exact):
    A, B, C, s = example_6()
    s[B].compute_at(s[C], C.op.axis[0])
    assert same_text(lower(s, [A, C], exact=exact), EXAMPLE_6_ROWS)
