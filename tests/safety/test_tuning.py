"""Tuning where users run it: workers die with the tuning process (SIGKILL or SIGTERM from
``timeout``, Slurm, ``docker stop``), and a damaged log loses only its damaged lines."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import pytest

from lower.backend.c.compile import find_compiler
from tune import autotvm
from tune.autotvm.record import load_from_file

from .isolated import ROOT

SPIN = """
def spin():
    while True:
        pass
"""


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as f:  # a zombie is dead too
        return f.read().split(")")[-1].split()[0] != "Z"


def _wait_gone(pid: int, seconds: float = 20) -> bool:
    end = time.time() + seconds
    while time.time() < end:
        if not _alive(pid):
            return True
        time.sleep(0.1)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGTERM])
def test_a_worker_busy_with_a_job_dies_with_the_tuning_process(tmp_path, how):
    (tmp_path / "spinning.py").write_text(SPIN)
    code = textwrap.dedent(f"""
        import sys
        sys.path.insert(0, {str(tmp_path)!r})
        import spinning
        from tune import LocalExecutor
        with LocalExecutor(1) as ex:
            ex._workers  # started by run
            import threading
            def report():
                import time
                while not ex._workers:
                    time.sleep(0.05)
                print(ex._workers[0].process.pid, flush=True)
            threading.Thread(target=report, daemon=True).start()
            ex.run(spinning.spin, [()], timeout=600)
    """)
    parent = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert parent.stdout is not None
    worker = int(parent.stdout.readline())
    time.sleep(1.0)  # the worker is at work, at 100% of a core
    assert _alive(worker)
    parent.send_signal(how)
    parent.wait(30)
    assert _wait_gone(worker), f"worker {worker} outlived its parent (killed by {signal.Signals(how).name})"


@pytest.mark.skipif(find_compiler() is None, reason="no C compiler")
def test_sigterm_ends_a_tuning_as_ctrl_c_does(tmp_path):
    # The tuning process gets SIGTERM in the middle of its trials: KeyboardInterrupt, its log
    # intact, its workers stopped.
    log = tmp_path / "tuning.log"
    code = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, "tests")
        from tune import autotvm
        from tune.autotvm import task as task_module
        import schedule as te

        @autotvm.template("safety/slow_matmul")
        def slow_matmul(n):
            A = te.placeholder((n, n), name="A")
            B = te.placeholder((n, n), name="B")
            k = te.reduce_axis((0, n), name="k")
            C = te.compute((n, n), lambda i, j: te.sum(A[i, k] * B[k, j], axis=k), name="C")
            s = te.create_schedule(C.op)
            cfg = autotvm.get_config()
            cfg.define_split("tile", C.op.axis[0], num_outputs=2)
            xo, xi = cfg["tile"].apply(s, C, C.op.axis[0])
            return s, [A, B, C]

        task = autotvm.task.create("safety/slow_matmul", args=(64,))
        tuner = autotvm.tuner.GridSearchTuner(task)
        option = autotvm.measure_option(builder=autotvm.LocalBuilder(n_parallel=1),
                                        runner=autotvm.LocalRunner(number=200, repeat=10))
        def announce(t, inputs, results):
            print("trials", t.trials, flush=True)
        try:
            tuner.tune(n_trial=7, measure_option=option,
                       callbacks=[autotvm.callback.log_to_file({str(log)!r}), announce])
        except KeyboardInterrupt as e:
            print("interrupted:", e, flush=True)
    """)
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=ROOT, start_new_session=True)
    assert child.stdout is not None
    assert child.stdout.readline().startswith("trials 1"), child.stderr.read() if child.stderr else ""
    workers = [int(p) for p in subprocess.run(["pgrep", "-P", str(child.pid)], capture_output=True,
                                                  text=True).stdout.split()]
    child.send_signal(signal.SIGTERM)
    out, _ = child.communicate(timeout=120)
    assert child.returncode == 0 and "interrupted: signal 15 (SIGTERM)" in out
    assert workers and all(_wait_gone(w) for w in workers)
    assert len(list(load_from_file(str(log)))) >= 1


