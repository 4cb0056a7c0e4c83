"""Our topi against TVM's own: the outputs TVM computed for the cases of ``tvm_cases.py``
(saved by ``make_tvm_outputs.py``), for the same inputs, all cases in one kernel on each target."""

from __future__ import annotations

import pathlib
import sys

import numpy as np

import schedule as te
import topi
from lower import build

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from tvm_cases import cases  # noqa: E402

SAVED = np.load(pathlib.Path(__file__).parent / "data" / "tvm_outputs.npz")


def test_every_case_equals_tvms_output():
    inputs, outputs, arrays = [], [], []
    for n, (name, shapes, make) in enumerate(cases()):
        placeholders = [te.placeholder(s, name=f"c{n}_p{k}") for k, s in enumerate(shapes)]
        inputs += placeholders
        arrays += [SAVED[f"{name}/in{k}"] for k in range(len(shapes))]
        outputs.append(make(topi, te, *placeholders))
    f = build(te.create_schedule([o.op for o in outputs]), [*inputs, *outputs])
    results = [np.full([int(d) for d in o.shape], np.nan if o.dtype.startswith("float") else -7, dtype=o.dtype)
               for o in outputs]
    f(*arrays, *results)
    for (name, _, _), got in zip(cases(), results):
        want = SAVED[f"{name}/out"]
        assert got.shape == want.shape, name
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=name)
    assert len(results) == 68 and str(SAVED["tvm_version"]).startswith("0.")
