"""The CUDA device module of a build: TVM's ``f.imported_modules[0]``, with the kernels' CUDA
source and, compiled by NVRTC when first asked for, their PTX."""

from __future__ import annotations

import functools
from typing import Any

from lower.backend.cuda.driver import present_arch
from lower.backend.cuda.nvrtc import DEFAULT_ARCH, Ptx, compile_ptx
from lower.backend.cuda.source import CudaSource, Limits
from lower.backend.cuda.split import HostAccessError
from lower.errors import LoweringError
from lower.ir.stmt import Stmt


class CudaModule:
    """The kernels of one build for ``target="cuda"``: :meth:`get_source` gives their CUDA C
    (``fmt="ptx"``: the PTX); *arch* is the target's ``-arch``, else the present GPU's, else
    :data:`~lower.backend.cuda.nvrtc.DEFAULT_ARCH`."""

    type_key = "cuda"

    def __init__(self, source: CudaSource | None, arch: str | None = None, error: LoweringError | None = None) -> None:
        self._source = source
        self._error = error
        self.arch = arch or present_arch() or DEFAULT_ARCH

    @classmethod
    def of(cls, body: Stmt, name: str, arguments: list[Any], arch: str | None, limits: Limits | None = None,
           fast_math: bool = False) -> CudaModule:
        """The module of a lowered *body*. A function that computes a stage on the host (no
        loop of it bound to a thread) has no CUDA program: TVM refuses to build it; here it
        still runs on the CPU with a GPU's semantics, and asking for its source raises.

        :raises LoweringError: for a kernel CUDA cannot express (naming the limit).
        """
        try:
            module = cls(CudaSource(body, name, arguments, limits or Limits(), fast_math), arch)
        except HostAccessError as err:
            return cls(None, arch, err)
        needed = module.source.min_arch
        if needed and int(module.arch.removeprefix("sm_")) < needed:
            raise LoweringError(f"build: target 'cuda': the kernels use tensor cores, which need sm_{needed} or later, "
                                f"but they are built for {module.arch}; pass a target with -arch=sm_{needed} or later")
        return module

    @property
    def source(self) -> CudaSource:
        """The translation unit.

        :raises HostAccessError: for a function that computes on the host."""
        if self._source is None:
            assert self._error is not None
            raise type(self._error)(str(self._error))
        return self._source

    @property
    def entry_names(self) -> list[str]:
        """The kernels' names, in the order the host launches them."""
        return [k.name for k in self.source.kernels]

    def get_source(self, fmt: str = "") -> str:
        """The CUDA C source (``fmt`` "", "cu" or "cuda"), or the PTX (``fmt="ptx"``).

        :raises ValueError: for another format.
        :raises LoweringError: for the PTX without NVRTC, naming the extra to install.
        """
        if fmt in ("", "cu", "cuda"):
            return self.source.text
        if fmt == "ptx":
            return self.ptx().text
        raise ValueError(f"get_source: a CUDA module's formats are 'cu' and 'ptx', not {fmt!r}")

    def ptx(self) -> Ptx:
        """The PTX of the source for :attr:`arch` (compiled once)."""
        return _compiled(self.source.text, self.arch)


@functools.lru_cache(maxsize=64)
def _compiled(text: str, arch: str) -> Ptx:
    return compile_ptx(text, arch)


def cuda_limits(target: Any) -> Limits:
    """The per-block limits a CUDA target states (TVM's attributes), else CUDA's."""
    default = Limits()
    return Limits(int(target.attrs.get("max_num_threads", default.threads)),
                  int(target.attrs.get("max_shared_memory_per_block", default.shared_bytes)))
