"""Every tutorial runs, agrees with the reference, and prints the document's listings."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .lower.test_listings import C_AT_D_AT_E, EXAMPLE_4, EXAMPLE_6_FUSED, EXAMPLE_6_ROWS

TUTORIALS = Path(__file__).resolve().parent.parent / "tutorials"
SCRIPTS = sorted(p for p in TUTORIALS.glob("*.py") if p.name not in ("walkthrough.py", "autotvm_matmul_x86.py"))


def run(script: Path) -> str:
    done = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return done.stdout


def squeeze(text: str) -> str:
    return re.sub(r"\s+", "", text)


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.stem)
def test_tutorial_runs_and_matches_the_reference(script):
    out = run(script)
    sections = out.count("==== ")
    if "matches the reference" in out:
        assert out.count("matches the reference: True") == 2 * sections
        assert "matches the reference: False" not in out


def test_example_6_tutorial_prints_both_listings():
    out = squeeze(run(TUTORIALS / "example_6_fuse.py"))
    assert squeeze(EXAMPLE_6_FUSED) in out
    assert squeeze(EXAMPLE_6_ROWS) in out


def test_inferbound_tutorial_prints_the_chain_listing():
    out = squeeze(run(TUTORIALS / "inferbound_examples.py"))
    assert squeeze(C_AT_D_AT_E) in out
    assert squeeze(EXAMPLE_4) in out
    assert "C:[dj,1]x[dk,1]" in out


DOCUMENT_MAPS = [
    "(d0, d1) -> (d0, d1), domain: d0 in [0, 9], d1 in [0, 19]",
    "(d0)[s0, s1] -> (s0, d0, s1), domain: d0 in [0, 19], s0 in [0, 9], s1 in [0, 29]",
    "(d0, d1, d2, d3) -> (d0, d3, d1, d2), domain: d0 in [0, 2], d1 in [0, 5], d2 in [0, 127], d3 in [0, 12287]",
    "(d0, d1, d2, d3) -> (d0, -d1 + 16, -d2 + 8, d3), domain: d0 in [0, 0], d1 in [0, 16], d2 in [0, 8], d3 in [0, 8]",
    "(d0)[s0] -> (s0, d0), domain: d0 in [0, 9], s0 in [0, 255]",
    "()[s0] -> (s0), domain: s0 in [0, 9]",
    "(d0, d1, d2) -> (d0 - 5, (d1 - 3) floordiv 7, d2 floordiv 2), domain: d0 in [5, 9], d1 in [3, 17], "
    "d2 in [0, 48], (d1 - 3) mod 7 in [0, 0], d2 mod 2 in [0, 0]",
    "(d0, d1, d2) -> (d0, d1 - 5, d2), domain: d0 in [0, 1], d1 in [5, 15], d2 in [0, 6]",
    "(d0, d1, d2)[s0] -> (d0, s0, d2), domain: d0 in [0, 3], d1 in [0, 127], d2 in [0, 63], s0 in [0, 255]",
    "(d0, d1) -> ((d0 - 1) floordiv 2, d1 - 4), domain: d0 in [1, 7], d1 in [4, 7], (d0 - 1) mod 2 in [0, 0]",
    "(d0, d1, d2) -> (d2, d0, d1), domain: d0 in [0, 9], d1 in [0, 49], d2 in [0, 19]",
    "(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 1], d1 in [0, 64], d2 in [0, 124], s0 in [0, 124]",
    "(d0, d1, d2) -> (d0, d1, d2), domain: d0 in [0, 9], d1 in [0, 9], d2 in [0, 9]",
    "(d0, d1, d2)[s0] -> (d0, d1, s0), domain: d0 in [0, 3], d1 in [0, 127], d2 in [0, 255], s0 in [0, 63]",
    # the document prints (d0, s0, d1) here; this is the correct inverse
    "(d0, d1, d2)[s0] -> (d0, s0, d2), domain: d0 in [0, 3], d1 in [0, 255], d2 in [0, 63], s0 in [0, 127]",
]


def test_indexing_tutorial_prints_the_documents_maps():
    out = squeeze(run(TUTORIALS / "indexing_maps.py"))
    for m in DOCUMENT_MAPS:
        assert squeeze(m) in out, m


def test_layout_tutorial_prints_the_documents_numbers():
    out = run(TUTORIALS / "tiled_layouts.py")
    assert "element (2, 3) is at 17" in out
    assert "F32[3,5]{1,0:(2,2)}: 24 elements" in out
    assert "[ 1  3  5  7  9 11 13 15]" in out  # Figure 2: 2x1 tiles pair vertical neighbours
    assert "numbers its elements as F32[112,110]{1,0:(2,3)}: True" in out


def test_rewrite_tutorial_reports_the_smaller_reshape():
    out = run(TUTORIALS / "reshape_rewrites.py")
    assert "elements moved by reshapes: 2048 -> 32" in out
    assert "reduce(reshape(reduce(image, [1, 2]), [2, 4, 4]), [1])" in out
    assert "same result: False" not in out


def test_the_autotvm_tutorial_prints_tvms_space_and_tunes():
    out = run(TUTORIALS / "autotvm_matmul_x86.py")
    assert ("ConfigSpace (len=100, range_length=100, space_map=\n"
            "   0 tile_y: Split(policy=factors, product=512, num_outputs=2) len=10\n"
            "   1 tile_x: Split(policy=factors, product=512, num_outputs=2) len=10\n)") in out
    assert out.count("No: ") == 10 and "best of 10 trials" in out and "equals NumPy's" in out
