"""Pictures of a schedule (TVM's tedd): the IterVar relation graph of each stage, the dataflow
graph and the schedule tree, for the InferBound document's Example 6 and for a tiled GPU
schedule. Prints the DOT text and writes .dot files (and .svg files when Graphviz's ``dot`` is
installed) to a temporary directory.
Run: python tutorials/schedule_pictures.py
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import schedule as te
from bound import tedd


def example_6() -> tuple[str, te.Schedule]:
    A = te.placeholder((4, 4), name="A")
    B = te.compute((4, 4), lambda bi, bj: A[bi, bj] + 2, name="B")
    C = te.compute((4, 4), lambda ci, cj: B[ci, cj] * 3, name="C")
    s = te.create_schedule(C.op)
    xo, xi = s[C].split(s[C].fuse(C.op.axis[0], C.op.axis[1]), 4)
    s[B].compute_at(s[C], xo)
    return "example_6", s


def tiled_gpu() -> tuple[str, te.Schedule]:
    n = 64
    A = te.placeholder((n, n), name="A")
    B = te.placeholder((n, n), name="B")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    s = te.create_schedule(C.op)
    AS = s.cache_read(A, "shared", [C])
    bx, by, tx, ty = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 8)
    s[C].bind(bx, te.thread_axis("blockIdx.x"))
    s[C].bind(by, te.thread_axis("blockIdx.y"))
    s[C].bind(tx, te.thread_axis("threadIdx.x"))
    s[C].bind(ty, te.thread_axis("threadIdx.y"))
    ko, ki = s[C].split(k, factor=8)
    s[C].reorder(bx, by, ko, tx, ty, ki)
    s[AS].compute_at(s[C], ko)
    return "tiled_gpu", s


def main() -> None:
    out = Path(tempfile.mkdtemp(prefix="schedule_pictures_"))
    drawing = shutil.which("dot") is not None
    for name, s in (example_6(), tiled_gpu()):
        for kind, dot in (("relations", tedd.itervar_relationship_graph(s)),
                          ("dataflow", tedd.dataflow_graph(s)),
                          ("tree", tedd.schedule_tree(s))):
            print(f"==== {name}: {kind}")
            print(dot)
            tedd.render(dot, out / f"{name}_{kind}.dot")
            if drawing:
                tedd.render(dot, out / f"{name}_{kind}.svg")
    print(f"written to {out}" + ("" if drawing else " (.dot only: Graphviz's dot is not installed)"))


if __name__ == "__main__":
    main()
