"""NVIDIA's driver API, where the cuda extra brings its bindings, and the GPU it finds."""

from __future__ import annotations

import functools
import importlib
from typing import Any

from lower.errors import LoweringError


def cuda_driver() -> Any:
    """The driver API module (``cuda.bindings.driver``).

    :raises LoweringError: without the cuda extra, naming it."""
    try:
        return importlib.import_module("cuda.bindings.driver")
    except ImportError:
        raise LoweringError("running on the GPU needs NVIDIA's driver bindings, which are not installed; "
                            "pip install 'tebound[cuda]'") from None


@functools.cache
def present_arch() -> str | None:
    """``sm_XY`` of the first GPU the CUDA driver sees, or None (no driver bindings, no driver,
    or no GPU)."""
    try:
        driver: Any = cuda_driver()
    except LoweringError:
        return None
    ok = driver.CUresult.CUDA_SUCCESS
    try:
        (err,) = driver.cuInit(0)
        if err != ok:
            return None
        err, count = driver.cuDeviceGetCount()
        if err != ok or count < 1:
            return None
        err, device = driver.cuDeviceGet(0)
        attr = driver.CUdevice_attribute
        err1, major = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, device)
        err2, minor = driver.cuDeviceGetAttribute(attr.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, device)
    except (RuntimeError, OSError):  # a driver library that is missing or broken
        return None
    if err != ok or err1 != ok or err2 != ok:
        return None
    return f"sm_{major}{minor}"
