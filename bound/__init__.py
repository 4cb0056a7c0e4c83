"""Bound inference: integer sets, InferBound, the simplifier, indexing maps."""
