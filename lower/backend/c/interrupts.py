"""Ctrl-C in a C kernel: a SIGINT handler of ours, chained before Python's, counts the signals
in a process-wide counter that every kernel reads (``tb_interrupt``): a kernel compares it, at
each iteration of its outer loops, with the count it started with, skips the rest of its work
once it moved, and returns :data:`INTERRUPTED`; the call then runs Python's handler
(``KeyboardInterrupt``). What the kernel wrote before it stopped stays in its outputs; the rest
is as it was."""

from __future__ import annotations

import _signal  # signal.getsignal wraps this in an enum lookup costing microseconds
import ctypes
import signal
import threading
from typing import Any

from lower.backend.c.compile import compile_c

#: What ``tb_main`` returns when a SIGINT stopped it.
INTERRUPTED = 2

_SOURCE = r"""
#include <signal.h>
#include <stdint.h>
#include <string.h>

int32_t tb_sigint_count = 0;
static struct sigaction tb_previous;

static void tb_on_sigint(int sig, siginfo_t* info, void* context) {
  __atomic_add_fetch(&tb_sigint_count, 1, __ATOMIC_RELAXED);
  if (tb_previous.sa_flags & SA_SIGINFO) {
    if (tb_previous.sa_sigaction) tb_previous.sa_sigaction(sig, info, context);
  } else if (tb_previous.sa_handler != SIG_DFL && tb_previous.sa_handler != SIG_IGN) {
    tb_previous.sa_handler(sig);
  }
}

/* Put our handler in front of the current one: 0 done (or ours already), 1 nothing to chain to
   (the default action or ignored: left as it is), -1 failed. */
int32_t tb_install(void) {
  struct sigaction now, mine;
  if (sigaction(SIGINT, NULL, &now) != 0) return -1;
  if ((now.sa_flags & SA_SIGINFO) && now.sa_sigaction == tb_on_sigint) return 0;
  if (!(now.sa_flags & SA_SIGINFO) && (now.sa_handler == SIG_DFL || now.sa_handler == SIG_IGN)) return 1;
  tb_previous = now;
  memset(&mine, 0, sizeof mine);
  mine.sa_sigaction = tb_on_sigint;
  mine.sa_flags = SA_SIGINFO | (now.sa_flags & SA_RESTART);
  mine.sa_mask = now.sa_mask;
  return sigaction(SIGINT, &mine, NULL) == 0 ? 0 : -1;
}
"""

_SIGINT = int(signal.SIGINT)
_check_signals = ctypes.pythonapi.PyErr_CheckSignals  # runs Python's handlers (holding the GIL)
_check_signals.restype = ctypes.c_int
_lock = threading.Lock()
_state: dict[str, Any] = {}


def _library() -> Any:
    lib = _state.get("lib")
    if lib is None:
        lib = ctypes.CDLL(str(compile_c(_SOURCE, False)))
        lib.tb_install.restype = ctypes.c_int32
        _state["lib"] = lib
        _state["counter"] = ctypes.addressof(ctypes.c_int32.in_dll(lib, "tb_sigint_count"))
    return lib


def attach(kernel_lib: Any) -> None:
    """Point a loaded kernel's ``tb_interrupt`` at the process's SIGINT counter (a kernel whose
    source has none is left alone)."""
    with _lock:
        _library()
        try:
            ctypes.c_void_p.in_dll(kernel_lib, "tb_interrupt").value = _state["counter"]
        except ValueError:
            pass


def ensure_handler() -> None:
    """Our handler in front of Python's SIGINT handler, put back if Python's was replaced
    since (``signal.signal`` installs its own in front of ours)."""
    current = _signal.getsignal(_SIGINT)
    if _state.get("python") is current and "lib" in _state:
        return
    with _lock:
        _library().tb_install()
        _state["python"] = current


def interrupted() -> None:
    """After a kernel stopped at a SIGINT: run Python's handlers, which raise KeyboardInterrupt
    (or what the program's own handler raises); raise KeyboardInterrupt if none did."""
    _check_signals()
    raise KeyboardInterrupt("the kernel stopped at a SIGINT; its outputs hold what it wrote before")
