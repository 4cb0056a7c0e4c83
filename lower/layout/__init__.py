"""Physical layouts of buffers: XLA-style tiled layouts (``Layout``), layouts given by an index map,
and their plots. ``lower.layout.Layout`` is the public name."""

from lower.layout.index_map_layout import IndexMapLayout
from lower.layout.layout import Layout

__all__ = ["IndexMapLayout", "Layout"]
