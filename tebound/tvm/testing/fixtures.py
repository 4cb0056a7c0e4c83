"""TVM's parametrized tests: ``parameter`` and ``parameters`` (fixtures that take each of their
values in turn), ``fixture`` (a pytest fixture whose value may be cached across the cases of
one test), and the target marks ``parametrize_targets``, ``exclude_targets`` and
``known_failing_targets``. The plugin (``tvm.testing.plugin``) parametrizes tests over them."""

from __future__ import annotations

import copy
import functools
import itertools
import os
import pickle
from collections.abc import Callable, Sequence
from typing import Any

import pytest

_GROUPS = itertools.count()


def parameter(*values: Any, ids: Sequence[str] | None = None, by_dict: dict[str, Any] | None = None) -> Any:
    """A fixture taking each of *values* in turn (or each value of *by_dict*, its key as the id);
    its name is the name it is assigned to in the test module.

    :raises ValueError: when *by_dict* comes with values or ids.
    """
    if by_dict is not None:
        if values or ids:
            raise ValueError("parameter: give the values either as arguments or as by_dict, not both")
        ids, values = tuple(by_dict), tuple(by_dict.values())

    @pytest.fixture(params=values, ids=ids)
    def as_fixture(*_cls: Any, request: Any) -> Any:
        return request.param

    return as_fixture


def parameters(*value_sets: Sequence[Any], ids: Sequence[str] | None = None) -> list[Any]:
    """One fixture per position of the tuples in *value_sets*, parametrized together: a test
    using them gets the tuples one at a time. Needs the plugin."""
    group = next(_GROUPS)
    fixtures = []
    for values in zip(*value_sets):
        def as_fixture(*_cls: Any, request: Any) -> Any:
            return request.param

        as_fixture.parametrize_group = group
        as_fixture.parametrize_values = values
        as_fixture.parametrize_ids = ids
        fixtures.append(pytest.fixture(as_fixture))
    return fixtures


def fixture(func: Callable[..., Any] | None = None, *, cache_return_value: bool = False) -> Any:
    """A pytest fixture; with *cache_return_value*, computed once per set of arguments and given
    to each test as a deep copy (``TVM_TEST_DISABLE_CACHE=1`` turns the cache off)."""
    cache = cache_return_value and os.environ.get("TVM_TEST_DISABLE_CACHE", "0") in ("", "0")

    def wraps(f: Callable[..., Any]) -> Any:
        return pytest.fixture(_cached(f) if cache else f)

    return wraps if func is None else wraps(func)


def _cache_key(args: tuple, kwargs: dict) -> Any:
    try:
        hash((args, tuple(sorted(kwargs.items()))))
        return args, tuple(sorted(kwargs.items()))
    except TypeError:
        try:
            return pickle.dumps((args, kwargs))
        except (TypeError, pickle.PicklingError, AttributeError) as err:
            raise TypeError("tvm.testing.fixture: a cached fixture's arguments must be hashable or picklable") from err


def _cached(func: Callable[..., Any]) -> Callable[..., Any]:
    values: dict[Any, Any] = {}

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        key = _cache_key(args, kwargs)
        if key not in values:
            values[key] = func(*args, **kwargs)
        yield copy.deepcopy(values[key])

    return wrapper


def parametrize_targets(*targets: Any) -> Any:
    """Run the test once per target of *targets*; used bare, over every enabled test target
    (what the plugin does for any test taking ``target``)."""
    if len(targets) == 1 and callable(targets[0]):
        return targets[0]
    return pytest.mark.parametrize("target", list(targets), scope="session")


def _mark_attribute(name: str, kinds: tuple[str, ...]) -> Callable[[Any], Any]:
    def wraps(func: Any) -> Any:
        setattr(func, name, kinds)
        return func

    return wraps


def exclude_targets(*kinds: str) -> Callable[[Any], Any]:
    """Leave the target kinds *kinds* out of the test's automatic target parametrization."""
    return _mark_attribute("tvm_excluded_targets", kinds)


def known_failing_targets(*kinds: str) -> Callable[[Any], Any]:
    """Expect the test to fail on the target kinds *kinds* (xfail)."""
    return _mark_attribute("tvm_known_failing_targets", kinds)


def _mark_cases(*cases: str, marker: Callable[..., Any], reason: str) -> Callable[[Any], Any]:
    def wraps(func: Any) -> Any:
        func.tvm_marked_cases = getattr(func, "tvm_marked_cases", []) + [(set(cases), marker(reason=reason))]
        return func

    return wraps


def xfail_parameterizations(*cases: str, reason: str) -> Callable[[Any], Any]:
    """Expect the test's cases whose id is one of *cases* to fail (the plugin marks them)."""
    return _mark_cases(*cases, marker=pytest.mark.xfail, reason=reason)


def skip_parameterizations(*cases: str, reason: str) -> Callable[[Any], Any]:
    """Skip the test's cases whose id is one of *cases* (the plugin marks them)."""
    return _mark_cases(*cases, marker=pytest.mark.skip, reason=reason)
