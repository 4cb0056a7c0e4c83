"""Maps along every path of an HLO module, in both directions, and the HLO fixes around them:
scalars, window reversal, tuples, declared shapes, and the report command."""

from __future__ import annotations

import subprocess
import sys

import islpy as isl
import numpy as np
import pytest

import schedule as te
from bound import input_to_output, output_to_input, output_to_inputs
from bound.indexing.hlo_maps import main
from bound.indexing.text import isl_text, parse_indexing_map
from lower import build
from schedule import hlo

from ..relations import isl_union

SUBTRACT_MEAN = """
add { a = f32[] parameter(0)
      b = f32[] parameter(1)
      ROOT s = f32[] add(a, b) }
ENTRY e {
  p0 = f32[4,6] parameter(0)
  z = f32[] constant(0)
  r = f32[4] reduce(p0, z), dimensions={1}, to_apply=add
  b = f32[4,6] broadcast(r), dimensions={0}
  ROOT d = f32[4,6] subtract(p0, b)
}
"""


def test_input_to_output_follows_the_direct_and_the_indirect_path():
    mod = hlo.parse(SUBTRACT_MEAN)
    forward = output_to_input(mod.root, mod["p0"])
    backward = input_to_output(mod.root, mod["p0"])
    assert len(forward) == 2 and len(backward) == 2
    # p0[i, j] reaches d[i, j] directly and every d[i, k] through the row sum.
    assert isl_union(forward, reverse=True).is_equal(isl_union(backward))
    assert isl_union(backward).is_equal(isl.Map("{ [i, j] -> [i, k] : 0 <= i < 4 and 0 <= j < 6 and 0 <= k < 6 }"))


def _chain(n: int, diamond: bool) -> str:
    lines = ["ENTRY e {", "  a0 = f32[8] parameter(0)", "  b = f32[8] parameter(1)"]
    for k in range(1, n + 1):
        rhs = f"a{k - 1}" if diamond else "b"
        lines.append(f"  {'ROOT ' if k == n else ''}a{k} = f32[8] add(a{k - 1}, {rhs})")
    return "\n".join([*lines, "}"])


@pytest.mark.parametrize("n, diamond", [(22, True), (1000, False), (1000, True)])
def test_chains_and_diamonds_are_walked_once_per_tensor(n, diamond):
    """add(a, a) repeated n times has 2^n paths; each tensor is visited once, without recursion."""
    mod = hlo.parse(_chain(n, diamond))
    (back,) = input_to_output(mod.root, mod["a0"])
    (fwd,) = output_to_input(mod.root, mod["a0"])
    assert str(back) == str(fwd) == "(d0) -> (d0), domain: d0 in [0, 7]"


def test_output_to_inputs_gives_every_operand_of_a_wide_concatenate():
    n = 64
    params = "\n".join(f"  p{k} = f32[2,3] parameter({k})" for k in range(n))
    names = ", ".join(f"p{k}" for k in range(n))
    mod = hlo.parse(f"ENTRY e {{\n{params}\n  ROOT c = f32[{2 * n},3] concatenate({names}), dimensions={{0}}\n}}")
    maps = output_to_inputs(mod.root, mod.operands(mod.root))
    assert len(maps) == n
    for k in (0, 1, 37, 63):
        (m,) = maps[mod[f"p{k}"]]
        want = parse_indexing_map(f"(d0, d1) -> (d0 - {2 * k}, d1), domain: d0 in [{2 * k}, {2 * k + 1}], "
                                  "d1 in [0, 2]")
        assert m.same_relation(want)


def test_maps_of_scalars_are_relations_to_a_point():
    m = parse_indexing_map("(d0, d1) -> (), domain: d0 in [0, 3], d1 in [0, 2]")
    assert isl_text(m) == "{ [d0, d1] -> [] : 0 <= d0 <= 3 and 0 <= d1 <= 2 }"
    assert m.same_relation(parse_indexing_map("(d0, d1) -> (), domain: d0 in [0, 3], d1 in [0, 2], "
                                              "d0 + d1 in [0, 5]"))
    assert not m.same_relation(parse_indexing_map("(d0, d1) -> (), domain: d0 in [0, 3], d1 in [0, 1]"))
    mod = hlo.parse("ENTRY e {\n  p = f32[4] parameter(0)\n  s = f32[] parameter(1)\n"
                    "  ROOT c = f32[4] clamp(s, p, s)\n}")
    (m,) = output_to_input(mod.root, mod["s"])
    assert m.same_relation(parse_indexing_map("(d0) -> (), domain: d0 in [0, 3]"))


