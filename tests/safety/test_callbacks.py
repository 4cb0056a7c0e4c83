"""Python functions a kernel calls: their errors belong to the call that made them, the first
one stops the calls, Ctrl-C arrives promptly, results convert by one rule on both targets, and
the arrays they are given are safe to keep."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import lower
import schedule as te

from .isolated import ROOT, TARGETS, run


def _calling(name, dtype="float32", n=8):
    """``B[i] = name(A[i], i)``, the function called once per element."""
    A = te.placeholder((n,), name="A")
    B = te.compute((n,), lambda i: te.call_extern(dtype, name, A[i], i), name="B")
    return A, B, te.create_schedule(B.op)


@pytest.mark.parametrize("target", TARGETS)
def test_an_error_belongs_to_the_call_whose_function_raised(target):
    # Four threads call one function; the calls on arrays holding a negative number raise.
    def check_sign(x, i):
        if x < 0:
            raise ArithmeticError(f"negative at {i}")
        time.sleep(0.001)
        return x * 2

    te.register_func("safety.check_sign", check_sign, override=True)
    A, B, s = _calling("safety.check_sign")
    f = lower.build(s, [A, B], target=target)
    outcomes = {}

    def call(k):
        a = np.full(8, k + 1.0, "float32")
        if k % 2:
            a[5] = -1
        b = np.zeros(8, "float32")
        for _ in range(5):
            try:
                f(a, b)
                outcomes.setdefault(k, set()).add(("ok", tuple(b)))
            except ArithmeticError as e:
                outcomes.setdefault(k, set()).add(("error", str(e)))

    threads = [threading.Thread(target=call, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    for k in range(4):
        if k % 2:
            assert outcomes[k] == {("error", "negative at 5")}
        else:
            assert outcomes[k] == {("ok", tuple([2.0 * (k + 1)] * 8))}


@pytest.mark.parametrize("target", TARGETS)
def test_no_function_is_called_after_the_first_error(target):
    calls = []

    def third_fails(x, i):
        calls.append(i)
        if i == 2:
            raise ValueError("the third call fails")
        return x

    te.register_func("safety.third_fails", third_fails, override=True)
    A, B, s = _calling("safety.third_fails")
    f = lower.build(s, [A, B], target=target)
    with pytest.raises(ValueError, match="the third call fails"):
        f(np.ones(8, "float32"), np.zeros(8, "float32"))
    assert calls == [0, 1, 2]


@pytest.mark.parametrize("target", TARGETS)
def test_ctrl_c_stops_a_kernel_that_calls_python_promptly(target):
    # Each call takes 0.3 s and says when it starts; Ctrl-C arrives during the second.
    code = f"""
import signal, sys, time
import numpy as np
import schedule as te
import lower

# A run started in the background of a shell inherits SIGINT ignored, and Python then keeps it
# so; Ctrl-C is what this test sends, so the child takes it as an interactive Python does.
signal.signal(signal.SIGINT, signal.default_int_handler)

def slow(x, i):
    print("call", i, flush=True)
    time.sleep(0.3)
    return x

te.register_func("safety.slow", slow)
A = te.placeholder((8,), name="A")
B = te.compute((8,), lambda i: te.call_extern("float32", "safety.slow", A[i], i), name="B")
f = lower.build(te.create_schedule(B.op), [A, B], target="{target}")
print("ready", flush=True)
try:
    f(np.ones(8, "float32"), np.zeros(8, "float32"))
except KeyboardInterrupt:
    print("interrupted", flush=True)
