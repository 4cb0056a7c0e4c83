"""TVM's test features: ``requires_gpu``, ``requires_cuda``, ``uses_gpu`` ... Each marks a test
with the feature's name and skips it, with TVM's reason, when the feature is missing here. What
a feature needs is checked in three steps, as in TVM: compiled in (its build flag), enabled among
the test targets, and present at run time (a device, or a check of the machine)."""

from __future__ import annotations

import importlib.util
import itertools
import os
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from lower.backend.nd import device
from tebound.tvm.testing.targets import env_targets, kind_runnable

#: The build flags that are on here (TVM's ``config.cmake``): the C target is TVM's LLVM.
FLAGS_ON = {"USE_LLVM"}
SUPPORT = ("compile-and-run", "compile-only", "optional")


def _skip(check: Callable[[], bool | str] | None, default_reason: str) -> Iterator[Any]:
    if check is None:
        return
    res = check()
    if isinstance(res, str):
        yield pytest.mark.skipif(True, reason=res)
    else:
        yield pytest.mark.skipif(not res, reason=default_reason)


class Feature:
    """A feature a test may need (TVM's ``tvm.testing.Feature``): *name* is its mark;
    *parent_features* are needed too (cuDNN needs CUDA)."""

    all_features: dict[str, Feature] = {}

    def __init__(self, name: str, long_name: str | None = None, cmake_flag: str | None = None,
                 target_kind_enabled: str | None = None, compile_time_check: Callable[[], bool | str] | None = None,
                 target_kind_hardware: str | None = None, run_time_check: Callable[[], bool | str] | None = None,
                 parent_features: str | list[str] | None = None) -> None:
        self.name, self.long_name = name, long_name or name
        self.cmake_flag, self.target_kind_enabled = cmake_flag, target_kind_enabled
        self.compile_time_check, self.run_time_check = compile_time_check, run_time_check
        self.target_kind_hardware = target_kind_hardware
        self.parent_features = [parent_features] if isinstance(parent_features, str) else list(parent_features or [])
        Feature.all_features[name] = self

    def _parents(self) -> list[Feature]:
        return [Feature.all_features[p] for p in self.parent_features]

    def _uses_marks(self) -> Iterator[Any]:
        for parent in self._parents():
            yield from parent._uses_marks()
        with warnings.catch_warnings():  # the plugin registers the mark when pytest configures
            warnings.simplefilter("ignore", pytest.PytestUnknownMarkWarning)
            yield getattr(pytest.mark, self.name)

    def _compile_marks(self) -> Iterator[Any]:
        for parent in self._parents():
            yield from parent._compile_marks()
        yield from _skip(self.compile_time_check, f"Compile-time support for {self.long_name} not present")
        if self.target_kind_enabled is not None:
            kind = self.target_kind_enabled.split()[0]
            listed = env_targets()
            yield pytest.mark.skipif(bool(listed) and all(t.split()[0] != kind for t in listed),
                                     reason=f"{self.target_kind_enabled} tests disabled by TVM_TEST_TARGETS")
        if self.cmake_flag is not None:
            yield pytest.mark.skipif(self.cmake_flag not in FLAGS_ON,
                                     reason=f"{self.long_name} support not enabled.  Set {self.cmake_flag} in "
                                            "config.cmake to enable.")

    def _run_marks(self) -> Iterator[Any]:
        for parent in self._parents():
            yield from parent._run_marks()
        yield from _skip(self.run_time_check, f"Run-time support for {self.long_name} not present")
        if self.target_kind_hardware is not None:
            yield pytest.mark.skipif(not device(self.target_kind_hardware).exist,
                                     reason=f"No device exists for target {self.target_kind_hardware}")

    def marks(self, support_required: str = "compile-and-run") -> list[Any]:
        """The marks of a test needing this feature: *support_required* is ``"compile-and-run"``,
        ``"compile-only"`` or ``"optional"`` (marked, never skipped).

        :raises ValueError: for another value of *support_required*.
        """
        if support_required not in SUPPORT:
            raise ValueError(f"Feature {self.name!r}: support_required is one of {SUPPORT}, not {support_required!r}")
        chains = {"compile-and-run": (self._run_marks(), self._compile_marks(), self._uses_marks()),
                  "compile-only": (self._compile_marks(), self._uses_marks()),
                  "optional": (self._uses_marks(),)}[support_required]
        return list(itertools.chain(*chains))

    def __call__(self, func: Any = None, *, support_required: str = "compile-and-run") -> Any:
        """Mark *func* (a bare decorator), or return the decorator for *support_required*."""
        marks = self.marks(support_required)

        def wrapper(f: Any) -> Any:
            for mark in marks:
                f = mark(f)
            return f

        return wrapper if func is None else wrapper(func)

    @classmethod
    def require(cls, name: str, support_required: str = "compile-and-run") -> Any:
        """The decorator of the feature called *name*.

        :raises ValueError: for a name no feature has.
        """
        if name not in cls.all_features:
            raise ValueError(f"Feature.require: no feature {name!r}; the features are {sorted(cls.all_features)}")
        return cls.all_features[name](support_required=support_required)

    def _register_marker(self, config: Any) -> None:
        config.addinivalue_line("markers", f"{self.name}: Mark a test as using {self.long_name}")


def _any_gpu() -> bool:
    return any(kind_runnable(kind) for kind in ("cuda", "rocm", "opencl", "metal", "vulkan"))


