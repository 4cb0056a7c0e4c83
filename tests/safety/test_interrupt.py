"""Ctrl-C in a long C kernel stops it within a fraction of a second with KeyboardInterrupt (it
used to take effect only when the kernel returned); the same program then runs on."""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
import time

import pytest

from lower.backend.c.compile import find_compiler

from .isolated import ROOT

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")

CHILD = textwrap.dedent("""
    import sys, time
    import numpy as np
    import schedule as te
    from lower import build

    n = 4000  # one call is about a minute on two idle cores (1.6 s at n = 1200)
    A = te.placeholder((n, n), name="A")
    k = te.reduce_axis((0, n), name="k")
    C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * A[k, j] + te.sqrt(A[j, k] + 1.0), axis=k), name="C")
    s = te.create_schedule(C.op)
    s[C].parallel(C.op.axis[0])
    f = build(s, [A, C], "c")
    a = np.ones((n, n), "float32")
    c = np.zeros((n, n), "float32")
    small = np.zeros((4, 4), "float32")
    print("start", flush=True)
    start = time.monotonic()
    try:
        f(a, c)  # a single call: without interrupts, Ctrl-C would wait for all of it
        print("finished", flush=True)
    except KeyboardInterrupt:
        print(f"interrupted {time.monotonic() - start:.3f}", flush=True)
    # the process goes on: a small kernel still runs right
    B = te.placeholder((4, 4), name="B")
    D = te.compute((4, 4), lambda i, j: B[i, j] * 2, name="D")
    g = build(te.create_schedule(D.op), [B, D], "c")
    g(np.ones((4, 4), "float32"), small)
    print("after", float(small.sum()), flush=True)
""")


def test_ctrl_c_stops_a_long_kernel_promptly():
    child = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, cwd=ROOT)
    try:
        assert child.stdout.readline().strip() == "start"
        time.sleep(1.0)
        sent = time.monotonic()
        child.send_signal(signal.SIGINT)
        line = child.stdout.readline().strip()
        stopped = time.monotonic() - sent
        rest = child.stdout.read()
        child.wait(timeout=120)
    finally:
        if child.poll() is None:
            child.kill()
    assert line.startswith("interrupted"), (line, child.stderr.read())
    assert stopped < 15.0  # the call alone runs for a minute or more; a busy machine may still be slow to stop
    assert "after 32.0" in rest and child.returncode == 0
