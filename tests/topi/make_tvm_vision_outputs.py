"""Run the detection cases of ``tvm_vision_cases.py`` with TVM's own topi and save inputs and
outputs to ``data/tvm_vision_outputs.npz``, which ``test_tvm_outputs.py`` compares ours with.
Run by hand with TVM installed (not a dependency of the project):
``python tests/topi/make_tvm_vision_outputs.py``."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import tvm
from tvm import te, topi

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from tvm_vision_cases import cases  # noqa: E402


def main() -> None:
    rng = np.random.default_rng(11)
    saved = {"tvm_version": np.array(tvm.__version__)}
    for name, inputs, build, _ in cases():
        arrays = inputs(rng)
        placeholders = [te.placeholder(a.shape, a.dtype, name=f"p{k}") for k, a in enumerate(arrays)]
        outs = build(topi, te, *placeholders)
        f = tvm.compile(te.create_prim_func([*placeholders, *outs]), target="llvm")
        results = [tvm.runtime.tensor(np.zeros([int(d) for d in o.shape], str(o.dtype))) for o in outs]
        f(*[tvm.runtime.tensor(a) for a in arrays], *results)
        saved.update({f"{name}/in{k}": a for k, a in enumerate(arrays)})
        saved.update({f"{name}/out{k}": r.numpy() for k, r in enumerate(results)})
    np.savez_compressed(pathlib.Path(__file__).parent / "data" / "tvm_vision_outputs.npz", **saved)


if __name__ == "__main__":
    main()