def _tensorcore() -> bool | str:
    version = device("cuda").compute_version
    if version is None:
        return "No tensorcore present: no CUDA GPU"
    return int(version.split(".")[0]) >= 7 or f"No tensorcore present: compute capability {version}"


def _never(reason: str) -> Callable[[], str]:
    return lambda: reason


requires_llvm = Feature("llvm", "LLVM", cmake_flag="USE_LLVM", target_kind_enabled="llvm")
requires_gpu = Feature("gpu", run_time_check=_any_gpu)
uses_gpu = requires_gpu(support_required="optional")
requires_cuda = Feature("cuda", "CUDA", cmake_flag="USE_CUDA", target_kind_enabled="cuda",
                        target_kind_hardware="cuda", parent_features="gpu")
requires_tensorcore = Feature("tensorcore", "NVIDIA Tensor Core", run_time_check=_tensorcore,
                              parent_features="cuda")
requires_cudnn = Feature("cudnn", "cuDNN", cmake_flag="USE_CUDNN", parent_features="cuda")
requires_cublas = Feature("cublas", "cuBLAS", cmake_flag="USE_CUBLAS", parent_features="cuda")
requires_nvptx = Feature("nvptx", "NVPTX", cmake_flag="USE_LLVM", target_kind_enabled="nvptx",
                         target_kind_hardware="nvptx", parent_features=["llvm", "cuda"])
requires_cudagraph = Feature("cudagraph", "CUDA Graph", target_kind_enabled="cuda",
                             compile_time_check=_never("CUDA graphs are not supported here"), parent_features="cuda")
requires_opencl = Feature("opencl", "OpenCL", cmake_flag="USE_OPENCL", target_kind_enabled="opencl",
                          target_kind_hardware="opencl", parent_features="gpu")
requires_rocm = Feature("rocm", "ROCm", cmake_flag="USE_ROCM", target_kind_enabled="rocm",
                        target_kind_hardware="rocm", parent_features="gpu")
requires_matrixcore = Feature("matrixcore", "AMD Matrix Core", run_time_check=_never(
    "No matrix core present"), parent_features="rocm")
requires_metal = Feature("metal", "Metal", cmake_flag="USE_METAL", target_kind_enabled="metal",
                         target_kind_hardware="metal", parent_features="gpu")
requires_vulkan = Feature("vulkan", "Vulkan", cmake_flag="USE_VULKAN", target_kind_enabled="vulkan",
                          target_kind_hardware="vulkan", parent_features="gpu")
requires_openclml = Feature("OpenCLML", "CLML", cmake_flag="USE_CLML", target_kind_enabled="opencl")
requires_micro = Feature("micro", "MicroTVM", cmake_flag="USE_MICRO")
requires_cutlass = Feature("cutlass", "CUTLASS", cmake_flag="USE_CUTLASS")
requires_rpc = Feature("rpc", "RPC", cmake_flag="USE_RPC")
requires_ethosn = Feature("ethosn", "Arm(R) Ethos(TM)-N", cmake_flag="USE_ETHOSN")
requires_ethosu = Feature("ethosu", "Arm(R) Ethos(TM)-U", cmake_flag="USE_ETHOSU")
requires_libtorch = Feature("libtorch", "LibTorch", cmake_flag="USE_LIBTORCH")
requires_hexagon = Feature("hexagon", "Hexagon", cmake_flag="USE_HEXAGON", target_kind_enabled="hexagon",
                           parent_features="llvm")
requires_cmsisnn = Feature("cmsisnn", "CMSIS NN", cmake_flag="USE_CMSISNN")
requires_corstone300 = Feature("corstone300", "Corstone-300", compile_time_check=_never(
    "Corstone-300 is not available here"), parent_features="cmsisnn")
requires_vitis_ai = Feature("vitis_ai", "Vitis AI", cmake_flag="USE_VITIS_AI")
requires_arm_dot = Feature("arm_dot", "ARM dot product", run_time_check=_never("ARM dot product not supported"))
requires_cascadelake = Feature("cascadelake", "x86 CascadeLake", target_kind_enabled="llvm",
                               compile_time_check=_never("this build does not target CascadeLake's VNNI"),
                               parent_features="llvm")

slow = pytest.mark.skipif(os.environ.get("SKIP_SLOW_TESTS", "").lower() in ("true", "1", "yes"),
                          reason="Skipping slow test since SKIP_SLOW_TESTS is set")
skip_if_wheel_test = pytest.mark.skipif(False, reason="Wheel test: these tests run here")


def requires_package(*packages: str) -> Callable[[Any], Any]:
    """Skip the test unless every module of *packages* can be imported."""
    missing = [p for p in packages if importlib.util.find_spec(p) is None]

    def wrapper(func: Any) -> Any:
        return pytest.mark.skipif(bool(missing), reason=f"Cannot import {', '.join(missing)}")(func)

    return wrapper


def requires_nvcc_version(major: int, minor: int = 0, release: int = 0) -> Callable[[Any], Any]:
    """Skip the test: no nvcc serves this project."""
    return pytest.mark.skipif(True, reason=f"Requires NVCC >= {major}.{minor}.{release}")


def requires_cuda_compute_version(major: int, minor: int = 0) -> Callable[[Any], Any]:
    """Skip the test: no CUDA device is here."""
    return pytest.mark.skipif(True, reason=f"Requires CUDA compute >= {major}.{minor}")


def skip_if_32bit(reason: str) -> Callable[[Any], Any]:
    """Nothing to skip: this is a 64-bit Python."""
    return pytest.mark.skipif(False, reason=reason)
