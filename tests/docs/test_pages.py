"""Every code block of the README and the documentation site runs, and what a page shows as
output is what its code prints.

A page is one session: its Python blocks run in order in one namespace, as a reader pasting
them would run them. A block of output (no language, ``text``, ``c``, or ``mermaid``: a drawing
the page shows) holds what the Python block before it printed: its lines must appear, in order and together, in that output; a line
``...`` stands for any number of lines. Shell blocks run each command from the checkout, all
but the ones the CI itself runs (``pip install``, ``python -m pytest``, ``mkdocs``). A block
after ``<!-- skip: reason -->`` does not run; the reason must say why.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import sys
import warnings
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]
OUTPUT = ("", "text", "c", "mermaid")  # a mermaid block is a drawing the code printed
#: Commands a page shows that the CI runs itself (or that would run the suite inside itself).
NOT_RUN = ("pip install", "python -m pytest", "mkdocs ")
FENCE = re.compile(r"^(`{3,})\s*([\w+-]*)[^\n]*$")


@dataclass
class Block:
    lang: str
    text: str
    line: int
    skip: str | None


def blocks(path: Path) -> list[Block]:
    """The fenced code blocks of the page *path*, each with its language and first line."""
    lines = path.read_text().split("\n")
    out, k = [], 0
    while k < len(lines):
        m = FENCE.match(lines[k])
        if not m:
            k += 1
            continue
        start, fence, lang = k, m.group(1), m.group(2)
        k += 1
        body = []
        while k < len(lines) and lines[k].strip() != fence:
            body.append(lines[k])
            k += 1
        before = "\n".join(lines[max(0, start - 2):start])
        skip = re.search(r"<!-- skip: (.+?) -->", before)
        out.append(Block(lang, "\n".join(body) + "\n", start + 1, skip.group(1) if skip else None))
        k += 1
    return out


def shown_in(shown: str, printed: str) -> bool:
    """Whether the lines of *shown* appear together, in order, in *printed* (``...`` any lines)."""
    parts = []
    for line in shown.rstrip("\n").split("\n"):
        parts.append(r"(?:[^\n]*\n)*?" if line.strip() == "..." else re.escape(line.rstrip()) + r"[ \t]*\n")
    return re.search("".join(parts), "\n".join(x.rstrip() for x in printed.split("\n")) + "\n") is not None


def _page_id(path: Path) -> str:
    return str(path.relative_to(ROOT))


@pytest.mark.parametrize("page", PAGES, ids=_page_id)
def test_every_block_of_the_page_runs_and_prints_what_the_page_shows(page, tmp_path, monkeypatch):
    found = blocks(page)
    namespace: dict = {"__name__": "__main__"}
    printed: str | None = None
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(ROOT / "tutorials"))  # the tutorials' pages import their helper
    for block in found:
        where = f"{_page_id(page)}, line {block.line}"
        if block.skip is not None:
            continue
        if block.lang == "python":
            out = io.StringIO()
            with contextlib.redirect_stdout(out), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    exec(compile(block.text, where, "exec"), namespace)  # noqa: S102 - the page's own code
                except Exception as err:
                    pytest.fail(f"{where}: the block raised {type(err).__name__}: {err}")
            printed = out.getvalue()
        elif block.lang in ("sh", "bash", "console"):
            for command in _commands(block.text):
                done = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=600,
                                      env=_shell_env())
                assert done.returncode == 0, f"{where}: `{command}` failed:\n{done.stderr[-2000:]}"
                printed = done.stdout
        elif block.lang in OUTPUT:
            assert printed is not None, f"{where}: output shown with no code before it"
            assert shown_in(block.text, printed), f"{where}: the page shows\n{block.text}\nbut the code printed\n{printed}"
        else:
            pytest.fail(f"{where}: a block in {block.lang!r}, which no test runs")


def _shell_env() -> dict[str, str]:
    """The environment a page's shell commands run in: this Python's commands first on the
    PATH, and a fixed width for the help texts argparse wraps."""
    path = f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"
    return {**os.environ, "COLUMNS": "80", "PATH": path}


def _commands(text: str) -> list[str]:
    """The commands of a shell block, but those the CI runs itself."""
    out = []
    for line in text.splitlines():
        for part in line.split("&&"):
            part = part.strip()
            if part and not part.startswith("#") and not part.startswith(NOT_RUN):
                out.append(part)
    return out


def test_the_output_matcher_wants_the_lines_together_and_in_order():
    printed = "a\nb\nc\nd\n"
    assert shown_in("b\nc\n", printed) and shown_in("a\n...\nd\n", printed)
    assert not shown_in("c\nb\n", printed) and not shown_in("a\nc\n", printed)
    assert shown_in("b   \n", printed) and not shown_in("x\n", printed)
