"""``build``: a lowered schedule as a Python callable on NumPy arrays."""

from __future__ import annotations

import os
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from bound.operation.registry import bounds_of
from lower.arguments import check_bound_vars
from lower.backend.c.compile import find_compiler
from lower.backend.c.realign import Spares, realigned, updated_in_place
from lower.backend.cuda.driver import cuda_driver, present_arch
from lower.backend.cuda.module import CudaModule, cuda_limits
from lower.backend.cuda.runner import GpuRunner
from lower.backend.targets import TARGETS
from lower.binding import bind_shapes, check_array
from lower.call_checks import CallChecks
from lower.fast_call import fast_call
from lower.ir.stmt import Load, Store
from lower.ir.stmt_functor import buffers_passed_to_calls, post_order_visit, stored_buffers
from lower.library import read_library, write_library, write_object
from lower.lower import LoweredFunc, collector_paused, lower_quietly
from lower.module import PrimFunc
from lower.passes.intrin_lowering import lower_intrinsics
from lower.passes.remove_assume import remove_assume
from lower.passes.scalarize import scalarize_vectors
from lower.passes.tensor_core import expand_wmma
from lower.prim_func_lowering import lowered_from_prim_func
from lower.target import CPU_KINDS, GPU_KINDS, Target, warn_gpu_semantics
from lower.timing import time_evaluator
from schedule.base.checks import check_flag
from schedule.base.errors import ScheduleError
from schedule.base.pass_context import default_exact
from schedule.base.serialize import load_json, save_json
from schedule.ir.expr import Var
from schedule.operation.tensor import Tensor
from schedule.schedule.schedule import Schedule, check_schedule

#: The environment variable that names the default target.
TARGET_VARIABLE = "TEBOUND_TARGET"

class CompilerWarning(UserWarning):
    """The C target was asked for or preferred, but no C compiler was found."""


def as_target(target: Any) -> Target | str | None:
    """*target* as our target name (``"c"``, ``"python"``) or a TVM :class:`Target` (text naming
    a TVM kind, case-insensitive, becomes one); None stays None.

    :raises ValueError: for text naming no target, listing those there are.
    """
    if target is None or isinstance(target, Target):
        return target
    if isinstance(target, dict):
        return Target(target)
    if not isinstance(target, str):
        raise TypeError(f"build: target is text such as 'llvm' or 'c', or a Target, not {target!r}")
    first = target.split(" ")[0].lower() if target.strip() else ""
    if first == "python" and target.strip() == "python":
        return "python"
    if first in CPU_KINDS or first in GPU_KINDS:
        return Target(target)
    known = ", ".join(map(repr, ["python", *CPU_KINDS, *GPU_KINDS]))
    raise ValueError(f"build: no target {target!r}; the targets are {known}")


def choose_target(target: Any, checks: bool | None) -> tuple[str, Target | None]:
    """The target a build runs on, and the TVM :class:`Target` asked for if any: *target* if
    given; else the enclosing ``with Target(...)``; else ``$TEBOUND_TARGET``; else the checked
    Python target when *checks* is True, and C otherwise. A TVM target runs on C (a GPU kind
    with a GPU's semantics, warned once). C without a compiler falls back to Python with a
    :class:`CompilerWarning`.
    """
    where = "target"
    if target is None and not checks:
        target = Target.current()
    if target is None:
        target = "python" if checks else os.environ.get(TARGET_VARIABLE) or "c"
        where = f"${TARGET_VARIABLE}"
    try:
        chosen = as_target(target)
    except ValueError as err:
        raise ValueError(str(err).replace("build: ", f"build: {where}: ", 1)) from None
    tvm_target = chosen if isinstance(chosen, Target) else None
    if tvm_target is not None:
        if not (tvm_target.kind.name == "cuda" and present_arch()):
            warn_gpu_semantics(tvm_target)  # with a GPU, a CUDA build runs there
        chosen = "c"
    if chosen == "c" and checks:
        raise ValueError("build: checks=True asks for the checked execution, which target='python' runs; "
                         "pass target='python', or checks=False for C")
    if chosen == "c" and find_compiler() is None:
        warnings.warn("build: no C compiler found (set CC, or install cc or gcc); running on the slower "
                      "Python target instead", CompilerWarning, stacklevel=3)
        return "python", tvm_target
    return str(chosen), tvm_target


