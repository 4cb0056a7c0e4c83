"""``export_library`` over a library a process has loaded: the library is replaced by rename,
so the loaded function keeps its code and the process lives; loading the path again gives the
new function (the repro: export, load, export another kernel to the same path, load)."""

from __future__ import annotations

import pytest

from .isolated import run

SCENARIO = """
import os, tempfile
from lower import load_module

def kernel(k):
    A = te.placeholder((4,), name="A")
    B = te.compute((4,), lambda i: A[i] + k, name="B")
    return build(te.create_schedule(B.op), [A, B], "c")

def call(f):
    a = np.arange(4, dtype="float32")
    b = np.zeros(4, dtype="float32")
    f(a, b)
    return b

def main(target):
    path = os.path.join(tempfile.mkdtemp(), "k.so")
    kernel(1.0).export_library(path)
    first = load_module(path)
    before = call(first)
    kernel(2.0).export_library(path)          # while the first is loaded
    after_old = call(first)                   # still the first kernel's code
    second = load_module(path)
    kernel(3.0).export_library(path)
    third = load_module(path)
    return [before, after_old, call(second), call(third), call(first)]
"""


def test_a_reexport_while_loaded_keeps_both_functions_right():
    from lower.backend.c.compile import find_compiler
    if not find_compiler():
        pytest.skip("no C compiler: export_library needs one")
    out = run(SCENARIO, "c")
    assert out.error is None, out.message
    x = [0.0, 1.0, 2.0, 3.0]
    assert out.arrays == [[v + 1 for v in x], [v + 1 for v in x], [v + 2 for v in x], [v + 3 for v in x],
                          [v + 1 for v in x]]
