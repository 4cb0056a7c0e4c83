"""TVMScript: the text TVM v0.9-v0.14 prints for lowered functions (see ``expr``)."""