def _record(index: int, costs, error_no: int = 0) -> str:
    return json.dumps({"input": ["c", "safety/log", [4], {}], "config": {"index": index, "code_hash": None,
                                                                        "entity": []},
                       "result": [costs, error_no, 0.5, 1700000000.0], "version": 0.2})


def test_a_damaged_log_loses_only_its_damaged_lines(tmp_path):
    log = tmp_path / "damaged.log"
    lines = [_record(0, [0.001]).encode(), b'{"input": "caf\xe9"}',  # line 2: not UTF-8
             b"[" * 100_000 + b"]" * 100_000,  # line 3: nested too deep for json
             _record(1, [0.002]).encode(), _record(2, [-1.0]).encode(),  # line 5: a negative time
             _record(3, ["fast"]).encode(), _record(4, [float("nan")]).encode(),  # lines 6, 7
             _record(5, ["error: it crashed"], error_no=4).encode(), _record(6, [True]).encode()]
    log.write_bytes(b"\n".join(lines) + b"\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        records = list(load_from_file(str(log)))
    assert [inp.config.index for inp, _ in records] == [0, 1, 5]
    (warning,) = [str(w.message) for w in caught]
    assert "skipped 6 line(s)" in warning
    for number in (2, 3, 5, 6, 7, 9):
        assert f"; {number} (" in warning or f"lines {number} (" in warning
    assert "lines 2 (byte 15 is not UTF-8); 3 (nested too deep); 5 (a successful trial's costs are seconds (numbers, " \
        "0 or more), not [-1.0]); 6 (" in warning


def test_a_negative_cost_is_not_taken_as_the_best(tmp_path):
    log = tmp_path / "negative.log"
    log.write_text(_record(0, [0.002]) + "\n" + _record(1, [-5.0]) + "\n")
    with pytest.warns(UserWarning, match="skipped 1 line"):
        records = list(autotvm.record.load_from_file(str(log)))
    assert [inp.config.index for inp, _ in records] == [0]


@autotvm.template("safety/divides")
def _divides(n):
    import schedule as te

    A = te.placeholder((n,), name="A", dtype="int32")
    B = te.placeholder((n,), name="B", dtype="int32")
    C = te.compute((n,), lambda i: te.floordiv(A[i], B[i]), name="C")
    s = te.create_schedule(C.op)
    cfg = autotvm.get_config()
    cfg.define_knob("vectorize", [0, 1])
    if cfg["vectorize"].val:
        s[C].vectorize(s[C].split(C.op.axis[0], 4)[1])
    return s, [A, B, C]


@pytest.mark.skipif(find_compiler() is None, reason="no C compiler")
def test_a_tuned_kernel_that_divides_by_zero_is_an_error_of_its_trial_not_a_crash():
    import numpy as np

    from tune import LocalExecutor

    task = autotvm.task.create("safety/divides", args=(8,))
    ref = [np.arange(8, dtype="int32"), np.zeros(8, "int32"), np.zeros(8, "int32")]
    results = []
    with LocalExecutor(1) as builders, LocalExecutor(1) as runner:
        option = autotvm.measure_option(builder=autotvm.LocalBuilder(executor=builders),
                                        runner=autotvm.LocalRunner(executor=runner, ref_input=ref, timeout=60))
        autotvm.tuner.GridSearchTuner(task).tune(n_trial=2, measure_option=option,
                                                 callbacks=[lambda t, i, r: results.extend(r)])
        pid = runner._workers[0].process.pid if runner._workers else None
        assert pid is not None and _alive(pid), "the runner's worker survived both trials"
    assert [r.error_no for r in results] == [autotvm.MeasureErrorNo.RUNTIME_DEVICE] * 2
    assert all("ZeroDivisionError: integer division or modulo by zero" in r.error for r in results)
