"""XLA-style indexing maps: affine expressions, IndexingMap and its text, its simplifier, the
analysis of ops (output to input), its inverse (input to output), and XLA's intervals."""

from bound.indexing import simplify, text  # noqa: F401 - they give IndexingMap its text, parser and simplifier