class BuiltFunc:
    """Call with one NumPy array per argument tensor (an int per scalar argument); writes the
    computed tensors' arrays in place.

    Shape variables take their values from the arrays' shapes; arrays whose shapes or dtypes
    disagree with their tensors are refused before anything runs.
    """

    def __init__(self, func: LoweredFunc, checks: bool, target: str, name: str = "default_function",
                 fast_math: bool = False, library: str | None = None, tvm_target: Target | None = None,
                 libm: bool = False, fp_contract: bool = False) -> None:
        if func.schedule is not None:
            check_bound_vars(func.schedule, func.params)
        self.lowered = func
        self.target = target
        self.entry_name = name
        self.checks, self.fast_math, self.libm, self.fp_contract = checks, fast_math, libm, fp_contract
        #: The TVM target the build was asked for (None for ours: "c", "python").
        self.tvm_target = tvm_target
        # A TVM target's rules (registered for "llvm", "cuda" ...) first, then our target's.
        loaded = {"library": library} if library is not None else {}
        with collector_paused():  # code generation allocates as lowering does (see there)
            body = lower_intrinsics(remove_assume(func.body),
                                    (tvm_target.kind.name, target) if tvm_target is not None else target)
            #: For target "cuda": the kernels' CUDA source (TVM's imported module), refused
            #: before anything compiles when CUDA cannot express the schedule.
            self._device = CudaModule.of(body, name, [func.buffers[t] for t in func.tensors],
                                         tvm_target.attrs.get("arch"), cuda_limits(tvm_target), fast_math) \
                if tvm_target is not None and tvm_target.kind.name == "cuda" else None
            self._device_body = body if self._device is not None else None  # what GpuRunner runs
            #: The GPU run of the CUDA module, made at the first call where a GPU is present.
            self._gpu: GpuRunner | None = None
            body = scalarize_vectors(expand_wmma(body))  # the CPU's meaning of tensor-core and vector stores
            self._kernel = TARGETS[target](body, [func.buffers[t] for t in func.tensors], func.params, checks,
                                           fast_math=fast_math, libm=libm, fp_contract=fp_contract, **loaded)
        self.source = self._kernel.source
        # An input's array is written where the body stores into it; a function without a
        # schedule (read from TVMScript: placeholders for all its arguments) may also write
        # what it passes to a call.
        written = stored_buffers(func.body) | (buffers_passed_to_calls(func.body) if func.schedule is None else set())
        self._writes = [not bounds_of(t.op).is_input(t.op) or id(func.buffers[t]) in written for t in func.tensors]
        self._checks = CallChecks.of(func, self._writes) if checks else CallChecks.none()
        self._fast = None if func.layouts else fast_call(func.args, func.params, self._writes, self._checks)
        self._direct = getattr(self._kernel, "direct", None) if getattr(self._kernel, "direct_calls", False) \
            else None
        updated = {id(b) for b in updated_in_place(body)} if target == "c" else set()
        #: Positions of the arguments realigned for each call (see lower.backend.c.realign).
        self._realign = [k for k, a in enumerate(func.args) if isinstance(a, Tensor) and id(func.buffers[a]) in updated]
        self._spares = Spares()

    def time_evaluator(self, func_name: str | None = None, dev: Any = None, number: int = 10, repeat: int = 1,
                       min_repeat_ms: float = 0, cooldown_interval_ms: float = 0) -> Any:
        """TVM's ``f.time_evaluator(f.entry_name, dev, number=, repeat=, min_repeat_ms=)``: a
        function taking this one's arguments and returning a :class:`~lower.timing.BenchmarkResult`
        (``.mean`` and ``.results`` in seconds per call). *dev* is accepted and ignored.

        :raises ValueError: for another function's name, or bad counts.
        """
        if func_name is not None and func_name != self.entry_name:
            raise ValueError(f"time_evaluator: this function is '{self.entry_name}', not {func_name!r}")
        if self._on_gpu():
            return self._gpu_time_evaluator(number, repeat, min_repeat_ms, cooldown_interval_ms)
        return time_evaluator(self, number, repeat, min_repeat_ms, cooldown_interval_ms)

    def _gpu_time_evaluator(self, *counts: Any) -> Any:
        """The kernels timed on the GPU, as TVM times them: the arrays copied there once, and
        each batch of calls waited for at its end; the outputs come back after the timing."""
        gpu = self._gpu
        assert gpu is not None

        def timed(*arrays: Any) -> Any:
            values, env = self._bind(arrays)
            with gpu.resident(values, env) as run:
                result = time_evaluator(run, *counts, sync=gpu.sync)()
                gpu.download(run.pointers, values, self._writes)
            return result
        return timed

    def get_source(self, fmt: str = "") -> str:
        """The generated source: C for target ``"c"``, Python for ``"python"``. For ``"cuda"``,
        the kernels' CUDA as ``imported_modules[0]`` gives it (``fmt="ptx"``: the PTX), and with
        ``fmt="c"`` the C of the CPU run."""
        if self._device is not None and fmt != "c":
            return self._device.get_source(fmt)
        return self.source

    def get_function(self, name: str, query_imports: bool = False) -> BuiltFunc:
        """This function, by its name (TVM's ``mod.get_function(mod.entry_name)``).

        :raises AttributeError: for another name, as TVM's module does.
        """
        if name != self.entry_name:
            raise AttributeError(f"Module has no function {name!r}; its function is {self.entry_name!r}")
        return self

    __getitem__ = get_function

    def export_library(self, path: str, fcompile: Any = None, **options: Any) -> None:
        """Write this function as a shared object at *path*, which :func:`load_module` loads in
        any process (TVM's ``mod.export_library``); *fcompile* and *options* are accepted.

        :raises ValueError: for a build for the Python target, which has no shared object.
        """
        if self.target != "c":
            raise ValueError(f"export_library: only a build for the C target ('llvm', 'c') is a shared object; "
                             f"this one runs on {self.target!r}")
        write_library(self.source, self.fast_math, self._metadata(), os.fspath(path))

    def _metadata(self) -> dict[str, Any]:
        """What loading the library in another process needs (see :mod:`lower.library`)."""
        return {"name": self.entry_name, "checks": self.checks, "fast_math": self.fast_math, "libm": self.libm,
                "fp_contract": self.fp_contract, "lowered": save_json(self.lowered)}

    def save(self, path: str, fmt: str = "") -> None:
        """TVM's ``mod.save(path)``: an object file (``.o``, with the metadata, for
        ``contrib.cc.create_shared``) or the source (``.c``, or ``.py`` for the Python target).

        :raises ValueError: for another format, naming those this module has.
        """
        kind = fmt or os.fspath(path).rsplit(".", 1)[-1]
        source_kinds = ("c", "cc") if self.target == "c" else ("py",)
        if kind in source_kinds:
            with open(path, "w") as f:
                f.write(self.source)
            return
        if kind == "o" and self.target == "c":
            write_object(self.source, self.fast_math, self._metadata(), os.fspath(path))
            return
        formats = "'.o' or '.c'" if self.target == "c" else "'.py'"
        raise ValueError(f"save: this module saves as {formats}, not {kind!r}; export_library writes a .so")

    @property
    def imported_modules(self) -> list[Any]:
        """TVM's device modules: none for a CPU target; for CUDA, the kernels' CUDA source (see
        :class:`~lower.backend.cuda.module.CudaModule`); for another GPU target, one whose
        source says that no GPU code exists (the kernel is this module's C)."""
        if self._device is not None:
            return [self._device]
        target = self.tvm_target
        return [DeviceModule(target.kind.name)] if target is not None and target.is_gpu else []

    def __call__(self, *arrays: Any) -> None:
        if not self._realign:
            self._run(arrays)
            return
        given, moved = realigned(arrays, self._realign, self._spares)
        try:
            self._run(given)
        finally:
            for original, copy in moved:
                original[...] = copy
                self._spares.give(copy)

    def _run(self, arrays: Sequence[Any]) -> None:
        if self._on_gpu():
            self._call(arrays)
            return
        if self._fast is not None:
            try:
                bound = self._fast(*arrays)
            except Exception:  # noqa: BLE001 - the general path below says what is wrong
                bound = None
            if bound is not None:
                if self._direct is not None:
                    self._direct(*bound)
                else:
                    self._kernel([a for a in arrays if isinstance(a, np.ndarray)], bound[1], self._writes)
                return
        self._call(arrays)

    def _call(self, arrays: Sequence[Any]) -> None:
        """Check a call in full, naming what is wrong, and run it."""
        values, env = self._bind(arrays)
        if self._gpu is not None:
            self._gpu(values, env, self._writes)
            return
        self._kernel(values, [env[v] for v in self.lowered.params], self._writes)

    def _bind(self, arrays: Sequence[Any]) -> tuple[list[Any], dict[Var, Any]]:
        """The arrays of a call and the values of its variables, checked in full."""
        args = self.lowered.args
        if len(arrays) != len(args):
            raise TypeError(f"expected {len(args)} arguments ({', '.join(a.name for a in args)}), "
                            f"got {len(arrays)}")
        tensors = self.lowered.tensors
        values = [value for a, value in zip(args, arrays) if isinstance(a, Tensor)]
        for t, value, written in zip(tensors, values, self._writes):
            check_array(t, value, writes=written)
        env = bind_shapes(args, arrays, self.lowered.layouts)
        self._checks.check_values(env)
        self._checks.check_overlap(tensors, values, self._writes)
        return values, env

    def _on_gpu(self) -> bool:
        """Whether calls run on the GPU: a CUDA build with kernels, where a GPU is present."""
        if self._gpu is None and self._device is not None and present_arch() is not None:
            source = self._device.source  # raises for a function that computes on the host
            if source.kernels:
                self._gpu = GpuRunner(self._device, self._device_body,
                                      [self.lowered.buffers[t] for t in self.lowered.tensors], cuda_driver())
        return self._gpu is not None


