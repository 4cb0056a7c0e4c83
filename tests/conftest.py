"""Canonical pipelines (the documents' examples) and helpers shared by the tests."""

from __future__ import annotations

import os
from typing import Any

import pytest
from hypothesis import settings

import schedule as te
from lower.backend.c.compile import find_compiler
from lower.backend.cuda import nvrtc
from lower.backend.cuda.module import CudaModule
from lower.build import TARGET_VARIABLE, BuiltFunc
from lower.errors import LoweringError
from lower.ir.stmt import AttrStmt
from lower.ir.stmt_functor import walk
from lower.passes.intrin_lowering import lower_intrinsics

#: Every test module that builds runs on each target: the checked Python reference, and C
#: where a compiler is found. Tests that pass a target themselves are left as they are.
TARGETS = ["python", *(["c"] if find_compiler() else [])]

# Property tests draw the same examples on every run (CI must not flip on a lucky draw); set
# TEBOUND_EXPLORE=1 to search new random examples while developing.
settings.register_profile("repeatable", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile("explore" if os.environ.get("TEBOUND_EXPLORE") else "repeatable")


def _builds(module: Any) -> bool:
    """Whether *module* calls ``build`` or the ports' ``run`` helper."""
    for name in ("build", "run"):
        fn = getattr(module, name, None)
        if callable(fn) and getattr(fn, "__module__", "").rsplit(".", 1)[-1] in ("build", "run"):
            return True
    return False


def pytest_generate_tests(metafunc: Any) -> None:
    if _builds(metafunc.module):
        metafunc.fixturenames.append("default_target")
        metafunc.parametrize("default_target", TARGETS, indirect=True, scope="module")


@pytest.fixture(scope="module")
def default_target(request: Any) -> Any:
    """The target ``build`` runs on when a test names none (through ``$TEBOUND_TARGET``)."""
    saved = os.environ.get(TARGET_VARIABLE)
    os.environ[TARGET_VARIABLE] = request.param
    yield request.param
    if saved is None:
        del os.environ[TARGET_VARIABLE]
    else:
        os.environ[TARGET_VARIABLE] = saved


@pytest.fixture(autouse=True)
def _cuda_compiles(monkeypatch: Any) -> Any:
    """Every GPU-style schedule a test builds (for CUDA, or for the CPU with threads bound):
    its CUDA source compiles with NVRTC without a warning, to PTX with an entry for each
    kernel (where NVRTC is installed: the cuda extra). A schedule CUDA cannot express yet is
    refused by name; ``$TEBOUND_CUDA_REPORT`` names a file that collects those refusals."""
    if not nvrtc.available():
        yield
        return
    made: list[CudaModule] = []  # built for CUDA: compiled to PTX
    checked: list[CudaModule] = []  # built for the CPU: NVRTC's front end only (its warnings)
    refused: list[str] = []
    original = CudaModule.of.__func__  # type: ignore[attr-defined]
    init = BuiltFunc.__init__

    def recording(cls: Any, *args: Any, **kwargs: Any) -> CudaModule:
        module = original(cls, *args, **kwargs)
        made.append(module)
        return module

    def init_and_cuda(self: BuiltFunc, func: Any, *args: Any, **kwargs: Any) -> None:
        init(self, func, *args, **kwargs)
        if self._device is None and any(isinstance(x, AttrStmt) and x.key == "thread_extent" for x in walk(func.body)):
            try:
                module = original(CudaModule, lower_intrinsics(func.body, ("cuda", "c")), self.entry_name,
                                  [func.buffers[t] for t in func.tensors], None)
            except LoweringError as err:
                refused.append(str(err))
            else:
                checked.append(module)
    monkeypatch.setattr(CudaModule, "of", classmethod(recording))
    monkeypatch.setattr(BuiltFunc, "__init__", init_and_cuda)
    yield
    report = os.environ.get("TEBOUND_CUDA_REPORT")
    if report:
        with open(report, "a") as f:
            f.write("".join(f"built {m._source is not None}\n" for m in made + checked))
            f.write("".join(f"refused {line.splitlines()[0]}\n" for line in refused))
    for module in checked:
        if module._source is not None:
            log = nvrtc.compile_ptx(module.source.text, syntax_only=True).log
            assert not log, f"NVRTC warns on the CUDA of this schedule:\n{log}\n{module.source.text}"
    for module in made:
        if module._source is None:
            continue  # computes on the host: no CUDA program (see CudaModule.of)
        ptx = module.ptx()
        assert not ptx.log, f"NVRTC warns on the CUDA of this build:\n{ptx.log}\n{module.get_source()}"
        for name in module.entry_names:
            assert f".entry {name}(" in ptx.text, f"no entry {name} in the PTX"


def snapshot(s: te.Schedule) -> list[tuple[Any, ...]]:
    """Everything a primitive may change, compared by identity where identity matters."""
    return [(st, st.op, tuple(map(id, st.all_iter_vars)), tuple(map(id, st.leaf_iter_vars)),
             tuple(map(id, st.relations)), st.attach_type, id(st.attach_ivar), id(st.attach_stage),
             st.scope, tuple((id(k), v) for k, v in st.iter_var_attrs.items()))
            for st in s.stages] + [tuple(s.stage_map.items())]


@pytest.fixture
def chain():
    """A (16, 16) placeholder feeding B = A + 2 and C = B * 3 (the document's Example 6 shape)."""
    A = te.placeholder((16, 16), name="A")
    B = te.compute((16, 16), lambda i, j: A[i, j] + 2, name="B")
    C = te.compute((16, 16), lambda i, j: B[i, j] * 3, name="C")
    return A, B, C


@pytest.fixture
def example_cde():
    """The document's C -> D -> E chain, all (5, 16)."""
    C = te.compute((5, 16), lambda ci, cj: te.const(5, "int32"), name="C")
    D = te.compute((5, 16), lambda di, dj: C[di, dj] * 2, name="D")
    E = te.compute((5, 16), lambda ei, ej: D[ei, ej] * 4, name="E")
    return C, D, E


@pytest.fixture
def matmul():
    n, m, l = te.var("n"), te.var("m"), te.var("l")
    A = te.placeholder((n, l), name="A")
    B = te.placeholder((m, l), name="B")
    k = te.reduce_axis((0, l), name="k")
    C = te.compute((n, m), lambda i, j: te.sum(A[i, k] * B[j, k], axis=k), name="C")
    return A, B, C
