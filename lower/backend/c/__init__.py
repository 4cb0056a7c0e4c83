"""The C target: C99 emitted from the lowered IR, compiled, cached and called through ctypes."""
