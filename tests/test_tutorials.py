"""Every tutorial runs, agrees with the reference, and prints the document's listings."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from .lower.test_listings import C_AT_D_AT_E, EXAMPLE_4, EXAMPLE_6_FUSED, EXAMPLE_6_ROWS

TUTORIALS = Path(__file__).resolve().parent.parent / "tutorials"
SCRIPTS = sorted(p for p in TUTORIALS.glob("*.py") if p.name != "walkthrough.py")


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