def test_window_reversal_reads_the_kernel_back_to_front():
    mod = hlo.parse("ENTRY e {\n  x = f32[1,7,1] parameter(0)\n  w = f32[3,1,1] parameter(1)\n"
                    "  ROOT c = f32[1,5,1] convolution(x, w), window={size=3 rhs_reversal=1}, "
                    "dim_labels=b0f_0io->b0f\n}")
    x = np.arange(7, dtype="float32").reshape(1, 7, 1)
    w = np.array([1, 10, 100], dtype="float32").reshape(3, 1, 1)
    out = np.zeros((1, 5, 1), "float32")
    build(te.create_schedule(mod.root.op), [mod["x"], mod["w"], mod.root])(x, w, out)
    # reversed: out[i] = sum_k x[i + k] * w[2 - k], a true convolution
    assert np.array_equal(out[0, :, 0], np.convolve(x[0, :, 0], w[:, 0, 0], mode="valid"))
    (m,) = output_to_input(mod.root, mod["w"])
    assert m.same_relation(parse_indexing_map(
        "(d0, d1, d2)[s0, s1] -> (2 - s0, s1, d2), domain: d0 in [0, 0], d1 in [0, 4], d2 in [0, 0], "
        "s0 in [0, 2], s1 in [0, 0]"))


def test_tuples_of_opaque_ops_copies_and_get_tuple_element():
    mod = hlo.parse("""
ENTRY e {
  p = f32[4] parameter(0)
  q = s32[2,3] parameter(1)
  w = (f32[4], (s32[2,3], token[])) custom-call(p, q), custom_call_target="f"
  inner = (s32[2,3], token[]) get-tuple-element(w), index=1
  g = s32[2,3] get-tuple-element(inner), index=0
  t = (f32[4], s32[2,3]) tuple(p, g)
  c = (f32[4], s32[2,3]) copy(t)
  ROOT r = s32[2,3] get-tuple-element(c), index=1
}
""")
    assert [int(n) for n in mod["g"].shape] == [2, 3] and mod["g"].op is mod["w"][0].op
    (m,) = output_to_input(mod["r"], mod["g"])
    assert str(m) == "(d0, d1) -> (d0, d1), domain: d0 in [0, 1], d1 in [0, 2]"
    (u,) = output_to_input(mod["g"], mod["q"])
    assert u.is_undefined
    p = np.arange(4, dtype="float32")
    out = np.zeros(4, "float32")
    build(te.create_schedule(mod["c"][0].op), [mod["p"], mod["c"][0]])(p, out)
    assert np.array_equal(out, p)


@pytest.mark.parametrize("text, message", [
    ("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT a = f32[5] add(p, p)\n}",
     r"line 3, column 8: add 'a' is declared f32\[5\], but its operands give \[4\]"),
    ("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT a = (f32[4], f32[4]) negate(p)\n}",
     r"line 3, column 8: negate 'a' is declared \(f32\[4\], f32\[4\]\)"),
    ("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT a = f32[4] add(p, q)\n}",
     r"line 3, column 26: 'a' uses 'q', which is not defined"),
    ("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT a = f32[4] add(p)\n}",
     r"line 3, column 8: add 'a' takes 2 operands, not 1"),
    ("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT a = f32[4] get-tuple-element(p), index=0\n}",
     r"line 3, column 8: get-tuple-element 'a' reads 'p', which is not a tuple"),
])
def test_hlo_that_xla_rejects_names_the_line_and_column(text, message):
    with pytest.raises(hlo.HloParseError, match=message):
        hlo.parse(text)


def test_the_report_prints_every_instructions_maps(tmp_path, capsys):
    path = tmp_path / "m.hlo"
    path.write_text(SUBTRACT_MEAN)
    assert main([str(path), "--inverse"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "computation e (ENTRY)" in out
    i = out.index("  b = broadcast  (line 9)")
    assert out[i + 1] == "    operand 0 (r): (d0, d1) -> (d0), domain: d0 in [0, 3], d1 in [0, 5]"
    assert out[i + 2].startswith("      inverse: (d0)[s0] -> (d0, s0)")
    bad = tmp_path / "bad.hlo"
    bad.write_text("ENTRY e {\n  p = f32[4] parameter(0)\n  ROOT a = f32[4] add(p, q)\n}")
    assert main([str(bad)]) == 1
    assert "line 3, column 26" in capsys.readouterr().err
    run = subprocess.run([sys.executable, "-m", "bound.indexing", str(path)], capture_output=True, text=True,
                         check=True)
    assert "    operand 0 (p0): (d0, d1) -> (d0, d1), domain: d0 in [0, 3], d1 in [0, 5]" in run.stdout
