"""The commands ``pip install`` puts on the PATH: ``tebound-port`` (a TVM program's imports
rewritten), ``tebound-hlo`` (the indexing maps of an HLO module) and ``tebound-explain``
(what a schedule computes, and its lowered loops)."""
