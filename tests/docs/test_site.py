"""The documentation site builds in strict mode (a broken link or reference fails it), and every
public name its API reference lists has a docstring of its own."""

from __future__ import annotations

import importlib
import inspect
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: The packages the API reference documents (docs/reference/).
FACES = ("schedule", "bound", "lower", "tune", "topi", "tebound.tvm")


def test_the_site_builds_in_strict_mode(tmp_path):
    pytest.importorskip("mkdocs", reason="the docs extra builds the site: pip install -e '.[docs]'")
    pytest.importorskip("mkdocstrings", reason="the docs extra builds the site: pip install -e '.[docs]'")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")],
                          cwd=ROOT, capture_output=True, text=True, timeout=600,
                          env={"NO_MKDOCS_2_WARNING": "1", "PATH": str(Path(sys.executable).parent)})
    assert done.returncode == 0, done.stderr[-3000:]
    for page in ("index.html", "getting-started.html", "reference/schedule.html", "tutorials/example_6_fuse.html"):
        assert (tmp_path / "site" / page).is_file(), page
    assert 'id="schedule.compute"' in (tmp_path / "site" / "reference/schedule.html").read_text()


def _undocumented(face: str) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        module = importlib.import_module(face)
    names = getattr(module, "__all__", None) or [n for n in vars(module) if not n.startswith("_")]
    out = []
    for name in names:
        obj = getattr(module, name)
        if not (inspect.ismodule(obj) or inspect.isclass(obj) or callable(obj)):
            continue
        doc = (obj.__doc__ or "").strip()
        # A dataclass without a docstring gets its signature as one.
        if not doc or (inspect.isclass(obj) and re.match(rf"{re.escape(obj.__name__)}\(", doc)):
            out.append(name)
    return out


@pytest.mark.parametrize("face", FACES)
def test_every_public_name_has_a_docstring(face):
    assert _undocumented(face) == []


def test_every_package_of_the_reference_has_its_page():
    pages = {p.read_text().split(":::", 1)[1].split()[0] for p in (ROOT / "docs" / "reference").glob("*.md")}
    assert pages == set(FACES)


def test_every_tutorial_has_its_page_showing_its_current_code():
    done = subprocess.run([sys.executable, "tools/render_tutorials.py", "--check"], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in (ROOT / "docs" / "tutorials").glob("*.md"):
        assert f"tutorials/{page.name}" in nav, page.name
