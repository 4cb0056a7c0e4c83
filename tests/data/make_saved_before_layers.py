"""Writes saved_before_layers.json and .pickle: run with the flat layout first on the path
(``PYTHONPATH=<checkout of c245652> python make_saved_before_layers.py OUT``), so that the
documents name the modules as they were before the split into layers."""

import pickle
import sys

import lower
import schedule as te


def main(out: str) -> None:
    A = te.placeholder((8, 6), name="A")
    B = te.placeholder((6, 4), name="B")
    k = te.reduce_axis((0, 6), name="k")
    C = te.compute((8, 4), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
    D = te.compute((8, 4), lambda i, j: C[i, j] + 1, name="D")
    s = te.create_schedule(D.op)
    CL = s.cache_write(C, "local")
    xo, _ = s[D].split(D.op.axis[0], factor=4)
    s[C].compute_at(s[D], xo)
    s[CL].compute_at(s[D], xo)
    f = lower.lower(s, [A, B, D])
    with open(out + ".json", "w") as fh:
        fh.write(te.save_json((A, B, D, s, f)))
    with open(out + ".pickle", "wb") as fh:
        fh.write(pickle.dumps((A, B, D, s, f)))


if __name__ == "__main__":
    main(sys.argv[1])
