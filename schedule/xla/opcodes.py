"""The opcodes XLA knows, by the names its HLO text uses.

An instruction whose opcode is not here is refused, as XLA's parser refuses it (a misspelt
``addd`` is not an opaque op). XLA's current opcodes, with the older names its own test files
still use (``cross-replica-sum`` for ``all-reduce``, ``tuple-select``, ``trace``).
"""

from __future__ import annotations

OPCODES = frozenset("""
abs acos acosh add add-dependency after-all all-gather all-gather-done all-gather-start all-reduce
all-reduce-done all-reduce-start all-to-all and asin asinh async-done async-start async-update atan
atan2 atanh batch-norm-grad batch-norm-inference batch-norm-training bitcast bitcast-convert
broadcast call cbrt ceil cholesky clamp count-leading-zeros collective-broadcast collective-permute
collective-permute-done collective-permute-start collective-reduce compare complex concatenate
conditional constant convert convolution copy copy-done copy-start cosine cosh custom-call divide
domain dot dynamic-reshape dynamic-slice dynamic-update-slice erf exponential exponential-minus-one
fft floor fusion gather get-dimension-size get-tuple-element imag infeed iota is-finite log
log-plus-one logistic map maximum minimum mulhi multiply negate not opt-barrier or outfeed pad
parameter partition-id popcnt power ragged-all-to-all ragged-dot real recv recv-done reduce
reduce-precision reduce-scatter reduce-window remainder replica-id reshape reverse rng
rng-bit-generator rng-get-and-update-state round-nearest-afz round-nearest-even rsqrt scaled-dot
scan scatter select select-and-scatter send send-done set-dimension-size shift-left
shift-right-arithmetic shift-right-logical shuffle sign sine sinh slice sort sqrt
stochastic-convert subtract tan tanh topk transpose triangular-solve tuple while xor
cross-replica-sum tuple-select trace
""".split())


def known_opcode(name: str) -> bool:
    """Whether XLA's parser takes *name*: an opcode, or an asynchronous form of one
    (``call-start``, ``custom-call-done`` ...)."""
    if name in OPCODES:
        return True
    for suffix in ("-start", "-update", "-done"):
        if name.endswith(suffix) and name[: -len(suffix)] in OPCODES:
            return True
    return False
