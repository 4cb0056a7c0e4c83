"""Recursion without Python's call stack, for trees thousands of levels deep.

A recursive traversal written as generators yields where it would recurse: ``result = yield
child``. :func:`drive` runs such generators on an explicit stack, so the depth of the tree
never reaches Python's recursion limit. What is yielded is either another generator (a call)
or an item that *dispatch* turns into a result or a generator (a statement to visit).
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from types import GeneratorType
from typing import Any

Gen = Generator[Any, Any, Any]


def drive(gen: Gen, dispatch: Callable[[Any], Any] | None = None) -> Any:
    """Run *gen* to completion, running what it yields on the same explicit stack.

    Exceptions travel up the stack of generators as they would through calls, so ``try``
    blocks in them see the errors of what they yielded.
    """
    stack = [gen]
    value: Any = None
    error: BaseException | None = None
    while True:
        top = stack[-1]
        try:
            item = top.throw(error) if error is not None else top.send(value)
        except StopIteration as stop:
            stack.pop()
            if not stack:
                return stop.value
            value, error = stop.value, None
            continue
        except BaseException as exc:
            stack.pop()
            if not stack:
                raise
            value, error = None, exc
            continue
        value = error = None
        if type(item) is not GeneratorType:
            if dispatch is None:
                raise TypeError(f"drive: a generator yielded {type(item).__name__}, which is not a call")
            try:
                item = dispatch(item)
            except BaseException as exc:
                error = exc
                continue
            if type(item) is not GeneratorType:
                value = item
                continue
        stack.append(item)


def run(result: Any, dispatch: Callable[[Any], Any] | None = None) -> Any:
    """*result* itself, or what it returns when it is a generator (driven by :func:`drive`)."""
    return drive(result, dispatch) if type(result) is GeneratorType else result
