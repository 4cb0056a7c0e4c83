"""export_library writes a real shared object; load_module loads it again, in this process or a
fresh one, and the loaded function runs the library's own code on NumPy arrays."""

from __future__ import annotations

import hashlib
import subprocess
import sys

import numpy as np
import pytest

import schedule as te
from lower import build, load_module
from lower.backend.c.compile import find_compiler

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")


def _vector_add():
    n = te.var("n")
    A = te.placeholder((n,), name="A")
    B = te.placeholder((n,), name="B")
    C = te.compute((n,), lambda i: A[i] + B[i] * 2, name="C")
    s = te.create_schedule(C.op)
    outer, inner = s[C].split(C.op.axis[0], factor=8)
    s[C].parallel(outer)
    s[C].vectorize(inner)
    return s, [A, B, C]


def test_a_library_loads_in_a_fresh_process_and_computes(tmp_path):
    s, args = _vector_add()
    path = tmp_path / "add.so"
    build(s, args, "llvm", name="myadd").export_library(str(path))
    assert path.read_bytes()[:4] == b"\x7fELF"
    script = (
        "import numpy as np, sys\n"
        "from lower import load_module\n"
        f"f = load_module({str(path)!r})\n"
        "a = np.arange(37, dtype='float32'); b = np.ones(37, 'float32'); c = np.zeros(37, 'float32')\n"
        "f(a, b, c)\n"
        "assert f.entry_name == 'myadd' and f.get_function('myadd') is f\n"
        "np.testing.assert_array_equal(c, a + b * 2)\n"
        "try:\n    f(a, b, np.zeros(36, 'float32'))\nexcept ValueError as e:\n    print('refused:', e)\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("refused:")  # the shapes still bind and are checked


def test_a_loaded_function_runs_the_librarys_code(tmp_path):
    s, args = _vector_add()
    path = tmp_path / "add.so"
    built = build(s, args, "c")
    built.export_library(path)
    f = load_module(path)
    # loaded from a private copy of the file's bytes, named by their hash
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    assert f._kernel._lib._name.endswith(f"k_lib_{digest}.so") and f.get_source() == built.get_source()
    a, b = np.random.default_rng(0).random((2, 100), dtype="float32")
    c = np.full(100, np.nan, "float32")
    f(a, b, c)
    np.testing.assert_array_equal(c, a + b * 2)


def test_what_is_not_such_a_library_is_refused(tmp_path):
    s, args = _vector_add()
    with pytest.raises(ValueError, match="export_library: only a build for the C target"):
        build(s, args, "python").export_library(tmp_path / "x.so")
    junk = tmp_path / "junk.so"
    junk.write_bytes(b"not a library")
    with pytest.raises(ValueError, match="load_module: cannot load"):
        load_module(junk)
    other = tmp_path / "other.so"
    subprocess.run([find_compiler(), "-shared", "-fPIC", "-o", str(other), "-x", "c", "-"],
                   input="int f(void) { return 1; }\n", text=True, check=True)
    with pytest.raises(ValueError, match="is not a library export_library wrote"):
        load_module(other)


def test_an_object_file_linked_by_create_shared_loads_as_a_library(tmp_path):
    """TVM's tensor_expr_get_started: ``f.save("x.o")``, ``cc.create_shared("x.so", ["x.o"])``,
    ``load_module("x.so")``; ``f.save("x.c")`` writes the source."""
    from lower.library import create_shared

    s, args = _vector_add()
    built = build(s, args, "llvm", name="myadd")
    built.save(tmp_path / "add.o")
    built.save(str(tmp_path / "add.c"))
    assert (tmp_path / "add.c").read_text() == built.get_source()
    create_shared(tmp_path / "add.so", [str(tmp_path / "add.o")])
    f = load_module(tmp_path / "add.so")
    a, b = np.random.default_rng(1).random((2, 21), dtype="float32")
    c = np.full(21, np.nan, "float32")
    f(a, b, c)
    np.testing.assert_array_equal(c, a + b * 2)
    assert f.entry_name == "myadd"
    with pytest.raises(ValueError, match=r"saves as '.o' or '.c', not 'ptx'"):
        built.save(tmp_path / "add.ptx")
    with pytest.raises(ValueError, match="at least one object file"):
        create_shared(tmp_path / "none.so", [])
