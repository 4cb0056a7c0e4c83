"""Imports only go downward: tune -> lower -> bound -> schedule."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

from .import_graph import circles, import_graph

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = {"schedule": set(), "bound": {"schedule"}, "lower": {"schedule", "bound"},
           "tune": {"schedule", "bound", "lower"}}


def _imported_packages(tree: ast.AST) -> Iterator[str]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from (alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "use absolute imports"
            if node.module:
                yield node.module.split(".")[0]


@pytest.mark.parametrize("pkg", sorted(ALLOWED))
def test_imports_only_go_downward(pkg):
    files = list((ROOT / pkg).rglob("*.py"))
    assert files, f"package {pkg} has no modules"
    for path in files:
        for top in _imported_packages(ast.parse(path.read_text())):
            assert top == pkg or top not in ALLOWED or top in ALLOWED[pkg], f"{path}: imports {top}"


def test_only_the_isl_package_imports_islpy():
    for path in (p for d in (*ALLOWED, "tutorials", "benchmarks") for p in (ROOT / d).rglob("*.py")):
        if path.parent == ROOT / "bound" / "isl":
            continue
        assert "islpy" not in set(_imported_packages(ast.parse(path.read_text()))), path


#: The passes that are generic over operations (DESIGN.md): they ask each operation's kind.
GENERIC = ["bound/inference/infer.py", "bound/report/explain.py", "bound/report/executions.py", "lower/passes/schedule_ops.py"]
KINDS = {"PlaceholderOp", "ComputeOp", "ExternOp", "ScanOp", "TensorComputeOp"}


@pytest.mark.parametrize("module", GENERIC)
def test_generic_passes_never_name_an_operation_class(module):
    tree = ast.parse((ROOT / module).read_text())
    named = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    named |= {alias.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom) for alias in n.names}
    assert not named & KINDS, f"{module} names {sorted(named & KINDS)}; ask bound.operation / lower.operation"


#: Packages whose modules import each other in no circle (schedule's three remain: issue 32).
WITHOUT_CIRCLES = ["bound", "lower", "tune"]


@pytest.mark.parametrize("pkg", WITHOUT_CIRCLES)
def test_no_two_modules_of_a_package_import_each_other_round_a_circle(pkg):
    assert circles(import_graph(), pkg) == []


def test_the_circle_test_sees_a_function_level_import_back():
    # A mutation: lower.ir.stmt importing its printer inside a method (as it did) is a circle.
    g = import_graph()
    g.add_edge("lower.ir.stmt", "lower.ir.printer", top=False, line=0)
    assert circles(g, "lower") == [["lower.ir.printer", "lower.ir.stmt", "lower.ir.stmt_functor"]]
