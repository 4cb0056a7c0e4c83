"""The InferBound document's GatherBound figure: two consumers read disjoint corners of T.

GatherBound unions the requests per dimension, so T is computed whole (4 x 4) although only
the two 2 x 2 corners are read; explain() shows the 16 computed against the 8 needed.
Run: python tutorials/gather_bound.py
"""

from __future__ import annotations

from walkthrough import show

import schedule as te


def main() -> None:
    T = te.compute((4, 4), lambda i, j: i + j, name="T")
    P = te.compute((2, 2), lambda i, j: T[i, j], name="P")
    Q = te.compute((2, 2), lambda i, j: T[i + 2, j + 2], name="Q")
    R = te.compute((2, 2), lambda i, j: P[i, j] + Q[i, j], name="R")
    s = te.create_schedule(R.op)
    show("GatherBound: two disjoint requests", s, [R], [T])


if __name__ == "__main__":
    main()