def load_module(path: str) -> BuiltFunc:
    """The function a :meth:`BuiltFunc.export_library` wrote at *path*, its code loaded from
    that library (TVM's ``tvm.runtime.load_module``).

    :raises ValueError: for a file that is not such a library.
    """
    metadata, where = read_library(path)
    return BuiltFunc(load_json(metadata["lowered"]), metadata["checks"], "c", metadata["name"],
                     metadata["fast_math"], library=where, libm=metadata.get("libm", False),
                     fp_contract=metadata.get("fp_contract", False))


class DeviceModule:
    """What stands for a GPU target's device module: the schedule ran on the CPU, so there is no
    device code to show."""

    def __init__(self, kind: str) -> None:
        self.type_key = kind

    def get_source(self, fmt: str = "") -> str:
        return (f"// no {self.type_key} source: this build runs the schedule on the CPU with a GPU's semantics; "
                "the host module's get_source() is its C code\n")


def build(s: Schedule, args: Sequence[Tensor | Var], target: str | None = None, *, exact: bool | None = None,
          checks: bool | None = None, name: str = "default_function", fast_math: bool = False,
          libm: bool = False, fp_contract: bool = False) -> BuiltFunc:
    """Lower *s* and compile it to a function over the arrays of *args*: C compiled by the
    system compiler (``target="c"``, the default when a compiler is found; ``"llvm"``, TVM's CPU
    target, means it too), or Python source run on lists (``"python"``, checked: the reference).
    *target* may be given by position, as in ``tvm.build(s, args, "llvm")``; *name* is the
    function's ``entry_name``.

    :arg checks: on the Python target, check every load and store against the realized region
        (an :class:`~lower.OutOfBoundsError` names the buffer, the index and the region);
        ``checks=True`` without a target chooses it. ``checks=False`` turns the run-time checks
        off on either target, for users who measure the last microsecond: no argument overlap,
        scalar range or symbolic read checks at the call, and on C no check of divisors, of
        indices computed from data or of reads of memory threads share (a mistake may then
        crash the process or give wrong numbers; allocations are still checked).
    :arg target: ``"c"`` or ``"python"``; by default ``$TEBOUND_TARGET``, else C (see
        :func:`choose_target`). ``"llvm -fast-math"`` (TVM's option) asks for *fast_math*.
    :arg fast_math: let the C compiler reassociate floating-point arithmetic, fuse multiplies
        and adds, and assume no NaN or infinity: faster, and no longer equal to NumPy in the last
        bits. Off by default: C then rounds every operation as NumPy does.
    :arg fp_contract: let the C compiler fuse ``a * b + c`` into one multiply-add (one rounding,
        as TVM's LLVM code does) and nothing else of fast math; ``"llvm -fp-contract=fast"``
        asks for it too. Where the CPU has FMA, matmul-like kernels gain; results differ from
        NumPy's in the last bit where a product is fused. The Python target ignores it.
    :arg libm: keep the C library's ``exp``, ``log``, ``tanh`` and ``erf`` in vector loops. By
        default a vectorized loop computes them of float32 by polynomials that vectorize, within
        1 ulp of the correctly rounded result (libm's are within 1 ulp too, one scalar call per
        lane); scalar code always calls libm.
    :raises TypeError: for a schedule or an argument of the wrong kind.
    :raises ValueError: for an argument outside the schedule, or a variable that no argument
        binds (naming it and the stage that uses it).
    """
    check_schedule("build", s)
    exact = default_exact("build", exact)
    check_flag("build", "fast_math", fast_math)
    check_flag("build", "libm", libm)
    check_flag("build", "fp_contract", fp_contract)
    if checks is not None:
        check_flag("build", "checks", checks)
    if not isinstance(name, str) or not name:
        raise TypeError(f"build: name must be a non-empty string, not {name!r}")
    return build_lowered(lower_quietly(s, args, exact=exact), target, checks=checks, name=name,
                         fast_math=fast_math, libm=libm, fp_contract=fp_contract)


