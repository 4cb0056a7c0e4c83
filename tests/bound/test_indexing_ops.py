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
from bound.indexing.indexing_map import IndexingMap
from schedule import hlo

CASES = json.loads((Path(__file__).resolve().parent.parent / "data" / "xla_cases.json").read_text())

#: (name, operand) pairs not reproduced yet, with the reason.
NOT_YET = {
    ("IotaOp", None): "an op without operands",
    ("ConvolutionOp_BatchGroups", 0): "ours is exact: the batch group follows from the output feature, "
                                      "where XLA adds a range variable",
}

#: cases whose stored text is of XLA's AffineExpr era, printed here in XLA HEAD's term order (a
#: Mul sorts before a variable, so a simplified ``d0 - rt0`` reads ``-rt0 + d0``); same maps
HEAD_ORDER = {
    ("DynamicUpdateSliceOp", 1): "(d0, d1){rt0, rt1} -> (-rt0 + d0, -rt1 + d1), domain: d0 in [0, 19], "
                                 "d1 in [0, 29], rt0 in [0, 15], rt1 in [0, 20]",
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
        out.append(c)
    return out


@pytest.mark.parametrize("case", _cases(), ids=lambda c: f"{c['name']}-{c['operand']}")
def test_op_case_prints_as_xla(case):
    mod = hlo.parse(case["hlo"])
    root = mod.root[case["output_id"]] if isinstance(mod.root, tuple) else mod.root
    operand = mod.operands(root)[case["operand"]]
    expected = case["expected"] if isinstance(case["expected"], list) else [case["expected"]]
    head = HEAD_ORDER.get((case["name"], case["operand"]))
    if head is not None:
        assert IndexingMap.parse(head).same_relation(IndexingMap.parse(expected[0].split("runtime variables:")[0]))
        expected = [head]
    want = sorted(squeeze(e.split("runtime variables:")[0]) for e in expected)
    assert sorted(squeeze(_text(m)) for m in output_to_input(root, operand)) == want


def test_enough_cases_are_covered():
    assert len(_cases()) >= 83


def test_an_op_without_maps_is_opaque_with_undefined_maps():
    mod = hlo.parse("ENTRY e {\n  p0 = f32[4,4] parameter(0)\n  ROOT x = f32[4,4] cholesky(p0)\n}\n")
    (m,) = output_to_input(mod.root, mod["p0"])
    assert m.is_undefined
    assert mod.operands(mod.root) == [mod["p0"]]


def test_an_opcode_xla_does_not_know_is_refused():
    with pytest.raises(hlo.HloParseError, match=r"line 3, column 8: unknown opcode 'frobnicate' in 'x'"):
        hlo.parse("ENTRY e {\n  p0 = f32[4] parameter(0)\n  ROOT x = f32[4] frobnicate(p0)\n}\n")


def test_an_unknown_element_type_names_the_line_and_the_column():
    with pytest.raises(hlo.HloParseError, match=r"line 2, column 8: unknown element type 'q9'"):
        hlo.parse("ENTRY e {\n  p0 = q9[4] parameter(0)\n}\n")


def _i2o_cases():
    return [c for c in CASES["op_cases"] if c["direction"] == "input_to_output" and not c.get("use_physical_layout")]


@pytest.mark.parametrize("case", _i2o_cases(), ids=lambda c: f"{c['name']}-{c['operand']}")
def test_input_to_output_case_prints_as_xla(case):
    """The cases do not say which input they are about: one of the root's inputs must match."""
    from bound import input_to_output

    mod = hlo.parse(case["hlo"])
    root = mod.root[case["operand"]] if isinstance(mod.root, tuple) else mod.root
    texts = [[squeeze(str(m)) for m in input_to_output(root, x)] for x in mod.operands(root)]
    assert [squeeze(case["expected"])] in texts


@pytest.mark.parametrize("case", [c for c in CASES["op_cases"] if c.get("use_physical_layout")],
                         ids=lambda c: f"{c['name']}-{c['direction']}")
def test_physical_layout_cases(case):
    """The maps between physical indices: the op's map between the layouts' permutations."""
    from bound import input_to_output
    from bound.indexing.indexing_map import compose, physical_maps

    mod = hlo.parse(case["hlo"])
    root = mod.root
    x = mod.operands(root)[case["operand"] if case["direction"] == "output_to_input" else 0]
    o_l2p, o_p2l = physical_maps([int(n) for n in root.shape], mod.layout(root))
    i_l2p, i_p2l = physical_maps([int(n) for n in x.shape], mod.layout(x))
    if case["direction"] == "output_to_input":
        got = [compose(compose(o_p2l, m), i_l2p).simplify() for m in output_to_input(root, x)]
    else:
        got = [compose(compose(i_p2l, m), o_l2p).simplify() for m in input_to_output(root, x)]
    assert [squeeze(str(m)) for m in got] == [squeeze(case["expected"])]


def test_epilogue_input_to_output_composes_along_the_uses():
    from bound import input_to_output

    (case,) = CASES["epilogue_cases"]
    mod = hlo.parse(case["hlo"])
    (m,) = input_to_output(mod["log"], mod["t"])
    assert squeeze(str(m)) == squeeze(case["expected"])


def test_grouped_maps_of_tensor_plus_transpose():
    case = CASES["fusion_grouped_cases"][0]
    mod = hlo.parse(case["hlo"])
    for name in ("transpose_p0", "p0"):
        got = sorted(squeeze(str(m)) for m in output_to_input(mod["a0"], mod[name]))
        assert got == sorted(squeeze(e) for e in case["expected_by_instruction"][name])
