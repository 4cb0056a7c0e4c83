"""Einstein summation (TVM's ``topi.einsum``), as NumPy's ``einsum`` computes it: subscripts with
an optional ``->`` output (else the labels used once, in order, after the broadcast ``...``
dimensions), labels repeated within an operand (diagonals), and dimensions of extent 1 broadcast
against the others (a symbolic extent broadcasts when it is 1 at the call)."""

from __future__ import annotations

import string
from typing import Any

import schedule as te
from schedule import Tensor
from schedule.ir import arith
from topi.utils import const_value

_ELLIPSIS = "."  # stands for "..." once the subscripts are parsed


def _parse(subscripts: str, count: int) -> tuple[list[str], str]:
    """The labels of each operand and of the output (``.`` marks the ellipsis)."""
    text = subscripts.replace(" ", "")
    inputs, arrow, output = text.partition("->")
    terms = inputs.split(",")
    if len(terms) != count:
        raise ValueError(f"topi.einsum: subscripts {subscripts!r} name {len(terms)} operands, {count} given")
    terms = [t.replace("...", _ELLIPSIS) for t in terms]
    for t in terms + [output.replace("...", _ELLIPSIS)]:
        bad = [c for c in t if c not in string.ascii_letters + _ELLIPSIS]
        if bad or t.count(_ELLIPSIS) > 1:
            raise ValueError(f"topi.einsum: subscripts {subscripts!r} hold {bad[0] if bad else 'two ellipses'!r}; "
                             "use letters and at most one '...' per term")
    if arrow:
        return terms, output.replace("...", _ELLIPSIS)
    used = "".join(terms).replace(_ELLIPSIS, "")
    once = sorted(c for c in set(used) if used.count(c) == 1)
    return terms, (_ELLIPSIS if any(_ELLIPSIS in t for t in terms) else "") + "".join(once)


def _expand(term: str, ndim: int, width: int, subscripts: str) -> list[str]:
    """*term* with its ellipsis written out as *width* labels ``0``.. (right-aligned)."""
    if _ELLIPSIS not in term:
        if len(term) != ndim:
            raise ValueError(f"topi.einsum: term {term!r} of {subscripts!r} has {len(term)} labels for an operand "
                             f"of {ndim} dimensions")
        return list(term)
    head, tail = term.split(_ELLIPSIS)
    own = ndim - len(head) - len(tail)
    if own < 0:
        raise ValueError(f"topi.einsum: term {term!r} of {subscripts!r} has more labels than its operand's "
                         f"{ndim} dimensions")
    return list(head) + [str(k) for k in range(width - own, width)] + list(tail)


def einsum(subscripts: str, *operand: Tensor) -> Tensor:
    """The sum of products *subscripts* describes over *operand* (NumPy's ``einsum``).

    :raises TypeError: when an operand is not a tensor.
    :raises ValueError: for malformed subscripts, or labels whose extents disagree (neither 1).
    """
    if len(operand) == 1 and isinstance(operand[0], (list, tuple)):
        operand = tuple(operand[0])
    for t in operand:
        if not isinstance(t, Tensor):
            raise TypeError(f"topi.einsum: operands are tensors, not {t!r}")
    terms, output = _parse(subscripts, len(operand))
    width = max([len(t.shape) - len(term.replace(_ELLIPSIS, "")) for t, term in zip(operand, terms)
                 if _ELLIPSIS in term] or [0])
    labels = [_expand(term, len(t.shape), width, subscripts) for t, term in zip(operand, terms)]
    out_labels = _expand(output, width + len(output.replace(_ELLIPSIS, "")), width, subscripts) \
        if _ELLIPSIS in output else list(output)
    extent: dict[str, Any] = {}
    for t, names in zip(operand, labels):
        for name, d in zip(names, t.shape):
            known = extent.get(name)
            if known is None or const_value(known) == 1:
                extent[name] = d
            elif const_value(d) not in (1, None) and const_value(known) not in (None, const_value(d)):
                raise ValueError(f"topi.einsum: label {name!r} of {subscripts!r} has extents {known} and {d}")
    for name in out_labels:
        if name not in extent:
            raise ValueError(f"topi.einsum: output label {name!r} of {subscripts!r} is in no operand")
    summed = [n for n in dict.fromkeys(n for names in labels for n in names) if n not in out_labels]
    reduce_axes = {n: te.reduce_axis((0, extent[n]), name=f"k_{n}") for n in summed}

    def index(name: str, d: Any, at: dict[str, Any]) -> Any:
        i = at[name]
        if d is extent[name] or arith.value_of(arith.sub(d, extent[name])) == 0:
            return i
        if const_value(d) == 1:
            return arith.const(0, i.dtype)
        return arith.floormod(i, d)  # a symbolic extent: broadcast when it is 1

    def element(*idx: Any) -> Any:
        at = {**dict(zip(out_labels, idx)), **{n: r.var for n, r in reduce_axes.items()}}
        product = None
        for t, names in zip(operand, labels):
            value = t[tuple(index(n, d, at) for n, d in zip(names, t.shape))]
            product = value if product is None else product * value
        return te.sum(product, axis=list(reduce_axes.values())) if reduce_axes else product

    return te.compute(tuple(extent[n] for n in out_labels), element, name="T_einsum")