def build_lowered(func: LoweredFunc, target: str | None = None, *, checks: bool | None = None,
                  name: str = "default_function", fast_math: bool = False, libm: bool = False,
                  fp_contract: bool = False) -> BuiltFunc:
    """Compile what :func:`lower` returned (its body as it is now, after any pass applied to
    it), as :func:`build` does.

    :raises TypeError: for anything but a lowered function.
    """
    if isinstance(func, PrimFunc):  # made by hand: its buffer parameters become the arguments
        func = lowered_from_prim_func(func)
        name = name if name != "default_function" else func.name
    if not isinstance(func, LoweredFunc):
        raise TypeError(f"build: expected a schedule, what lower() returned or a tir.PrimFunc, got "
                        f"{type(func).__name__}")
    if func.outside_read is not None:
        raise ScheduleError(f"build: {func.outside_read}; a read outside a tensor reads memory that is not its own")
    pointed = _pointer_buffer(func.body)
    if pointed is not None:
        raise ScheduleError(f"build: buffer '{pointed.name}' is declared over the pointer variable "
                            f"'{pointed.pointer.data.name}' (data=...), memory no argument of the function holds; "
                            "declare it as a T.Buffer parameter, or T.match_buffer a T.handle parameter")
    chosen, tvm_target = choose_target(target, checks)
    fast_math = fast_math or (tvm_target is not None and tvm_target.fast_math)
    check_flag("build", "libm", libm)
    check_flag("build", "fp_contract", fp_contract)
    fp_contract = fp_contract or (tvm_target is not None and tvm_target.fp_contract)
    return BuiltFunc(func, checks is not False, chosen, name, fast_math, tvm_target=tvm_target, libm=libm,
                     fp_contract=fp_contract)


def _pointer_buffer(body: Any) -> Any:
    """A buffer of *body* declared over a pointer variable, if there is one."""
    found: list[Any] = []

    def see(x: Any) -> None:
        buf = getattr(x, "buffer", None)
        if not found and isinstance(x, (Load, Store)) and buf.pointer is not None:
            found.append(buf)
    post_order_visit(body, see)
    return found[0] if found else None
