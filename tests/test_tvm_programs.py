"""TVM programs run here after only the import rewrite of tebound/rewrite.py: each file of
tests/tvm_programs is written as a TVM user writes it (``import tvm``), rewritten, run, and
checks its own results against NumPy."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

from schedule.base import packed
from schedule.ir import extern_calls
from tebound.rewrite import rewrite

PROGRAMS = sorted((Path(__file__).parent / "tvm_programs").glob("*.py"))


def test_the_rewrite_changes_the_imports_and_nothing_else():
    source = ("import tvm\nimport tvm.testing\nimport tvm as t  # the runtime\nfrom tvm import te, tir\nif True:\n"
              "    from tvm.contrib import utils\nx = 'import tvm'\nimport tvmc\nimport tvm, inspect, sys\n")
    assert rewrite(source) == (
        "import tebound.tvm as tvm\nimport tebound.tvm as tvm; import tebound.tvm.testing\n"
        "import tebound.tvm as t  # the runtime\n"
        "from tebound.tvm import te, tir\nif True:\n    from tebound.tvm.contrib import utils\nx = 'import tvm'\nimport tvmc\n"
        "import tebound.tvm as tvm; import inspect; import sys\n")


def test_the_rewrite_takes_every_import_form_and_leaves_strings_alone():
    source = ("import numpy as np, tvm.te as te, sys\nfrom tvm import (\n    te,\n    tir)\n"
              "from  tvm.topi  import nn\nfrom .tvm import x\ndoc = \"\"\"\nimport tvm\n\"\"\"\n"
              "def f():\n    import tvm.topi; import os\n"
              "pytest_plugins = ['tvm.testing.plugin', 'xdist']\nname = 'é'; import tvm\n")
    assert rewrite(source) == (
        "import numpy as np; import tebound.tvm.te as te; import sys\nfrom tebound.tvm import (\n    te,\n    tir)\n"
        "from  tebound.tvm.topi  import nn\nfrom .tvm import x\ndoc = \"\"\"\nimport tvm\n\"\"\"\n"
        "def f():\n    import tebound.tvm as tvm; import tebound.tvm.topi; import os\n"
        "pytest_plugins = ['tebound.tvm.testing.plugin', 'xdist']\nname = 'é'; import tebound.tvm as tvm\n")
    namespace = {}
    exec(compile(rewrite("import numpy as np, tvm.te as te, tvm\nfrom tvm import tir\n"), "<rewritten>", "exec"),
         namespace)
    assert namespace["te"].compute is namespace["tvm"].te.compute and namespace["np"].__name__ == "numpy"


def test_the_rewrite_command_reports_a_file_it_cannot_read(tmp_path, capsys):
    from tebound.rewrite import main

    bad = tmp_path / "bad.py"
    bad.write_text("import tvm\ndef (:\n")
    assert main([str(bad)]) == 1 and "cannot rewrite" in capsys.readouterr().err
    good, out = tmp_path / "good.py", tmp_path / "out.py"
    good.write_text("import tvm\n")
    assert main([str(good), str(out)]) == 0 and out.read_text() == "import tebound.tvm as tvm\n"
    assert main(["--help"]) == 0 and "usage" in capsys.readouterr().out


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
