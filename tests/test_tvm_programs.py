"""TVM programs run here after only the import rewrite of tests/tvm_rewrite.py: each file of
tests/tvm_programs is written as a TVM user writes it (``import tvm``), rewritten, run, and
checks its own results against NumPy."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from schedule.base import packed
from schedule.ir import extern_calls

from .tvm_rewrite import rewrite

PROGRAMS = sorted((Path(__file__).parent / "tvm_programs").glob("*.py"))


def test_the_rewrite_changes_the_imports_and_nothing_else():
    source = ("import tvm\nimport tvm.testing\nimport tvm as t  # the runtime\nfrom tvm import te, tir\n"
              "    from tvm.contrib import utils\nx = 'import tvm'\nimport tvmc\nimport tvm, inspect, sys\n")
    assert rewrite(source) == (
        "import tebound.tvm as tvm\nimport tebound.tvm as tvm; import tebound.tvm.testing\n"
        "import tebound.tvm as t  # the runtime\n"
        "from tebound.tvm import te, tir\n    from tebound.tvm.contrib import utils\nx = 'import tvm'\nimport tvmc\n"
        "import tebound.tvm as tvm; import inspect, sys\n")


@pytest.mark.parametrize("path", PROGRAMS, ids=[p.stem for p in PROGRAMS])
def test_a_tvm_program_runs_after_the_rewrite(path, capsys, monkeypatch):
    # What a program registers (functions, lowering rules) stays with it.
    monkeypatch.setattr(packed, "_FUNCS", dict(packed._FUNCS))
    monkeypatch.setattr(extern_calls, "_RULES", dict(extern_calls._RULES))
    source = path.read_text()
    assert re.search(r"^(import|from) tvm\b", source, re.MULTILINE) and "tebound" not in source
    code = compile(rewrite(source), str(path), "exec")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the GPU-semantics notice
        exec(code, {"__name__": "__main__", "__file__": str(path)})
