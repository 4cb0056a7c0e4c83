"""Scenarios run in a fresh interpreter, once per target, so that a crash fails one test
instead of ending the run, and a signal is told apart from an exception."""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from lower.backend.c.compile import find_compiler

ROOT = Path(__file__).resolve().parents[2]

#: The targets a scenario runs on: the checked Python reference, and C where a compiler is found.
TARGETS = ["python", *(["c"] if find_compiler() else [])]

_PRELUDE = """\
import json, sys
import numpy as np
import schedule as te
from lower import build
"""

_EPILOGUE = """
try:
    _out = main(sys.argv[1])
    _arrays = [np.asarray(a).tolist() for a in (_out or [])]
    print("\\n" + json.dumps({"arrays": _arrays}), flush=True)
except BaseException as _e:
    print("\\n" + json.dumps({"error": type(_e).__name__, "message": str(_e)}), flush=True)
"""


@dataclass(frozen=True)
class Outcome:
    """What a scenario ended with: the arrays *main* returned, or the exception it raised."""

    arrays: list | None = None
    error: str | None = None
    message: str = ""
    output: str = ""


def run(body: str, target: str, timeout: float = 300, memory: int | None = None) -> Outcome:
    """Run *body*, which defines ``main(target)`` returning arrays (or raising), in a new
    interpreter on *target*; *memory* caps its address space (bytes), so that a large
    allocation fails whatever the machine has.

    :raises AssertionError: if the interpreter did not end normally (a signal, a crash).
    """
    code = _PRELUDE + textwrap.dedent(body) + _EPILOGUE

    def limit() -> None:
        if memory is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    done = subprocess.run([sys.executable, "-c", code, target], capture_output=True, text=True, cwd=ROOT,
                          timeout=timeout, preexec_fn=limit)
    assert done.returncode == 0, (f"the interpreter ended with {done.returncode} on {target}:\n"
                                  f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return Outcome(result.get("arrays"), result.get("error"), result.get("message", ""), done.stdout)
