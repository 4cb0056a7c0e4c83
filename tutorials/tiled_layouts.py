"""The tiled-layout document's numbers and figures.

Prints where each element of F32[3,5]{1,0:(2,2)} (Figure 1) and F32[4,8]{1,0:(2,4)(2,1)}
(Figure 2) lives in memory, the combined-dimension example, a lowered loop nest whose tiled
loops address the tiled buffer without division, and draws both figures to PNG files.
Run: python tutorials/tiled_layouts.py [output directory]
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

import numpy as np

import schedule as te
from lower import Layout, lower


def show(text: str) -> Layout:
    lay = Layout.parse(text)
    print(f"==== {lay}: {lay.physical_size} elements in memory (tiled shape {list(lay.tiled_dims)})")
    print(lay.linear_indices())
    print()
    return lay


def main(out_dir: Path) -> None:
    fig1 = show("F32[3,5]{1,0:(2,2)}")
    print(f"element (2, 3) is at {fig1.linear_index((2, 3))}")
    print(f"as an indexing map: {fig1.indexing_map()}\n")
    fig2 = show("F32[4,8]{1,0:(2,4)(2,1)}")
    five = Layout.parse("F32[2,7,8,11,10]{4,3,2,1,0:(*,*,2,*,3)}")
    two = Layout.parse("F32[112,110]{1,0:(2,3)}")
    same = np.array_equal(five.linear_indices().reshape(112, 110), two.linear_indices())
    print(f"==== {five} numbers its elements as {two}: {same}\n")

    A = te.placeholder((8, 8), name="A")
    B = te.compute((8, 8), lambda i, j: A[i, j] * 2, name="B")
    C = te.compute((8, 8), lambda i, j: B[i, j] + 1, name="C")
    s = te.create_schedule(C.op)
    s[B].set_layout("{1,0:(2,4)}")
    s[B].tile(B.op.axis[0], B.op.axis[1], 2, 4)
    print("==== B stored in 2x4 tiles: its tiled loops store without division, C's loads divide")
    print(lower(s, [A, C]))

    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        for name, lay in (("figure1.png", fig1), ("figure2.png", fig2)):
            lay.plot(str(out_dir / name))
            print(f"drew {out_dir / name}")
    except ImportError as err:
        print(f"no pictures: {err}")


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else Path(tempfile.gettempdir()) / "tebound_layouts")
