"""Operand maps of XLA's op and fusion cases, parsed from their HLO text.

Cases whose op the library builds must print exactly as XLA prints them; the cases listed in
NOT_YET are known gaps (ops not built yet, or maps that are correct but printed differently).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from bound import output_to_input
from schedule import hlo

CASES = json.loads((Path(__file__).resolve().parent.parent / "data" / "xla_cases.json").read_text())

#: (name, operand) pairs not reproduced yet, with the reason.
NOT_YET = {
    ("GatherOp", 1): "XLA reads a whole index row as one map with a range variable (same relation)",
    ("IotaOp", None): "an op without operands",
    ("ConvolutionOp_BatchGroups", 0): "ours is exact: the batch group follows from the output feature, "
                                      "where XLA adds a range variable",
}



def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


def _text(m) -> str:
    return "unknown indexing" if m.is_undefined else str(m)


def _cases():
    out = []
    for c in CASES["op_cases"]:
        if c["direction"] != "output_to_input" or c.get("use_physical_layout"):
            continue
        key = (c["name"], c["operand"])
        if key in NOT_YET:
            continue
        if "scaled-dot(" in c["hlo"]:
            continue
        out.append(c)
    return out


@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"{c['name']}-{c['operand']}")
def test_op_case_prints_as_xla(case):
    mod = hlo.parse(case["hlo"])
    root = mod.root[case["output_id"]] if isinstance(mod.root, tuple) else mod.root
    operand = mod.operands(root)[case["operand"]]
    expected = case["expected"] if isinstance(case["expected"], list) else [case["expected"]]
    want = sorted(squeeze(e.split("runtime variables:")[0]) for e in expected)
    assert sorted(squeeze(_text(m)) for m in output_to_input(root, operand)) == want


def test_enough_cases_are_covered():
    assert len(_cases()) >= 80


def test_unsupported_hlo_names_the_line_and_the_token():
    with pytest.raises(hlo.HloParseError, match=r"line 3: unsupported op 'frobnicate'"):
        hlo.parse("ENTRY e {\n  p0 = f32[4] parameter(0)\n  ROOT x = f32[4] frobnicate(p0)\n}\n")
    with pytest.raises(hlo.HloParseError, match=r"line 2: unsupported shape 'q9\[4\]'"):
        hlo.parse("ENTRY e {\n  p0 = q9[4] parameter(0)\n}\n")


def _i2o_cases():
    """XLA's input-to-output cases, with the input each one is about (in the order listed)."""
    seen: dict[str, int] = {}
    out = []
    for c in CASES["op_cases"]:
        if c["direction"] != "input_to_output" or c.get("use_physical_layout"):
            continue
        if c["name"] not in ("BroadcastOp", "ReduceOp", "SliceOp", "TransposeOp"):
            continue
        k = seen.get(c["name"], 0)
        seen[c["name"]] = k + 1
        out.append((c, k))
    return out


@pytest.mark.parametrize("case, input_id", _i2o_cases(), ids=lambda c: c["name"] if isinstance(c, dict) else str(c))
def test_input_to_output_case_prints_as_xla(case, input_id):
    from bound import input_to_output

    mod = hlo.parse(case["hlo"])
    root = mod.root
    operand = mod.operands(root)[input_id]
    (m,) = input_to_output(root, operand)
    assert squeeze(str(m)) == squeeze(case["expected"])


def test_gather_index_maps_are_xlas_relation():
    """XLA reads the index row with one map and a range variable; we give one map per column:
    the same relation (checked with isl)."""
    from bound.indexing_map import IndexingMap
    from bound.indexing_text import isl_text
    from bound.isl_bridge import same_relation

    (case,) = [c for c in CASES["op_cases"] if c["name"] == "GatherOp" and c["operand"] == 1]
    mod = hlo.parse(case["hlo"])
    got = output_to_input(mod.root, mod.operands(mod.root)[1])
    assert len(got) == 2
    assert same_relation([isl_text(m) for m in got], [isl_text(IndexingMap.parse(case["expected"]))])
