"""Running tuning jobs in worker processes, where a crash, a hang or an error costs one job.

A job is a function of an importable module and its (picklable) arguments.
:class:`LocalExecutor` keeps *workers* processes, each a fresh interpreter started with
``subprocess`` (no OpenMP thread state inherited through ``fork``; the main script is not run
again; allowed in a daemonic process such as a Dask worker), hands each a job, and waits at
most the job's timeout: a worker
that overruns is killed and replaced, one that dies is replaced. Every job ends as a
:class:`JobResult`. A worker dies with the process that started it (killed by ``timeout``,
Slurm or ``docker stop``), even in the middle of a job: on Linux the kernel kills it
(``PR_SET_PDEATHSIG``), and everywhere a thread of the worker watches its parent.
"""

from __future__ import annotations

import contextlib
import ctypes
import ctypes.util
import os
import pickle
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any


def check_jobs(fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]], timeout: float) -> None:
    """Refuses jobs a worker process could not receive: *fn* must pickle (a function of an
    importable module, not a lambda or a local function), each job be a tuple of arguments, and
    *timeout* be a positive number of seconds."""
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
        raise ValueError(f"run: timeout is a positive number of seconds, got {timeout!r}")
    if not all(isinstance(job, tuple) for job in jobs):
        raise TypeError("run: each job is a tuple of fn's arguments")
    try:
        pickle.dumps(fn)
    except (pickle.PicklingError, AttributeError, TypeError) as e:
        raise TypeError(f"run: {fn!r} cannot be sent to a worker process ({e}); jobs are functions "
                        f"defined at the top level of an importable module") from None


@dataclass(frozen=True)
class JobResult:
    """How a job ended: ``ok``, ``error`` (it raised: *value* is the message), ``timeout`` or
    ``crash`` (its process died: *value* says how); *seconds* is its wall time."""

    status: str
    value: Any
    seconds: float


#: How often (seconds) a worker checks that the process that started it is alive.
PARENT_CHECK = 0.5
_PR_SET_PDEATHSIG = 1


def _die_with(parent: int) -> None:
    """End this worker when the process *parent* ends (see the module)."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(PARENT_CHECK)
        os._exit(1)
    if os.getppid() != parent:  # it ended before the kernel was asked
        os._exit(1)
    threading.Thread(target=watch, daemon=True, name="parent-watch").start()


def _serve(conn: Connection, parent: int | None = None) -> None:
    """A worker's loop: run each job received, send back its result or its error."""
    if parent is not None:
        _die_with(parent)
    while True:
        try:
            job = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if job is None:
            return
        fn, args = job
        try:
            conn.send(("ok", fn(*args)))
        except BaseException as e:  # noqa: BLE001 - every failure is the job's result
            conn.send(("error", f"{type(e).__name__}: {e}\n{traceback.format_exc(limit=4)}"))


#: What a worker process runs: it takes the parent's ``sys.path`` first (so that it imports
#: what the parent imports), then serves jobs on the socket it was given.
_BOOT = ("import sys\n"
         "from multiprocessing.connection import Connection\n"
         "conn = Connection(int(sys.argv[1]))\n"
         "sys.path[:] = conn.recv()\n"
         "from tune.executor import _serve\n"
         "_serve(conn, int(sys.argv[2]))\n")


class _Worker:
    """A fresh interpreter started with ``subprocess`` and a socket to it: unlike a
    ``multiprocessing`` child, it may be started from a daemonic process (a Dask worker's), and
    it never runs the main script again."""

    def __init__(self) -> None:
        mine, theirs = socket.socketpair()
        with mine, theirs:
            self.process = subprocess.Popen([sys.executable, "-c", _BOOT, str(theirs.fileno()), str(os.getpid())],
                                            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL)
            self.conn = Connection(mine.detach())
        self.conn.send(list(sys.path))

    def exitcode(self) -> int | None:
        try:
            return self.process.wait(1)
        except subprocess.TimeoutExpired:
            return None

    def kill(self) -> None:
        self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(5)
        self.conn.close()

    def stop(self) -> None:
        try:
            self.conn.send(None)
        except (OSError, ValueError):
            pass
        try:
            self.process.wait(2)
        except subprocess.TimeoutExpired:
            self.process.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(5)
        with contextlib.suppress(OSError):  # already closed: a pool stopped twice
            self.conn.close()


class LocalExecutor:
    """*workers* processes on this machine (default: one per core)."""

    def __init__(self, workers: int | None = None) -> None:
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int) or workers < 1):
            raise ValueError(f"LocalExecutor: workers is a positive int, got {workers!r}")
        self.size = workers or os.cpu_count() or 1
        self._workers: list[_Worker] = []

    def run(self, fn: Callable[..., Any], jobs: Sequence[tuple[Any, ...]], timeout: float) -> list[JobResult]:
        """Runs ``fn(*args)`` for each args of *jobs*, up to ``size`` at once; each job gets
        *timeout* seconds. Results come in the order of *jobs*."""
        check_jobs(fn, jobs, timeout)
        while len(self._workers) < min(self.size, len(jobs)):
            self._workers.append(_Worker())
        results: list[JobResult | None] = [None] * len(jobs)
        pending = list(range(len(jobs)))[::-1]
        busy: dict[int, tuple[int, float]] = {}  # worker slot -> (job, start)
        while pending or busy:
            for slot in range(len(self._workers)):
                if slot not in busy and pending:
                    j = pending.pop()
                    try:
                        self._workers[slot].conn.send((fn, jobs[j]))
                    except (OSError, ValueError):  # the worker died between jobs
                        self._replace(slot)
                        self._workers[slot].conn.send((fn, jobs[j]))
                    busy[slot] = (j, time.perf_counter())
            if not busy:
                continue
            now = time.perf_counter()
            wait_for = max(0.0, min(start + timeout - now for _, start in busy.values()))
            ready = wait([self._workers[s].conn for s in busy], timeout=wait_for)
            now = time.perf_counter()
            for slot, (j, start) in list(busy.items()):
                worker = self._workers[slot]
                if worker.conn in ready:
                    try:
                        status, value = worker.conn.recv()
                    except (EOFError, OSError):
                        code = worker.exitcode()
                        status, value = "crash", f"the worker process died (exit code {code})"
                        self._replace(slot)
                    results[j] = JobResult(status, value, now - start)
                    del busy[slot]
                elif now - start >= timeout:
                    results[j] = JobResult("timeout", f"no result within {timeout:g} s", now - start)
                    self._replace(slot, kill=True)
                    del busy[slot]
        return [r for r in results if r is not None]

    def _replace(self, slot: int, kill: bool = False) -> None:
        old = self._workers[slot]
        if kill or old.process.poll() is None:
            old.kill()
        self._workers[slot] = _Worker()

    def close(self) -> None:
        for w in self._workers:
            w.stop()
        self._workers = []

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass
