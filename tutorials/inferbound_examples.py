"""The InferBound document's Examples 1-5 and the C-at-D-at-E chain, in both modes.

Run: python tutorials/inferbound_examples.py
"""

from __future__ import annotations

from walkthrough import show

import schedule as te


def simple_cd(shape=(5, 16)):
    C = te.compute(shape, lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute(shape, lambda i, j: C[i, j] * 2, name="D")
    return C, D, te.create_schedule(D.op)


def main() -> None:
    C, D, s = simple_cd()
    show("Example 1: no compute_at, C is computed whole", s, [D], [C])

    C, D, s = simple_cd()
    s[C].compute_at(s[D], D.op.axis[1])
    show("Example 2: C at j, one element at a time", s, [D], [C])

    C, D, s = simple_cd()
    s[C].compute_at(s[D], D.op.axis[0])
    show("Example 3: C at i, one row at a time", s, [D], [C])

    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((4, 5, 16), lambda di, dj, dk: C[dj, dk] * 2, name="D")
    s = te.create_schedule(D.op)
    s[C].compute_at(s[D], D.op.axis[2])
    show("Example 4: C at dk (loops of extent 1 kept)", s, [D], [C], keep_trivial=True, realize_form=True)

    C, D, s = simple_cd()
    d_o, d_i = s[D].split(D.op.axis[1], factor=8)
    s[C].compute_at(s[D], d_i)
    show("Example 5: C at j.inner after a split", s, [D], [C])

    C = te.compute((5, 16), lambda ci, cj: te.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda di, dj: C[di, dj] * 2, name="D")
    E = te.compute((5, 16), lambda ei, ej: D[ei, ej] * 4, name="E")
    s = te.create_schedule(E.op)
    s[C].compute_at(s[D], D.op.axis[1])
    s[D].compute_at(s[E], E.op.axis[1])
    show("C at D at E (loops of extent 1 kept)", s, [E], [C, D], keep_trivial=True)

    s = te.create_schedule(E.op)
    s[D].compute_at(s[E], E.op.axis[1])
    show("Only D at E: C is relaxed over D's attach path", s, [E], [C, D])


if __name__ == "__main__":
    main()
