"""TVM's ``tvm.driver.build_module``: ``lower`` and ``build`` (ours, with TVM's signature, and
TVM v0.13's bounds by default (``exact=False`` under :func:`tvm_rules`) unless the switch says
otherwise: the PassContext key ``"tebound.exact"``, then ``$TEBOUND_EXACT``), so that a TVM
program prints TVM's IR, and ``schedule_to_module``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from lower.build import BuiltFunc, build_lowered
from lower.build import build as _build
from lower.built_module import BuiltModule
from lower.ir.stmt import ProducerConsumer
from lower.ir.stmt_functor import ir_transform
from lower.lower import LoweredFunc
from lower.lower import lower as _lower
from lower.module import IRModule, PrimFunc
from lower.prim_func_lowering import lowered_from_prim_func
from lower.target import Target
from schedule import arith
from schedule.base.pass_context import default_exact, lower_passes, tvm_rules
from schedule.ir.buffer import DeclBuffer
from schedule.ir.functor import structural_equal
from tebound.tvm.tir.allocations import bare


def lower(inputs: Any, args: Sequence[Any] | None = None, name: str = "main", binds: Any = None,
          simple_mode: bool = False, exact: bool | None = None) -> LoweredFunc:
    """The lowered function of schedule *inputs* over *args*; *name* is kept as its name.
    *simple_mode* is accepted and changes nothing. ``str()`` of the result is TVMScript, as
    TVM v0.9+ prints a module; ``str(result.body)`` is TVM's legacy statement text. The custom
    passes of the context's ``"tir.add_lower_pass"`` run on it last, in the order of their phases.

    :raises ValueError: for ``binds`` that give a tensor a buffer of another layout than its
        own compact one (see :func:`through_binds`): declare such buffers in an extern.
    """
    args = through_binds(args, binds, "lower")
    with tvm_rules():
        func = _lower(inputs, args, simple_mode=True, exact=default_exact("lower", exact, fallback=False))
    func.name = name
    func.printed_as = "module"  # str() is TVMScript, as TVM v0.9+ prints the module
    # TVM v0.7+ lowers to loops without produce markers: mod["main"].body is the outer loop.
    func.body = ir_transform(func.body, None, lambda n: n.body if isinstance(n, ProducerConsumer) else None,
                             ["tir.ProducerConsumer"])
    # ...and since v0.8, an allocation carries its scope itself: no storage_scope attribute.
    func.body = bare(func.body)
    for custom in lower_passes():  # PassContext(config={"tir.add_lower_pass": [(phase, pass)]})
        func = custom(func)
    return func


def build(inputs: Any, args: Sequence[Any] | None = None, target: Any = None, target_host: Any = None,
          runtime: Any = None, name: str | None = None, binds: Any = None,
          exact: bool | None = None) -> BuiltFunc | BuiltModule:
    """The compiled function of schedule *inputs* over *args* for *target* (a Target, its text,
    or the enclosing ``with Target(...)``), or of what ``lower`` returned (as it is after any
    pass); of a list of those, a module of several or a dict of target -> module, a
    :class:`BuiltModule` of them by name.
    *target_host* and *runtime* are accepted: the host is this machine. The function
    is called *name*; by default, as in TVM, a schedule's is ``default_function`` and a
    lowered function keeps its global symbol (the name ``lower`` gave it).

    :raises ValueError: for ``binds`` of another layout (see :func:`through_binds`).
    """
    args = through_binds(args, binds, "build") if binds else args
    if isinstance(inputs, dict):  # TVM's {target: module}: each module built for its target
        return build_several(per_target(inputs))
    if isinstance(inputs, IRModule) and len(inputs) == 1:
        inputs = next(iter(dict(inputs.items()).values()))
    if isinstance(inputs, (IRModule, list, tuple)):  # several functions: a module of them by name
        funcs = list(inputs.functions.values()) if isinstance(inputs, IRModule) else list(inputs)
        return build_several([(f, target) for f in funcs])
    if isinstance(inputs, LoweredFunc):  # tvm.lower's result, passes applied to it or not
        return build_lowered(inputs, target, name=name or inputs.name)
    if isinstance(inputs, PrimFunc):  # made by hand: named by its global symbol, else "main"
        return build_lowered(inputs, target, name=name or "default_function")
    if lower_passes():  # the custom passes see the function TVM's lower gives them
        return build_lowered(lower(inputs, args, name=name or "default_function", exact=exact), target,
                             name=name or "default_function")
    with tvm_rules():
        return _build(inputs, list(args or []), target, exact=default_exact("build", exact, fallback=False),
                      name=name or "default_function")


def build_several(funcs: list[tuple[Any, Any]]) -> BuiltModule:
    """Each of *funcs* (what ``lower`` returned, with the target to build it for) built, under
    its global symbol.

    :raises TypeError: for anything but lowered functions; :raises ValueError: for none, or two
        of one name.
    """
    built: dict[str, BuiltFunc] = {}
    for f, target in funcs:
        if isinstance(f, PrimFunc):
            f = lowered_from_prim_func(f)
        if not isinstance(f, LoweredFunc):
            raise TypeError(f"build: a module of several functions is built from what tvm.lower returned, "
                            f"not {type(f).__name__}")
        if f.name in built:
            raise ValueError(f"build: two functions are called {f.name!r}; give each its own name "
                             f"(tvm.lower(..., name=))")
        built[f.name] = build_lowered(f, target, name=f.name)
    if not built:
        raise ValueError("build: the module has no function")
    return BuiltModule(built)


def per_target(modules: dict[Any, Any]) -> list[tuple[Any, Any]]:
    """The functions of *modules* (target -> module, a lowered function or a list of them), each
    with its target.

    :raises TypeError: for a key that is not a target.
    """
    funcs: list[tuple[Any, Any]] = []
    for target, mod in modules.items():
        if not isinstance(target, (str, Target)):
            raise TypeError(f"build: a dict maps targets ('llvm', tvm.target.Target(...)) to modules, not {target!r}")
        found = list(mod.functions.values()) if isinstance(mod, IRModule) else \
            list(mod) if isinstance(mod, (list, tuple)) else [mod]
        funcs += [(f, target) for f in found]
    return funcs


def schedule_to_module(sch: Any, args: Sequence[Any] | None = None, name: str = "main", binds: Any = None) -> IRModule:
    """The module of *sch* over *args* under *name*, TVM's bounds. Our lowering flattens the
    buffers already, so ``tir.transform.StorageFlatten`` after it changes nothing."""
    return IRModule({name: lower(sch, args, name=name, binds=binds)})


def through_binds(args: Sequence[Any] | None, binds: Any, where: str) -> list[Any]:
    """*args* with each buffer *binds* gives a tensor replaced by that tensor. A compact buffer
    of the tensor's own shape and dtype is the tensor's array, so the binding changes nothing
    else; any other layout is refused.

    :raises ValueError: naming the buffer and what differs.
    """
    if not binds:
        return list(args or [])
    if not isinstance(binds, dict):
        raise TypeError(f"{where}: binds is a dict of tensor -> buffer (tvm.tir.decl_buffer), not {binds!r}")
    tensor_of: dict[int, Any] = {}
    for tensor, buf in binds.items():
        if not isinstance(buf, DeclBuffer) or not hasattr(tensor, "shape"):
            raise TypeError(f"{where}: binds maps tensors to buffers (tvm.tir.decl_buffer), not {tensor!r}: {buf!r}")
        same_shape = len(buf.shape) == len(tensor.shape) and all(
            structural_equal(a, b) for a, b in zip(buf.shape, tensor.shape))
        compact = not buf.strides and arith.value_of(buf.elem_offset) == 0
        if not (same_shape and compact and buf.dtype == tensor.dtype):
            raise ValueError(f"{where}: binds gives tensor '{tensor.op.name}' the buffer '{buf.name}' with another "
                             f"layout ({'its shape or dtype differ' if compact else 'strides or an element offset'}); "
                             f"only a compact buffer of the tensor's shape and dtype binds here: declare other "
                             f"layouts in te.extern(..., in_buffers=, out_buffers=)")
        tensor_of[id(buf)] = tensor
    return [tensor_of.get(id(a), a) for a in (args or [])]
