"""Imports only go downward: tebound -> tune -> topi -> lower -> bound -> schedule."""

from __future__ import annotations

import ast
import importlib
from collections.abc import Iterator
from pathlib import Path

import networkx as nx
import pytest

from schedule.base.moved import MODULES, SPLIT

from .import_graph import circles, import_graph, imports, modules
from .layering_report import renamed
from .rooms import ROOMS, room, upward_imports

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = {"schedule": set(), "bound": {"schedule"}, "lower": {"schedule", "bound"},
           "topi": {"schedule", "bound", "lower"}, "tune": {"schedule", "bound", "lower", "topi"},
           "tebound": {"schedule", "bound", "lower", "topi", "tune"}}


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


def test_every_module_of_a_layered_package_has_a_room():
    for name in modules():
        pkg = name.split(".")[0]
        if pkg in ROOMS and room(name) is not None:
            assert room(name) in ROOMS[pkg], f"{name} is in no room of {pkg}; add it to ROOMS or move it"


def test_imports_inside_a_package_only_go_down_its_rooms():
    assert upward_imports(import_graph()) == []


def test_the_room_test_sees_an_upward_import():
    # Mutations: the IR reaching up to the schedule, a pass to the driver, a module to its own face.
    g = import_graph()
    g.add_edge("schedule.ir.expr", "schedule.schedule.stage", top=True, line=0)
    g.add_edge("lower.passes.flatten", "lower.build", top=True, line=0)
    g.add_edge("bound.arith.simplify", "bound", top=False, line=0)
    assert upward_imports(g) == [("bound.arith.simplify", "bound"), ("lower.passes.flatten", "lower.build"),
                                 ("schedule.ir.expr", "schedule.schedule.stage")]


def late_imports(g: nx.DiGraph) -> list[tuple[str, str, int]]:
    """The imports of project modules that run inside a function."""
    return sorted((a, b, d["line"]) for a, b, d in g.edges(data=True) if not d["top"])


def test_no_import_of_the_project_runs_inside_a_function():
    """An import inside a function hides a dependency (or a circle) from the module's header;
    only optional third-party libraries may be imported there."""
    assert late_imports(import_graph()) == []


def test_the_late_import_test_sees_one():
    g = import_graph()
    g.add_edge("lower.layout.layout", "lower.layout.layout_plot", top=False, line=7)
    assert late_imports(g) == [("lower.layout.layout", "lower.layout.layout_plot", 7)]


def not_re_exports(source: str) -> list[int]:
    """The lines of a face's statements other than imports, its docstring and ``__all__``."""
    out = []
    for node in ast.parse(source).body:
        plain = isinstance(node, (ast.Import, ast.ImportFrom)) or (
            isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)) or (
            isinstance(node, ast.Assign) and [getattr(t, "id", None) for t in node.targets] == ["__all__"])
        if not plain:
            out.append(node.lineno)
    return out


def test_a_subpackage_face_only_re_exports():
    for name, path in modules().items():
        if path.name == "__init__.py" and "." in name:
            assert not_re_exports(path.read_text()) == [], f"{path.relative_to(ROOT)}: a face holds only imports"


def test_the_face_test_sees_code():
    face = (ROOT / "bound" / "operation" / "__init__.py").read_text()
    assert not_re_exports(face + "\n_RULES = {}\n\n\ndef register(kind, rules):\n    _RULES[kind] = rules\n") == [
        len(face.splitlines()) + 2, len(face.splitlines()) + 5]


def old_paths(source: str) -> list[str]:
    """The modules named in *source*'s imports that moved (schedule.base.moved), also as
    ``from package import module`` where the package's face does not itself bind the name."""
    old = set(MODULES) | set(SPLIT)
    found = []
    for node, _ in imports(ast.parse(source)):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        else:
            face = vars(importlib.import_module(node.module)) if node.module in ALLOWED else {}
            names = [node.module or "", *(f"{node.module}.{a.name}" for a in node.names if a.name not in face)]
        found += old & set(names)
    return sorted(found)


def test_no_module_uses_an_old_module_path():
    """The old paths are for saved text and pickles only; code names the modules where they are."""
    for path in (p for d in (*ALLOWED, "tests", "tutorials", "benchmarks") for p in (ROOT / d).rglob("*.py")):
        assert old_paths(path.read_text()) == [], path.relative_to(ROOT)


def test_the_old_path_test_sees_one():
    assert old_paths("import numpy\nfrom schedule.tensor import compute\nimport bound.infer\n"
                     "from schedule import packed, compute\n") == ["bound.infer", "schedule.packed", "schedule.tensor"]


#: Packages whose modules import each other in no circle.
WITHOUT_CIRCLES = ["schedule", "bound", "lower", "topi", "tune", "tebound"]


@pytest.mark.parametrize("pkg", WITHOUT_CIRCLES)
def test_no_two_modules_of_a_package_import_each_other_round_a_circle(pkg):
    assert circles(import_graph(), pkg) == []


def test_the_circle_test_sees_a_function_level_import_back():
    # A mutation: lower.ir.stmt importing its printer inside a method (as it did) is a circle.
    g = import_graph()
    g.add_edge("lower.ir.stmt", "lower.ir.printer", top=False, line=0)
    assert circles(g, "lower") == [["lower.ir.printer", "lower.ir.stmt", "lower.ir.stmt_functor"]]


def test_a_checkout_before_the_rooms_is_judged_by_the_same_rooms():
    """tests/layering_report renames a flat checkout's modules to where they went: the import that
    tied the base to the top (checks -> schedule, C12) is then an upward one."""
    g = nx.DiGraph()
    g.add_edge("schedule.checks", "schedule.schedule", top=False, line=1)
    g.add_edge("schedule.stage", "schedule.expr", top=True, line=2)
    g.add_edge("lower.stmt", "lower.printer", top=False, line=3)
    assert sorted(renamed(g).edges) == [("lower.ir.stmt", "lower.ir.printer"),
                                        ("schedule.base.checks", "schedule.schedule.schedule"),
                                        ("schedule.schedule.stage", "schedule.ir.expr")]
    assert upward_imports(renamed(g)) == [("schedule.base.checks", "schedule.schedule.schedule")]
