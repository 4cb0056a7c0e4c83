"""Render each tutorial (``tutorials/*.py``) as a page of the documentation site: its docstring
as the introduction, its code, and what it prints when run.

    python tools/render_tutorials.py           # write docs/tutorials/*.md
    python tools/render_tutorials.py --check   # exit 1 if a page is missing or its code is stale

The pages are checked like every page of the site (``tests/docs/test_pages.py``): their code
runs and must print what the page shows. Lines that differ from run to run (timings in ms)
are shown as ``...``.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TUTORIALS = ROOT / "tutorials"
PAGES = ROOT / "docs" / "tutorials"
#: Modules the tutorials share, which are no tutorial of their own.
HELPERS = {"walkthrough"}
#: A line of output that changes from run to run: a timing, a tuning trial (drawn at random),
#: a fresh temporary folder.
VARIES = re.compile(r"\d+\.\d+ ms\b|^No: \d+\t|" + re.escape(tempfile.gettempdir().rstrip("/") + "/"))


def tutorials() -> list[Path]:
    return sorted(p for p in TUTORIALS.glob("*.py") if p.stem not in HELPERS)


def split_docstring(source: str) -> tuple[str, str, str]:
    """The tutorial's title, the rest of its docstring, and its code after the docstring."""
    tree = ast.parse(source)
    doc = ast.get_docstring(tree) or ""
    first = tree.body[0] if tree.body else None
    code = source
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        code = "\n".join(source.splitlines()[first.end_lineno:]).lstrip("\n")
    title, _, rest = doc.partition("\n\n")
    rest = "\n".join(line for line in rest.splitlines() if not line.strip().startswith("Run: "))
    return title.replace("\n", " ").strip().rstrip("."), rest.strip(), code


def shown_output(text: str) -> str:
    """*text* with each run of lines that vary from run to run shown as one ``...``."""
    out: list[str] = []
    for line in text.rstrip("\n").split("\n"):
        line = line.rstrip()
        if VARIES.search(line):
            if not out or out[-1] != "...":
                out.append("...")
        else:
            out.append(line)
    return "\n".join(out) + "\n"


def page(path: Path, output: str) -> str:
    title, intro, code = split_docstring(path.read_text())
    parts = [f"# {title}", "", f"`tutorials/{path.name}` (run it with `python tutorials/{path.name}`).", ""]
    if intro:
        parts += [intro, ""]
    parts += ["```python", code.rstrip("\n"), "```", "", "It prints:", "", "```text", shown_output(output).rstrip("\n"),
              "```", ""]
    return "\n".join(parts)


def run(path: Path) -> str:
    done = subprocess.run([sys.executable, path.name], cwd=TUTORIALS, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        raise SystemExit(f"{path.name} failed:\n{done.stderr[-2000:]}")
    return done.stdout


def code_of(page_text: str) -> str:
    """The code a rendered page shows."""
    return page_text.split("```python\n", 1)[1].split("\n```\n", 1)[0]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if a page is missing or shows old code")
    args = parser.parse_args()
    stale = []
    PAGES.mkdir(parents=True, exist_ok=True)
    for path in tutorials():
        target = PAGES / f"{path.stem}.md"
        if args.check:
            if not target.is_file() or code_of(target.read_text()) != split_docstring(path.read_text())[2].rstrip("\n"):
                stale.append(target.name)
            continue
        target.write_text(page(path, run(path)))
        print(f"wrote {target.relative_to(ROOT)}")
    if stale:
        print(f"stale: {', '.join(stale)}; run python tools/render_tutorials.py", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
