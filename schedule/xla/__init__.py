"""The XLA side of the DSL: the op library (``ops``), HLO text into those ops (``hlo``), and the
reshape/broadcast rewrites (``rewrite``)."""
