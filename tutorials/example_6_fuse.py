"""The InferBound document's Example 6: fuse then split does not undo the fuse in TVM.

Faithful mode recomputes all 16 elements of B at each of the 4 outer iterations, as the
document's first listing shows; exact mode computes the one row C needs.
Run: python tutorials/example_6_fuse.py
"""

from __future__ import annotations

from walkthrough import show

import schedule as te


def main() -> None:
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda bi, bj: A[bi, bj] + 2, name="B")
    C = te.compute((4, 4), lambda ci, cj: B[ci, cj] * 3, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(s[C].fuse(C.op.axis[0], C.op.axis[1]), 4)
    s[B].compute_at(s[C], xo)
    show("Example 6: B at the outer loop of C's fused and split axes", s, [A, C], [B])

    s = te.create_schedule(C.op)
    s[B].compute_at(s[C], C.op.axis[0])
    show("Example 6 without fuse and split: B at ci", s, [A, C], [B])


if __name__ == "__main__":
    main()
