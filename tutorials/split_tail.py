"""The InferBound document's split-tail discussion: 20 elements split by 16.

Faithful mode guards the tail with ``likely`` and realizes 16 elements of B each time; exact
mode shortens the tail loop and realizes 4 elements of B in the last iteration.
Run: python tutorials/split_tail.py
"""

from __future__ import annotations

from walkthrough import show

import schedule as te


def main() -> None:
    A = te.placeholder((20,), name="A")
    B = te.compute((20,), lambda i: A[i] + 1, name="B")
    C = te.compute((20,), lambda i: B[i] * 2, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(C.op.axis[0], factor=16)
    s[B].compute_at(s[C], xo)
    show("20 split by 16, B at the outer loop", s, [A, C], [B])


if __name__ == "__main__":
    main()
