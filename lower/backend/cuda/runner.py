"""A CUDA build run on a GPU through the driver API (``cuda.bindings.driver``).

The host part of the function runs here, in Python: its loops, lets and conditions, the
global arrays it allocates between kernels, and each kernel's launch, with grid and block
computed from the call's shapes. The arrays go to the GPU before the first launch and come
back after the last. *driver* is the driver module, or a stand-in with the same functions.
"""

from __future__ import annotations

import ctypes
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from lower.backend.cuda.module import CudaModule
from lower.backend.cuda.split import DeviceKernel
from lower.errors import LoweringError
from lower.ir.stmt import Allocate, AssertStmt, AttrStmt, Buffer, For, IfThenElse, LetStmt, SeqStmt, Stmt
from lower.ir.stmt_functor import stmt_children
from schedule.ir.evaluate import evaluate
from schedule.ir.expr import Var

#: ctypes of the scalar kernel parameters, by dtype.
_SCALARS = {"int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32, "int64": ctypes.c_int64,
            "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16, "uint32": ctypes.c_uint32,
            "uint64": ctypes.c_uint64, "float32": ctypes.c_float, "float64": ctypes.c_double,
            "bool": ctypes.c_bool}


class GpuRunner:
    """Runs the kernels of *module* over the function's *buffers* (its array arguments, in
    order) on device 0."""

    def __init__(self, module: CudaModule, body: Stmt, buffers: Sequence[Buffer], driver: Any) -> None:
        self.d = driver
        self.body = body
        self.buffers = list(buffers)
        self.kernels = {id(k.kernel.root): k for k in module.source.kernels}
        self._check(self.d.cuInit(0))
        device = self._value(self.d.cuDeviceGet(0))
        self.context = self._value(self.d.cuDevicePrimaryCtxRetain(device))
        self._check(self.d.cuCtxSetCurrent(self.context))
        ptx = module.ptx().text.encode() + b"\0"
        self.module = self._value(self.d.cuModuleLoadData(ptx))
        self.functions = {k.name: self._value(self.d.cuModuleGetFunction(self.module, k.name.encode()))
                          for k in module.source.kernels}

    def __call__(self, arrays: Sequence[np.ndarray], env: Mapping[Var, Any], writes: Sequence[bool]) -> None:
        """Copy *arrays* in, run the host part with the shape and scalar values *env*, and copy
        back the arrays *writes* marks."""
        with self.resident(arrays, env) as run:
            run()
            self.sync()
            self.download(run.pointers, arrays, writes)

    def resident(self, arrays: Sequence[np.ndarray], env: Mapping[Var, Any]) -> Resident:
        """*arrays* copied to the GPU, and a function running the host part over them (its
        launches queued, not waited for); freed when the ``with`` block ends."""
        self._check(self.d.cuCtxSetCurrent(self.context))
        for buf, a in zip(self.buffers, arrays):
            _check_size(buf, a.size)
        resident = Resident(self, dict(env))
        try:
            for buf, a in zip(self.buffers, arrays):
                resident.pointers[buf] = ptr = resident.alloc(a.nbytes)
                host = np.ascontiguousarray(a)  # kept alive until the copy is done
                self._check(self.d.cuMemcpyHtoD(ptr, host.ctypes.data, a.nbytes))
        except BaseException:
            resident.free()
            raise
        return resident

    def sync(self) -> None:
        """Wait for every launch queued."""
        self._check(self.d.cuCtxSynchronize())

    def download(self, pointers: Mapping[Buffer, Any], arrays: Sequence[np.ndarray], writes: Sequence[bool]) -> None:
        for buf, a, written in zip(self.buffers, arrays, writes):
            if written:
                out = np.empty_like(a, order="C")
                self._check(self.d.cuMemcpyDtoH(out.ctypes.data, pointers[buf], a.nbytes))
                a[...] = out

    # -- the host part ---------------------------------------------------------------------------
    def host(self, s: Stmt, env: dict[Var, Any], pointers: dict[Buffer, Any], scratch: Callable[[Buffer, int], Any]
             ) -> None:
        """Run the host part *s* over the arrays at *pointers*; *scratch* gives the memory of an
        array the host part allocates (its buffer, its bytes)."""
        stack: list[tuple[Stmt, dict[Var, Any]]] = [(s, env)]
        while stack:
            x, scope = stack.pop()
            kernel = self.kernels.get(id(x))
            if kernel is not None:
                self._launch(kernel, scope, pointers)
            elif isinstance(x, For):
                lo, extent = int(evaluate(x.min, scope)), int(evaluate(x.extent, scope))
                stack.extend((x.body, {**scope, x.loop_var: v}) for v in reversed(range(lo, lo + extent)))
            elif isinstance(x, LetStmt):
                stack.append((x.body, {**scope, x.var: evaluate(x.value, scope)}))
            elif isinstance(x, IfThenElse):
                taken = x.then_case if evaluate(x.condition, scope) else x.else_case
                if taken is not None:
                    stack.append((taken, scope))
            elif isinstance(x, Allocate):
                count = int(evaluate(x.buffer.size, scope))
                _check_size(x.buffer, count)
                pointers[x.buffer] = scratch(x.buffer, max(count, 1) * np.dtype(x.buffer.dtype).itemsize)
                stack.append((x.body, scope))
            elif isinstance(x, (SeqStmt, AttrStmt, AssertStmt)) or stmt_children(x):
                stack.extend((c, scope) for c in reversed(stmt_children(x)))

    def _launch(self, k: DeviceKernel, env: Mapping[Var, Any], pointers: Mapping[Buffer, Any]) -> None:
        grid = [int(evaluate(e, env)) for e in k.grid()]
        block = [int(evaluate(e, env)) for e in k.block()]
        if min(grid + block) <= 0:
            return  # an empty launch: no thread runs
        values = [pointers[b] for b in k.buffers] + [env[v] for v in k.scalars]
        types = [None] * len(k.buffers) + [_scalar_type(v.dtype) for v in k.scalars]
        shared = int(evaluate(k.dynamic_shared, env))
        self._check(self.d.cuLaunchKernel(self.functions[k.name], *grid, *block, shared, 0,
                                          (tuple(values), tuple(types)), 0))

    # -- driver calls ----------------------------------------------------------------------------
    def _alloc(self, nbytes: int) -> Any:
        return self._value(self.d.cuMemAlloc(max(nbytes, 1)))

    def _value(self, result: Any) -> Any:
        err, value = result
        self._check((err,))
        return value

    def _check(self, result: Any) -> None:
        err = result[0] if isinstance(result, tuple) else result
        if err != self.d.CUresult.CUDA_SUCCESS:
            raise LoweringError(f"CUDA driver: {err}")


