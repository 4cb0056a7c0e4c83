"""The commands ``pip install`` puts on the PATH, run as a user runs them: as processes, from a
folder outside the checkout."""

from __future__ import annotations

import os
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import tebound

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
COMMANDS = ["tebound-port", "tebound-hlo", "tebound-explain"]


def _run(args, cwd, stdin=None, env=None):
    command = BIN / args[0]
    if not command.is_file():
        pytest.skip(f"{args[0]} is not installed beside {sys.executable} (pip install -e .)")
    return subprocess.run([str(command), *args[1:]], cwd=cwd, input=stdin, capture_output=True, text=True,
                          timeout=120, env=env)


@pytest.mark.parametrize("command", COMMANDS)
def test_every_command_has_help_and_version(command, tmp_path):
    done = _run([command, "--help"], tmp_path)
    assert done.returncode == 0 and done.stdout.startswith(f"usage: {command} ")
    assert "examples:" in done.stdout
    done = _run([command, "--version"], tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == f"{command} (tebound) {tebound.__version__}"
    done = _run([command], tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr and "required" in done.stderr


def test_the_distribution_states_its_license_and_version():
    meta = metadata.metadata("tebound")
    assert meta["Version"] == tebound.__version__
    assert meta["License-Expression"] == "Apache-2.0"
    assert "Apache License" in (ROOT / "LICENSE").read_text() and "Version 2.0" in (ROOT / "LICENSE").read_text()


PROGRAM = """\
import numpy as np, tvm
import tvm.testing
from tvm import te
from tvm.contrib import utils as _utils

n = 64
A = te.placeholder((n,), name="A")
B = te.compute((n,), lambda i: A[i] * 3 + 1, name="B")
s = te.create_schedule(B.op)
xo, xi = s[B].split(B.op.axis[0], factor=8)
f = tvm.build(s, [A, B], "llvm")
a = tvm.nd.array(np.arange(n, dtype="float32"))
b = tvm.nd.array(np.zeros(n, dtype="float32"))
f(a, b)
tvm.testing.assert_allclose(b.numpy(), np.arange(n) * 3 + 1)
print("import tvm stays in strings", float(b.numpy().sum()))
"""


def test_port_checks_rewrites_in_place_with_a_backup_and_the_program_then_runs(tmp_path):
    folder = tmp_path / "tutorials"
    (folder / "deep").mkdir(parents=True)
    (folder / ".cache").mkdir()
    program = folder / "deep" / "vector.py"
    program.write_text(PROGRAM)
    (folder / ".cache" / "skipped.py").write_text("import tvm\n")
    (folder / "plain.py").write_text("import numpy\n")

    check = _run(["tebound-port", "--check", "tutorials"], tmp_path)
    assert check.returncode == 1
    assert check.stdout.splitlines() == [f"would port {Path('tutorials/deep/vector.py')}"]
    assert program.read_text() == PROGRAM

    diff = _run(["tebound-port", "--diff", str(program)], tmp_path)
    assert diff.returncode == 0
    assert "\n-import numpy as np, tvm\n" in diff.stdout and "\n+import numpy as np; import tebound.tvm as tvm\n" in diff.stdout
    assert program.read_text() == PROGRAM

    done = _run(["tebound-port", "tutorials"], tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip() == "1 file ported, 1 unchanged"
    assert (folder / "deep" / "vector.py.bak").read_text() == PROGRAM
    assert (folder / ".cache" / "skipped.py").read_text() == "import tvm\n"
    ported = program.read_text()
    assert "from tebound.tvm import te" in ported and "import tebound.tvm as tvm; import tebound.tvm.testing" in ported
    assert "from tebound.tvm.contrib import utils" in ported and '"import tvm stays in strings"' in ported

    assert _run(["tebound-port", "--check", "tutorials"], tmp_path).returncode == 0
    ran = subprocess.run([sys.executable, str(program)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.strip() == f"import tvm stays in strings {float((__import__('numpy').arange(64) * 3 + 1).sum())}"


def test_port_reports_each_bad_path_in_one_line_and_ports_the_others(tmp_path):
    (tmp_path / "bad.py").write_text("def f(:\n    import tvm\n")
    (tmp_path / "good.py").write_text("import tvm\n")
    (tmp_path / "latin.py").write_bytes(b"# caf\xe9\nimport tvm\n")
    done = _run(["tebound-port", "--no-backup", "bad.py", "missing", "good.py", "latin.py"], tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    errors = [line for line in done.stderr.splitlines() if line.startswith("tebound-port:")]
    assert errors == ["tebound-port: bad.py: line 1: not Python (invalid syntax)",
                      "tebound-port: missing: no such file or folder",
                      "tebound-port: latin.py: not UTF-8 text (byte 5)"]
    assert (tmp_path / "good.py").read_text() == "import tebound.tvm as tvm\n"
    assert not (tmp_path / "good.py.bak").exists()
    piped = _run(["tebound-port", "-"], tmp_path, stdin="import tvm.relay as relay, os\n")
    assert piped.returncode == 0 and piped.stdout == "import tebound.tvm.relay as relay; import os\n"


HLO = """\
HloModule m

ENTRY e {
  p = f32[4,8] parameter(0)
  ROOT t = f32[8,4] transpose(p), dimensions={1,0}
}
"""


def test_hlo_prints_the_maps_and_reports_an_unclosed_brace_where_it_opens(tmp_path):
    (tmp_path / "ok.hlo").write_text(HLO)
    done = _run(["tebound-hlo", "ok.hlo"], tmp_path)
    assert done.returncode == 0
    assert "    operand 0 (p): (d0, d1) -> (d1, d0), domain: d0 in [0, 7], d1 in [0, 3]" in done.stdout.splitlines()
    module = subprocess.run([sys.executable, "-m", "bound.indexing", "ok.hlo"], cwd=tmp_path, capture_output=True,
                            text=True, timeout=120)
    assert module.stdout == done.stdout
    (tmp_path / "open.hlo").write_text(HLO.replace("\n}\n", "\n"))
    done = _run(["tebound-hlo", "open.hlo"], tmp_path)
    assert done.returncode == 1
    assert done.stderr.strip() == "open.hlo: line 3, column 9: computation 'e' opened here is not closed with '}'"


SCHEDULES = """\
import schedule as te

def pipeline():
    A = te.placeholder((16, 16), name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] * 2, name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] + 1, name="C")
    s = te.create_schedule(C.op)
    xo, _ = s[C].split(C.op.axis[0], factor=5)
    s[B].compute_at(s[C], xo)
    return s, [A, C]

def fails():
    raise RuntimeError("no schedule today")
"""


def test_explain_prints_the_report_and_the_loops_of_a_users_schedule(tmp_path):
    (tmp_path / "mine.py").write_text(SCHEDULES)
    done = _run(["tebound-explain", "mine.py:pipeline"], tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "bounds: exact"
    assert lines[2].split() == ["B", "80", "256", "256", "1.00"]  # 5 rows of 16 per outer iteration
    assert "allocate B[float32 * 80]" in done.stdout and "for (i.outer, 0, 4) {" in done.stdout
    faithful = _run(["tebound-explain", "--faithful", "--no-loops", "mine.py:pipeline"], tmp_path)
    assert faithful.stdout.splitlines()[0] == "bounds: faithful" and "produce" not in faithful.stdout
    for spec, message in [("mine.py:fails", "mine.py:fails raised RuntimeError: no schedule today"),
                          ("mine.py:absent", "mine.py has no function 'absent'"),
                          ("nowhere.py:f", "nowhere.py: no such file"),
                          ("mine.py", "expected MODULE:FUNCTION")]:
        done = _run(["tebound-explain", spec], tmp_path)
        assert done.returncode == 2 and done.stderr.startswith(f"tebound-explain: {message}"), done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("name, importing", [("tune", "import tebound.tvm"), ("schedule", "import bound")])
def test_a_package_of_another_distribution_under_our_name_is_refused_with_the_way_out(tmp_path, name, importing):
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("every = 1\n")
    info = tmp_path / f"{name}-9.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 9.1\n")
    (info / "RECORD").write_text(f"{name}/__init__.py,,\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), str(ROOT)])}
    done = subprocess.run([sys.executable, "-c", importing], cwd=tmp_path, capture_output=True, text=True,
                          env=env, timeout=120)
    assert done.returncode == 1
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith(f"ImportError: the package '{name}' found at {tmp_path / name / '__init__.py'} is "
                           f"'{name}' 9.1's, not tebound's")
    assert "python -m venv .venv" in last and f"pip uninstall {name}" in last


def test_the_layering_report_refuses_a_folder_that_is_not_a_checkout(tmp_path):
    done = subprocess.run([sys.executable, "-m", "tests.layering_report", str(tmp_path)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == f"layering_report: {tmp_path} is not a checkout of this project: it has no " \
                                  "schedule package"
