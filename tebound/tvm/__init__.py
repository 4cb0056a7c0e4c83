"""TVM's Python namespace (legacy te, v0.8 to v0.14) over this project's objects: ``tvm.te``,
``tvm.tir``, ``tvm.target``, ``tvm.device``, ``tvm.nd``, ``tvm.runtime``, ``tvm.lower``,
``tvm.build``, ``tvm.testing``, ``tvm.contrib``, ``tvm.transform``, ``tvm.IRModule``,
``tvm.autotvm``, ``tvm.auto_scheduler`` and ``tvm.script`` (TVMScript). The names are our objects,
not wrappers: ``tvm.te.compute`` is ``schedule.compute``. ``lower`` and ``build`` here default
to TVM's bounds, so that programs print the IR TVM's tutorials show (see ``tvm.driver``)."""

import topi
from lower.module import IRModule
from schedule import get_global_func, register_func
from tebound.tvm import (
    _ffi,
    aliases,  # noqa: F401 - makes topi's modules importable as tebound.tvm.topi.*
    arith,
    auto_scheduler,
    autotvm,
    contrib,
    error,
    ir,
    nd,
    relay,
    runtime,
    script,
    target,
    te,
    testing,
    tir,
    transform,
)
from tebound.tvm.driver import build, lower
from tebound.tvm.error import TVMError
from tebound.tvm.runtime import container, cpu, cuda, device
from tebound.tvm.target import Target

__all__ = ["IRModule", "TVMError", "Target", "arith", "auto_scheduler", "autotvm", "build", "container", "contrib",
           "cpu", "cuda", "device", "error", "get_global_func", "ir", "lower", "nd", "register_func", "relay",
           "runtime", "script", "target", "te", "testing", "tir", "topi", "transform"]