def _check_size(buf: Buffer, count: int) -> None:
    """Kernels index in 32 bits (see :meth:`CudaExprSource.index`)."""
    if count >= 2**31:
        raise LoweringError(f"target 'cuda': array '{buf.name}' has {count} elements; kernels index arrays of "
                            "fewer than 2^31 elements (32-bit indices, as TVM's CUDA code)")


def _scalar_type(dtype: str) -> Any:
    found = _SCALARS.get(dtype)
    if found is None:
        raise LoweringError(f"build: target 'cuda' cannot pass a {dtype} scalar to a kernel")
    return found


class Resident:
    """Arrays on the GPU for a run of a :class:`GpuRunner`: calling it runs the host part
    (its intermediate arrays allocated anew each time, freed with the rest)."""

    def __init__(self, runner: GpuRunner, env: dict[Var, Any]) -> None:
        self.runner = runner
        self.env = env
        self.pointers: dict[Buffer, Any] = {}
        self.owned: list[Any] = []
        self._scratch: dict[tuple[int, int], Any] = {}  # (buffer id, bytes) -> memory, reused by every run

    def alloc(self, nbytes: int) -> Any:
        ptr = self.runner._alloc(nbytes)
        self.owned.append(ptr)
        return ptr

    def __call__(self) -> None:
        self.runner.host(self.runner.body, dict(self.env), dict(self.pointers), self.scratch)

    def scratch(self, buf: Buffer, nbytes: int) -> Any:
        key = (id(buf), nbytes)
        if key not in self._scratch:
            self._scratch[key] = self.alloc(nbytes)
        return self._scratch[key]

    def free(self) -> None:
        for ptr in self.owned:
            self.runner.d.cuMemFree(ptr)
        self.owned.clear()
        self._scratch.clear()

    def __enter__(self) -> Resident:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.free()
