"""Our topi against TVM's own: the outputs TVM computed for the cases of ``tvm_cases.py``
(saved by ``make_tvm_outputs.py``), for the same inputs, all cases in one kernel on each target;
and the detection operators of ``tvm_vision_cases.py`` (``make_tvm_vision_outputs.py``), case by
case."""

from __future__ import annotations

import pathlib
import sys

import numpy as np
import pytest

import schedule as te
import topi
from lower import build

sys.path.insert(0, str(pathlib.Path(__file__).parent))
from tvm_cases import cases  # noqa: E402
from tvm_vision_cases import cases as vision_cases  # noqa: E402

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
    assert len(results) == 74 and str(SAVED["tvm_version"]).startswith("0.")


VISION = np.load(pathlib.Path(__file__).parent / "data" / "tvm_vision_outputs.npz")


@pytest.mark.parametrize("case", vision_cases(), ids=[c[0] for c in vision_cases()])
def test_detection_operators_equal_tvms_output(case):
    name, _, make, defined = case
    arrays = [VISION[key] for key in sorted(k for k in VISION.files if k.startswith(f"{name}/in"))]
    placeholders = [te.placeholder(a.shape, str(a.dtype), name=f"p{k}") for k, a in enumerate(arrays)]
    outs = make(topi, te, *placeholders)
    f = build(te.create_schedule([o.op for o in outs]), [*placeholders, *outs])
    results = [np.full([int(d) for d in o.shape], -7, dtype=o.dtype) for o in outs]
    f(*arrays, *results)
    for k, (got, rows) in enumerate(zip(results, defined)):
        want = VISION[f"{name}/out{k}"]
        if rows is not None:  # only the rows TVM's count says are written
            n = int(results[rows].reshape(-1)[0])
            assert n == int(VISION[f"{name}/out{rows}"].reshape(-1)[0]) and n > 0, name
            got, want = got[:n], want[:n]
        assert got.shape == want.shape, (name, k)
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6, err_msg=f"{name} output {k}")
