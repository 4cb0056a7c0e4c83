"""The InferBound document's schedule examples: stages, relations, leaves and attach paths.

Run: python tutorials/schedule_basics.py
"""

from __future__ import annotations

import schedule as te


def show(title: str, s: te.Schedule) -> None:
    print(f"== {title}")
    for st in s.stages:
        leaves = ", ".join(iv.name for iv in st.leaf_iter_vars) or "-"
        print(f"  stage {st.name:<4} attach={st.attach_type.name:<9} leaves=[{leaves}]")
        for rel in st.relations:
            print(f"      {rel!r}")
    for st, path in te.create_attach_path(s).items():
        if path:
            print(f"  attach path of {st.name}: {{{', '.join(iv.name for iv in path)}}}")
    print()


def example_4() -> te.Schedule:
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((4, 5, 16), lambda di, dj, dk: C[dj, dk] * 2, name="D")
    s = te.create_schedule(D.op)
    s[C].compute_at(s[D], D.op.axis[2])
    return s


def example_5() -> te.Schedule:
    C = te.compute((5, 16), lambda i, j: te.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda i, j: C[i, j] * 2, name="D")
    s = te.create_schedule(D.op)
    d_o, d_i = s[D].split(D.op.axis[1], factor=8)
    s[C].compute_at(s[D], d_i)
    return s


def example_c_at_d_at_e() -> te.Schedule:
    C = te.compute((5, 16), lambda ci, cj: te.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda di, dj: C[di, dj] * 2, name="D")
    E = te.compute((5, 16), lambda ei, ej: D[ei, ej] * 4, name="E")
    s = te.create_schedule(E.op)
    s[C].compute_at(s[D], D.op.axis[1])
    s[D].compute_at(s[E], E.op.axis[1])
    return s


def example_6() -> te.Schedule:
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda bi, bj: A[bi, bj] + 2, name="B")
    C = te.compute((4, 4), lambda ci, cj: B[ci, cj] * 3, name="C")
    s = te.create_schedule(C.op)
    fused = s[C].fuse(C.op.axis[0], C.op.axis[1])
    xo, _ = s[C].split(fused, 4)
    s[B].compute_at(s[C], xo)
    return s


if __name__ == "__main__":
    show("Example 4: C at D.dk", example_4())
    show("Example 5: C at D.j.inner after a split", example_5())
    show("C at D.dj, D at E.ej", example_c_at_d_at_e())
    show("Example 6: fuse, split by 4, B at the outer loop", example_6())
    show("Example 6 normalized (rebased root loops)", example_6().normalize())
