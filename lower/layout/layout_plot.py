"""Pictures of tiled layouts (the document's Figures 1 and 2); matplotlib is optional."""

from __future__ import annotations

from typing import Any

import numpy as np


def plot_layout(layout: Any, path: str, title: str | None = None) -> None:
    """Left: the logical array (leading dimensions stacked as rows), each element labelled with
    its memory position and shaded by the first-level tile it belongs to. Right: memory in
    order, one row per first-level tile, padding in white."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        raise ImportError("Layout.plot needs matplotlib: pip install matplotlib") from None
    dims = layout.dims if len(layout.dims) >= 2 else (1, *layout.dims)
    positions = layout.linear_indices().reshape(int(np.prod(dims[:-1])), dims[-1])
    tile = int(np.prod(layout.tiles[0])) if layout.tiles else positions.size
    rows, cols = positions.shape
    size = layout.physical_size
    per_row = min(tile, size)
    fig, (left, right) = plt.subplots(1, 2, figsize=(2 + cols * 0.6 + per_row * 0.45, 1.5 + rows * 0.6))
    colors = plt.get_cmap("tab20")
    for r in range(rows):
        for c in range(cols):
            p = int(positions[r, c])
            left.add_patch(plt.Rectangle((c, rows - 1 - r), 1, 1, facecolor=colors((p // tile) % 20),
                                         edgecolor="black", linewidth=0.5))
            left.text(c + 0.5, rows - 0.5 - r, str(p), ha="center", va="center", fontsize=8)
    left.set_xlim(0, cols)
    left.set_ylim(0, rows)
    left.set_aspect("equal")
    left.axis("off")
    left.set_title("logical array: memory position of each element", fontsize=9)
    used = {int(p) for p in positions.reshape(-1)}
    lines = -(-size // per_row)
    for p in range(size):
        r, c = divmod(p, per_row)
        face = colors((p // tile) % 20) if p in used else "white"
        right.add_patch(plt.Rectangle((c, lines - 1 - r), 1, 1, facecolor=face, edgecolor="black", linewidth=0.5))
        right.text(c + 0.5, lines - 0.5 - r, str(p), ha="center", va="center", fontsize=7)
    right.set_xlim(0, per_row)
    right.set_ylim(0, lines)
    right.set_aspect("equal")
    right.axis("off")
    right.set_title("memory (white: padding)", fontsize=9)
    fig.suptitle(title or str(layout), fontsize=10)
    fig.savefig(path, dpi=100, bbox_inches="tight")
    plt.close(fig)
