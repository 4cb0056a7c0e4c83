"""The one change a TVM program needs here, applied mechanically to its source:

- ``import tvm`` (or ``import tvm as x``) becomes ``import tebound.tvm as tvm`` (``as x``);
- ``import tvm.X`` becomes ``import tebound.tvm as tvm; import tebound.tvm.X``;
- ``import tvm, a, b`` becomes ``import tebound.tvm as tvm; import a, b``;
- ``from tvm[.X] import Y`` becomes ``from tebound.tvm[.X] import Y``.

``python -m tests.tvm_rewrite FILE`` prints the rewritten file.
"""

from __future__ import annotations

import re
import sys

_IMPORT = re.compile(r"^(?P<indent>\s*)import\s+tvm(?P<sub>(?:\.\w+)*)(?:\s+as\s+(?P<alias>\w+))?\s*(?P<comment>#.*)?$")
_LIST = re.compile(r"^(?P<indent>\s*)import\s+tvm\s*,\s*(?P<rest>[\w\s,.]+?)\s*(?P<comment>#.*)?$")
_FROM = re.compile(r"^(?P<indent>\s*)from\s+tvm(?P<sub>(?:\.\w+)*)\s+import\s+(?P<rest>.*)$")


def rewrite(source: str) -> str:
    """*source* with its imports of tvm rewritten (nothing else changes)."""
    out = []
    for line in source.split("\n"):
        m = _IMPORT.match(line)
        if m:
            indent, sub, alias = m.group("indent"), m.group("sub"), m.group("alias")
            comment = f"  {m.group('comment')}" if m.group("comment") else ""
            if not sub:
                out.append(f"{indent}import tebound.tvm as {alias or 'tvm'}{comment}")
            elif alias:
                out.append(f"{indent}import tebound.tvm{sub} as {alias}{comment}")
            else:
                out.append(f"{indent}import tebound.tvm as tvm; import tebound.tvm{sub}{comment}")
            continue
        m = _LIST.match(line)
        if m:  # import tvm, inspect, sys
            comment = f"  {m.group('comment')}" if m.group("comment") else ""
            out.append(f"{m.group('indent')}import tebound.tvm as tvm; import {m.group('rest')}{comment}")
            continue
        m = _FROM.match(line)
        if m:
            out.append(f"{m.group('indent')}from tebound.tvm{m.group('sub')} import {m.group('rest')}")
            continue
        out.append(line)
    return "\n".join(out)


if __name__ == "__main__":
    with open(sys.argv[1]) as fh:
        sys.stdout.write(rewrite(fh.read()))
