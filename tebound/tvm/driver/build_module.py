"""TVM's ``tvm.driver.build_module``: ``lower`` and ``build`` (ours, with TVM's signature, and
TVM v0.13's bounds by default (``exact=False`` under :func:`tvm_rules`) unless the switch says
otherwise: the PassContext key ``"tebound.exact"``, then ``$TEBOUND_EXACT``), so that a TVM
program prints TVM's IR, and ``schedule_to_module``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lower.build import BuiltFunc, build_lowered
from lower.build import build as _build
from lower.ir.stmt import ProducerConsumer
from lower.ir.stmt_functor import ir_transform
from lower.lower import LoweredFunc
from lower.lower import lower as _lower
from lower.module import IRModule
from schedule.base.pass_context import default_exact, tvm_rules
from tebound.tvm.tir.allocations import bare


def lower(inputs: Any, args: Sequence[Any] | None = None, name: str = "main", binds: Any = None,
          simple_mode: bool = False, exact: bool | None = None) -> LoweredFunc:
    """The lowered function of schedule *inputs* over *args*; *name* is kept as its name.
    *simple_mode* is accepted and changes nothing. ``str()`` of the result is TVMScript, as
    TVM v0.9+ prints a module; ``str(result.body)`` is TVM's legacy statement text.

    :raises ValueError: for ``binds`` (buffers given by the caller), which this lowering does
        not take: declare the buffers with ``te.decl_buffer`` in an extern instead.
    """
    if binds:
        raise ValueError("lower: binds= is not supported; declare buffers in te.extern(..., in_buffers=, "
                         "out_buffers=) instead")
    with tvm_rules():
        func = _lower(inputs, list(args or []), simple_mode=True, exact=default_exact("lower", exact, fallback=False))
    func.name = name
    func.printed_as = "module"  # str() is TVMScript, as TVM v0.9+ prints the module
    # TVM v0.7+ lowers to loops without produce markers: mod["main"].body is the outer loop.
    func.body = ir_transform(func.body, None, lambda n: n.body if isinstance(n, ProducerConsumer) else None,
                             ["tir.ProducerConsumer"])
    # ...and since v0.8, an allocation carries its scope itself: no storage_scope attribute.
    func.body = bare(func.body)
    return func


def build(inputs: Any, args: Sequence[Any] | None = None, target: Any = None, target_host: Any = None,
          runtime: Any = None, name: str = "default_function", binds: Any = None,
          exact: bool | None = None) -> BuiltFunc:
    """The compiled function of schedule *inputs* over *args* for *target* (a Target, its text,
    or the enclosing ``with Target(...)``), or of what ``lower`` returned (as it is after any
    pass); *target_host* and *runtime* are accepted: the host is this machine.

    :raises ValueError: for ``binds`` (see :func:`lower`).
    """
    if binds:
        raise ValueError("build: binds= is not supported; declare buffers in te.extern(..., in_buffers=, "
                         "out_buffers=) instead")
    if isinstance(inputs, IRModule) and len(inputs) == 1:
        inputs = next(iter(dict(inputs.items()).values()))
    if isinstance(inputs, LoweredFunc):  # tvm.lower's result, passes applied to it or not
        return build_lowered(inputs, target, name=name)
    with tvm_rules():
        return _build(inputs, list(args or []), target, exact=default_exact("build", exact, fallback=False), name=name)


def schedule_to_module(sch: Any, args: Sequence[Any] | None = None, name: str = "main", binds: Any = None) -> IRModule:
    """The module of *sch* over *args* under *name*, TVM's bounds. Our lowering flattens the
    buffers already, so ``tir.transform.StorageFlatten`` after it changes nothing."""
    return IRModule({name: lower(sch, args, name=name, binds=binds)})
