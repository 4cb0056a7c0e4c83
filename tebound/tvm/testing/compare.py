"""TVM's ``tvm.testing.CompareBeforeAfter``: a test class names a ``before`` function (TVMScript
without its decorator, a method returning a function, or a fixture), a ``transform`` (a pass,
a method returning one, or a fixture) and an ``expected`` function or exception type; it gets
``test_compare``, which applies the transform and compares structurally (or expects the
exception)."""

from __future__ import annotations

import inspect
import textwrap
from typing import Any

import pytest

from lower.lower import LoweredFunc
from lower.module import IRModule
from lower.transform import Pass
from lower.tvmscript import from_source, python_values
from tebound.tvm.ir.equal import assert_structural_equal


def _is_fixture(x: Any) -> bool:
    return hasattr(x, "_pytestfixturefunction") or type(x).__name__ == "FixtureFunctionDefinition"


def _takes_self(fn: Any) -> bool:
    try:
        return "self" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


def _read(fn: Any) -> LoweredFunc:
    """A function written in TVMScript without ``@T.prim_func``, read from its source."""
    text = "@T.prim_func\n" + textwrap.dedent(inspect.getsource(fn))
    return from_source(text, python_values(fn), inspect.getsourcefile(fn) or "<tvmscript>",
                       fn.__code__.co_firstlineno - 2)


def _function_fixture(value: Any) -> Any:
    if isinstance(value, (LoweredFunc, IRModule)):
        return pytest.fixture(lambda self: value)
    if inspect.isclass(value) and issubclass(value, Exception):
        return pytest.fixture(lambda self: value)
    if inspect.isclass(value):  # a module of plain functions
        def module(self: Any) -> IRModule:
            return IRModule({name: m if isinstance(m, LoweredFunc) else _read(m)
                             for name, m in vars(value).items() if not name.startswith("_")})
        return pytest.fixture(module)
    if _takes_self(value):
        return pytest.fixture(lambda self: value(self))
    return pytest.fixture(lambda self: _read(value))


def _on_function(transform: Pass) -> Any:
    def apply(obj: Any) -> Any:
        if isinstance(obj, IRModule):
            return transform(obj)
        if isinstance(obj, LoweredFunc):
            return transform(IRModule({"main": obj}))["main"]
        raise TypeError(f"CompareBeforeAfter: a transform applies to an IRModule or a PrimFunc, got {type(obj)}")
    return apply


class CompareBeforeAfter:
    """Before, transform, expected: see the module's docstring."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("before", "expected"):
            value = cls.__dict__.get(name)
            if value is not None and not _is_fixture(value):
                setattr(cls, name, _function_fixture(value))
        transform = cls.__dict__.get("transform")
        if transform is None:
            return
        if _is_fixture(transform):
            cls._transform_given = transform
            cls.transform = pytest.fixture(lambda self, _transform_given: _on_function(_transform_given))
        elif isinstance(transform, Pass):
            cls.transform = pytest.fixture(lambda self: _on_function(transform))
        elif callable(transform) and _takes_self(transform):
            cls.transform = pytest.fixture(lambda self: _on_function(transform(self)))
        else:
            raise TypeError("CompareBeforeAfter: transform is a tvm.ir.transform.Pass, or a method or fixture "
                            f"returning one, not {transform!r}")

    def test_compare(self, before: Any, expected: Any, transform: Any) -> None:
        """The transformed ``before`` equals ``expected``, or raises the expected exception."""
        if inspect.isclass(expected) and issubclass(expected, Exception):
            with pytest.raises(expected):
                after = transform(before)
                pytest.fail(f"expected {expected.__name__} from the transform, got\n{after.script()}")
            return
        after = transform(before)
        try:
            assert_structural_equal(after, expected)
        except ValueError as err:
            raise ValueError(f"the transformed function does not equal the expected one:\n"
                             f"{before.script()}\n{after.script()}\n{expected.script()}") from err
