"""TVM's pytest plugin (``pytest_plugins = ["tvm.testing.plugin"]`` in TVM's ``conftest.py``):
registers the features' marks, gives tests the ``target`` and ``dev`` fixtures (a test taking
``target`` runs once per enabled test target unless it parametrizes ``target`` itself),
parametrizes the fixtures of ``tvm.testing.parameters`` together, and marks each target case
with what its target needs, so a GPU case skips on a machine without one."""

from __future__ import annotations

from typing import Any

import pytest

from lower.backend.nd import device
from lower.target import Target
from tebound.tvm.runtime.convert import kind_enabled
from tebound.tvm.testing import features
from tebound.tvm.testing.targets import target_kind, target_table

_KIND_FEATURE = {"cuda": features.requires_cuda, "rocm": features.requires_rocm, "vulkan": features.requires_vulkan,
                 "nvptx": features.requires_nvptx, "metal": features.requires_metal,
                 "opencl": features.requires_opencl, "llvm": features.requires_llvm,
                 "hexagon": features.requires_hexagon}


def pytest_configure(config: Any) -> None:
    for feature in features.Feature.all_features.values():
        feature._register_marker(config)


def pytest_addoption(parser: Any) -> None:
    parser.addoption("--gtest_args", action="store", default="")


@pytest.fixture
def dev(target: Any) -> Any:
    """The device of the test's target."""
    return device(target_kind(target))


def pytest_generate_tests(metafunc: Any) -> None:
    _parametrize_groups(metafunc)
    if "target" in metafunc.fixturenames:
        _parametrize_target(metafunc)
        for mark in metafunc.definition.iter_markers("parametrize"):
            _mark_target_cases(metafunc, mark, *mark.args, **mark.kwargs)
    if "gtest_args" in metafunc.fixturenames:
        metafunc.parametrize("gtest_args", [metafunc.config.option.gtest_args])


def pytest_collection_modifyitems(config: Any, items: list[Any]) -> None:
    for item in items:
        callspec = getattr(item, "callspec", None)
        for cases, mark in getattr(getattr(item, "function", None), "tvm_marked_cases", []):
            if callspec is not None and callspec.id in cases:
                item.add_marker(mark)
    # TVM orders tests by file and line, so that a cached fixture is freed soon after its test.
    items.sort(key=lambda item: (item.location[0], item.location[1]))


def _parametrize_groups(metafunc: Any) -> None:
    """The fixtures of one ``parameters`` call take their values together."""
    groups: dict[int, dict[str, Any]] = {}
    for name, defs in metafunc.definition._fixtureinfo.name2fixturedefs.items():
        func = defs[-1].func
        group = getattr(func, "parametrize_group", None)
        if group is not None:
            groups.setdefault(group, {"ids": func.parametrize_ids, "params": []})["params"].append(
                (name, func.parametrize_values))
    for group in groups.values():
        names = [name for name, _ in group["params"]]
        if len(names) == 1:
            metafunc.parametrize(names[0], group["params"][0][1], indirect=True, ids=group["ids"])
        else:
            values = list(zip(*[vals for _, vals in group["params"]]))
            metafunc.parametrize(",".join(names), values, indirect=True, ids=group["ids"])


def _parametrize_target(metafunc: Any) -> None:
    named = [arg.strip() for mark in metafunc.definition.iter_markers("parametrize")
             for arg in (mark.args[0].split(",") if isinstance(mark.args[0], str) else mark.args[0])]
    if "target" in named:
        return
    excluded = getattr(metafunc.function, "tvm_excluded_targets", ())
    targets = [row["target"] for row in target_table() if row["target_kind"] not in excluded]
    metafunc.definition.add_marker(pytest.mark.parametrize("target", targets, scope="session"))


def _needs(target: Any) -> list[Any]:
    """The marks of the feature a target's kind needs: a GPU kind skips without a device, and
    a kind this project does not compile skips."""
    kind = target_kind(target)
    if kind == "cuda":
        libs = (target if isinstance(target, Target) else Target(str(target))).attrs.get("libs", [])
        if "cudnn" in libs:
            return features.requires_cudnn.marks()
        if "cublas" in libs:
            return features.requires_cublas.marks()
    feature = _KIND_FEATURE.get(kind)
    if feature is not None:
        return feature.marks()
    return [] if kind_enabled(kind) else [pytest.mark.skip(reason=f"target kind {kind!r} is not supported here")]


def _mark_target_cases(metafunc: Any, mark: Any, argnames: Any, argvalues: Any, *args: Any, **kwargs: Any) -> None:
    names = [a.strip() for a in argnames.split(",") if a.strip()] if isinstance(argnames, str) else list(argnames)
    if "target" not in names:
        return
    at = names.index("target")
    failing = getattr(metafunc.function, "tvm_known_failing_targets", ())
    cases = []
    for value in argvalues:
        if isinstance(value, type(pytest.param(None))):
            values, marks = tuple(value.values), list(value.marks)
        else:
            values, marks = ((value,) if len(names) == 1 else tuple(value)), []
        target = values[at]
        if mark in metafunc.definition.own_markers and target_kind(target) in failing:
            marks.append(pytest.mark.xfail(reason=f'Known failing test for target "{target_kind(target)}"'))
        cases.append(pytest.param(*values, marks=_needs(target) + marks))
    try:
        argvalues[:] = cases
    except TypeError as err:
        raise TypeError(f"{metafunc.function.__name__}: parametrize 'target' with a list, not a tuple, so that "
                        "its cases can be marked with what each target needs") from err
