"""An independent check of our TVMScript: TVM itself (0.25 or later, in a virtual environment
of its own) reads the text we print for a sample of lowered functions, builds it for LLVM and
runs it; its arrays must equal our build's and NumPy's.

    python benchmarks/tvmscript_in_tvm.py --tvm-python /path/to/tvm-venv/bin/python

TVM 0.25+ no longer reads ``T.allocate`` or a ``T.Buffer`` view inside a body, so the text is
printed with ``decl_buffer=True``: views as ``T.decl_buffer`` and allocations as
``T.alloc_buffer``, the forms those versions build. The script writes each case (its text, its
inputs, our outputs and NumPy's) to a folder, then runs itself under TVM's Python on it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np


def cases():
    """(name, schedule, arguments, NumPy's outputs from the inputs) for each function."""
    from tebound.tvm import te, topi

    def vector_add():
        A = te.placeholder((1000,), name="A")
        B = te.placeholder((1000,), name="B")
        C = te.compute((1000,), lambda i: A[i] + B[i], name="C")
        s = te.create_schedule(C.op)
        xo, xi = s[C].split(C.op.axis[0], factor=64)
        s[C].parallel(xo)
        s[C].vectorize(xi)
        return s, [A, B, C], lambda a, b: [a + b]

    def matmul(tiled: bool):
        def make():
            M = 64
            A = te.placeholder((M, M), name="A")
            B = te.placeholder((M, M), name="B")
            k = te.reduce_axis((0, M), name="k")
            C = te.compute((M, M), lambda x, y: te.sum(A[x, k] * B[k, y], axis=k), name="C")
            s = te.create_schedule(C.op)
            if tiled:
                CC = s.cache_write(C, "local")
                xo, yo, xi, yi = s[C].tile(C.op.axis[0], C.op.axis[1], 8, 8)
                s[CC].compute_at(s[C], yo)
                ko, ki = s[CC].split(s[CC].op.reduce_axis[0], factor=4)
                s[CC].reorder(ko, ki, *s[CC].op.axis)
                s[CC].unroll(ki)
                s[C].vectorize(yi)
                s[C].parallel(xo)
            return s, [A, B, C], lambda a, b: [a @ b]
        return make

    def split_tail():
        A = te.placeholder((10, 7), name="A")
        B = te.compute((10, 7), lambda i, j: A[i, j] * 2, name="B")
        C = te.compute((10, 7), lambda i, j: B[i, j] + A[i, j], name="C")
        s = te.create_schedule(C.op)
        xo, xi = s[C].split(C.op.axis[0], factor=4)
        s[B].compute_at(s[C], xo)
        return s, [A, C], lambda a: [a * 3]

    def inline_and_reduce():
        A = te.placeholder((32, 48), name="A")
        B = te.compute((32, 48), lambda i, j: A[i, j] * A[i, j], name="B")
        k = te.reduce_axis((0, 48), name="k")
        C = te.compute((32,), lambda i: te.sum(B[i, k], axis=k), name="C")
        s = te.create_schedule(C.op)
        s[B].compute_inline()
        ko, ki = s[C].split(k, factor=16)
        return s, [A, C], lambda a: [(a * a).sum(axis=1)]

    def conv2d():
        data = te.placeholder((1, 4, 10, 10), name="data")
        kernel = te.placeholder((8, 4, 3, 3), name="kernel")
        out = topi.nn.conv2d_nchw(data, kernel, 1, 1, 1)
        s = te.create_schedule(out.op)

        def ref(d, w):
            padded = np.pad(d, ((0, 0), (0, 0), (1, 1), (1, 1)))
            res = np.zeros((1, 8, 10, 10), "float32")
            for y in range(10):
                for x in range(10):
                    res[0, :, y, x] = np.einsum("chw,ochw->o", padded[0, :, y:y + 3, x:x + 3], w)
            return [res]
        return s, [data, kernel, out], ref

    def softmax():
        x = te.placeholder((6, 20), name="x")
        y = topi.nn.softmax(x)
        s = te.create_schedule(y.op)

        def ref(a):
            e = np.exp(a - a.max(axis=1, keepdims=True))
            return [e / e.sum(axis=1, keepdims=True)]
        return s, [x, y], ref

    yield from (("vector_add", vector_add), ("matmul", matmul(False)), ("matmul_tiled", matmul(True)),
                ("split_tail", split_tail), ("inline_and_reduce", inline_and_reduce), ("conv2d", conv2d),
                ("softmax", softmax))


def write_cases(folder: Path) -> list[str]:
    """Each case's text, inputs, our outputs and NumPy's, under *folder*; their names."""
    import tebound.tvm as tvm
    from lower.ir.script.function import function_script

    names = []
    rng = np.random.default_rng(0)
    for name, make in cases():
        s, args, ref = make()
        func = tvm.lower(s, args, name="main")
        text = function_script(func, decl_buffer=True)
        n_in = len(args) - 1
        shapes = [[int(d) for d in t.shape] for t in args]
        inputs = [rng.uniform(-1, 1, size=shape).astype("float32") for shape in shapes[:n_in]]
        out = np.full(shapes[-1], np.nan, "float32")
        tvm.build(s, args, target="c")(*inputs, out)
        case = folder / name
        case.mkdir(parents=True)
        (case / "main.py").write_text(text)
        np.savez(case / "arrays.npz", *inputs, ours=out, numpy=ref(*inputs)[0])
        (case / "shapes.json").write_text(json.dumps(shapes))
        names.append(name)
    return names


def check_in_tvm(folder: Path) -> int:
    """Run under TVM's Python: read, build and run each case; print a table; the failures."""
    import tvm

    print(f"TVM {tvm.__version__}")
    print("| function | TVM reads it | TVM builds it | TVM = ours | TVM = NumPy (max abs diff) |")
    print("|---|---|---|---|---|")
    failures = 0
    for case in sorted(p for p in folder.iterdir() if p.is_dir()):
        text = (case / "main.py").read_text()
        arrays = np.load(case / "arrays.npz")
        inputs = [arrays[f"arr_{k}"] for k in range(len(arrays.files) - 2)]
        row = [case.name]
        try:
            mod = tvm.script.from_source(text)
            row.append("yes")
            build = tvm.compile if hasattr(tvm, "compile") else tvm.build
            f = build(mod, target="llvm")
            row.append("yes")
            make = tvm.runtime.tensor if hasattr(tvm.runtime, "tensor") else tvm.nd.array
            out = make(np.full(arrays["ours"].shape, np.nan, "float32"))
            f(*(make(x) for x in inputs), out)
            got = out.numpy()
            same = np.allclose(got, arrays["ours"], rtol=1e-5, atol=1e-5)
            row.append("yes" if same else "NO")
            diff = float(np.abs(got - arrays["numpy"]).max())
            row.append(f"{'yes' if diff < 1e-4 else 'NO'} ({diff:.1e})")
            failures += not same or diff >= 1e-4
        except Exception as exc:  # noqa: BLE001 - reported in the table, the run goes on
            row += [f"NO: {type(exc).__name__}: {str(exc).splitlines()[-1][:80]}"] + [""] * (4 - len(row))
            failures += 1
        print("| " + " | ".join(row) + " |")
    return failures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tvm-python", help="the Python of a virtual environment with apache-tvm 0.25+")
    parser.add_argument("--check", type=Path, help=argparse.SUPPRESS)  # run under TVM's Python
    parser.add_argument("--keep", type=Path, help="write the cases here (else a temporary folder)")
    args = parser.parse_args()
    if args.check is not None:
        sys.exit(1 if check_in_tvm(args.check) else 0)
    if not args.tvm_python:
        parser.error("--tvm-python is required (a Python with apache-tvm 0.25+ installed)")
    with tempfile.TemporaryDirectory() as tmp:
        folder = args.keep or Path(tmp)
        names = write_cases(folder)
        print(f"{len(names)} functions printed to {folder}", flush=True)
        run = subprocess.run([args.tvm_python, __file__, "--check", str(folder)], check=False)
        sys.exit(run.returncode)


if __name__ == "__main__":
    main()
