"""Run the cases of ``tvm_cases.py`` with TVM's own topi and save inputs and outputs to
``data/tvm_outputs.npz``, which ``test_tvm_outputs.py`` compares ours with. Run by hand with
TVM installed (not a dependency of the project): ``python tests/topi/make_tvm_outputs.py``."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import tvm
from tvm import te, topi

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from tvm_cases import cases  # noqa: E402


def main() -> None:
    rng = np.random.default_rng(5)
    saved = {"tvm_version": np.array(tvm.__version__)}
    for name, shapes, build in cases():
        placeholders = [te.placeholder(s, name=f"p{k}") for k, s in enumerate(shapes)]
        arrays = [rng.standard_normal(s).astype("float32") for s in shapes]
        out = build(topi, te, *placeholders)
        f = tvm.compile(te.create_prim_func([*placeholders, out]), target="llvm")
        result = tvm.runtime.empty([int(d) for d in out.shape], out.dtype)
        f(*[tvm.runtime.tensor(a) for a in arrays], result)
        saved.update({f"{name}/in{k}": a for k, a in enumerate(arrays)})
        saved[f"{name}/out"] = result.numpy()
    np.savez_compressed(pathlib.Path(__file__).parent / "data" / "tvm_outputs.npz", **saved)


if __name__ == "__main__":
    main()