"""
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, cwd=ROOT)
    assert child.stdout is not None
    lines = []
    for line in child.stdout:
        lines.append(line.strip())
        if line.strip() == "call 1":
            time.sleep(0.1)
            os.kill(child.pid, signal.SIGINT)
    assert child.wait(60) == 0
    assert lines[-1] == "interrupted"
    assert [x for x in lines if x.startswith("call")] == ["call 0", "call 1"]


RESULTS = [
    ("None", "float32", "TypeError", "returned NoneType"),
    ("'text'", "float32", "TypeError", "returned str"),
    ("None", "int32", "TypeError", "returned NoneType"),
    ("2**40 + 5", "int32", "OverflowError", "1099511627781"),
    ("float('nan')", "int32", "ValueError", "NaN"),
    ("float('inf')", "int64", "OverflowError", "inf"),
    ("-1", "uint8", "OverflowError", "-1"),
]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(("value", "dtype", "error", "text"), RESULTS)
def test_a_result_that_is_no_value_of_the_calls_dtype_raises(value, dtype, error, text, target):
    te.register_func("safety.returns", lambda x, i: eval(value), override=True)
    A, B, s = _calling("safety.returns", dtype)
    f = lower.build(s, [A, B], target=target)
    with pytest.raises(getattr(__builtins__, error, None) or eval(error), match=text):
        f(np.ones(8, "float32"), np.zeros(8, dtype))


@pytest.mark.parametrize("target", TARGETS)
def test_results_convert_as_c_converts_them(target):
    te.register_func("safety.results", lambda x, i: [2.9, -2.9, np.float32(7.5), True, np.int64(4), 9,
                                                      -0.5, 2**31 - 1][i], override=True)
    A, B, s = _calling("safety.results", "int32")
    b = np.zeros(8, "int32")
    lower.build(s, [A, B], target=target)(np.ones(8, "float32"), b)
    assert b.tolist() == [2, -2, 7, 1, 4, 9, 0, 2**31 - 1]


@pytest.mark.parametrize("target", TARGETS)
def test_a_function_may_return_anything_where_its_value_is_not_used(target):
    te.register_func("safety.copy_then_none", lambda a, b: np.copyto(b, a), override=True)
    A = te.placeholder((4,), name="A")
    B = te.extern((4,), [A], lambda ins, outs: te.call_packed("safety.copy_then_none", ins[0], outs[0]), name="B")
    b = np.zeros(4, "float32")
    lower.build(te.create_schedule(B.op), [A, B], target=target)(np.arange(4, dtype="float32"), b)
    assert b.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("target", TARGETS)
def test_a_function_cannot_write_the_functions_input(target):
    # Both targets give a function the arrays of the built function's inputs read-only.
    te.register_func("safety.write_input", lambda a, b: a.fill(0), override=True)
    A = te.placeholder((4,), name="A")
    B = te.extern((4,), [A], lambda ins, outs: te.call_packed("safety.write_input", ins[0], outs[0]), name="B")
    a = np.arange(4, dtype="float32")
    with pytest.raises(ValueError, match="read-only"):
        lower.build(te.create_schedule(B.op), [A, B], target=target)(a, np.zeros(4, "float32"))
    assert a.tolist() == [0, 1, 2, 3]


@pytest.mark.parametrize("target", TARGETS)
def test_an_array_kept_after_the_call_holds_what_it_was_given(target):
    # T is the kernel's own buffer, freed when the kernel ends; the function keeps what it got
    # (C once gave it the kernel's memory: reading it later was a use after free).
    got = run("""
        kept = []
        te.register_func("safety.keep", lambda t, out: (kept.append(t), np.copyto(out, t)))

        def main(target):
            A = te.placeholder((256,), name="A")
            T = te.compute((256,), lambda i: A[i] * 2, name="T")
            B = te.extern((256,), [T], lambda ins, outs: te.call_packed("safety.keep", ins[0], outs[0]), name="B")
            f = build(te.create_schedule(B.op), [A, B], target=target)
            for k in range(3):
                f(np.full(256, k, "float32"), np.zeros(256, "float32"))
            junk = [np.full(256, -1.0) for _ in range(1000)]  # reuse the freed memory
            return [np.stack(kept)[:, :3]]
        """, target)
    assert got.arrays == [[[0, 0, 0], [2, 2, 2], [4, 4, 4]]], got
