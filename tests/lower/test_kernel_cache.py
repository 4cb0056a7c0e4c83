"""The compiled-kernel cache runs nobody else's code: a private directory, refused when another
user owns it or others may write to it, objects checked against their record before loading
(a damaged one is rebuilt), and one object when threads and processes build it at once."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import stat
import threading
from pathlib import Path

import numpy as np
import pytest

import schedule as te
from lower import LoweringError, build
from lower.backend.c import kernel_cache
from lower.backend.c.compile import find_compiler

pytestmark = pytest.mark.skipif(find_compiler() is None, reason="no C compiler")


def _schedule(scale: float = 3.0):
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * scale + 1, name="B")
    return te.create_schedule(B.op), A, B


def _run(scale: float = 3.0) -> np.ndarray:
    s, A, B = _schedule(scale)
    a = np.arange(64, dtype="float32")
    b = np.full(64, np.nan, "float32")
    build(s, [A, B], target="c")(a, b)
    np.testing.assert_allclose(b, a * scale + 1)
    return b


@pytest.fixture
def cache(tmp_path, monkeypatch):
    folder = tmp_path / "kernels"
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(folder))
    return folder


def _objects(folder: Path) -> list[Path]:
    """The kernels in *folder* (not the SIGINT helper every process builds once, see
    lower.backend.c.interrupts)."""
    return sorted(p for p in folder.glob("k_*.so") if b"tb_sigint_count" not in p.read_bytes())


def _intact(lib: Path) -> bool:
    """Whether *lib*'s record names its key and the SHA-256 of its bytes."""
    return lib.with_suffix(".sha256").read_text().split() == [lib.stem[2:], hashlib.sha256(lib.read_bytes()).hexdigest()]


def test_the_cache_is_created_private_and_its_files_too(cache):
    _run()
    assert stat.S_IMODE(cache.stat().st_mode) == 0o700
    (lib,) = _objects(cache)
    assert stat.S_IMODE(lib.stat().st_mode) & 0o077 == 0
    assert stat.S_IMODE(lib.with_suffix(".sha256").stat().st_mode) == 0o600


@pytest.mark.parametrize("mode", [0o777, 0o775, 0o757])
def test_a_cache_others_may_write_is_refused(cache, mode):
    cache.mkdir()
    os.chmod(cache, mode)
    s, A, B = _schedule()
    with pytest.raises(LoweringError, match=rf"kernel cache {cache} is writable by other users .*chmod 700 {cache}"):
        build(s, [A, B], target="c")
    assert not _objects(cache)


def test_a_planted_object_in_a_world_writable_cache_is_never_loaded(cache):
    _run()
    (lib,) = _objects(cache)
    _replace(lib, b"\x7fELF planted by someone else")
    os.chmod(cache, 0o777)
    with pytest.raises(LoweringError, match="writable by other users"):
        _run()


def test_a_cache_of_another_user_is_refused(cache, monkeypatch):
    cache.mkdir(mode=0o700)
    monkeypatch.setattr(kernel_cache, "owner_id", lambda: os.geteuid() + 1)
    s, A, B = _schedule()
    with pytest.raises(LoweringError, match=rf"kernel cache {cache} belongs to another user"):
        build(s, [A, B], target="c")


def test_a_file_in_place_of_the_cache_is_refused(cache):
    cache.write_text("not a directory")
    s, A, B = _schedule()
    with pytest.raises(LoweringError, match="kernel cache"):
        build(s, [A, B], target="c")


def _replace(path: Path, data: bytes) -> None:
    """Damage as a crash or a full disk leaves it: a new file under the name (this process
    keeps its mapping of the old one, which writing in place would break)."""
    tmp = path.with_name("damaged")
    tmp.write_bytes(data)
    os.replace(tmp, path)


@pytest.mark.parametrize("damage", ["truncate", "corrupt", "record"])
def test_a_damaged_object_is_rebuilt_not_loaded(cache, damage):
    _run(2.0)
    (lib,) = _objects(cache)
    good = lib.read_bytes()
    if damage == "truncate":
        _replace(lib, good[: len(good) // 3])
    elif damage == "corrupt":
        _replace(lib, bytes(b ^ 0x5A for b in good))
    else:
        lib.with_suffix(".sha256").write_text("0" * 32 + " " + "0" * 64 + "\n")
    # A fresh process, which would crash on loading the damaged object, builds and runs it.
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    proc = ctx.Process(target=_build_in_process, args=(str(cache), queue, 2.0))
    proc.start()
    result = queue.get(timeout=120)
    proc.join(timeout=60)
    assert proc.exitcode == 0 and result == (np.arange(64, dtype="float32") * 2 + 1).tolist()
    assert _intact(lib)
    assert len(lib.read_bytes()) == len(good)


def test_threads_building_the_same_kernel_get_one_object(cache):
    errors: list[BaseException] = []

    def work() -> None:
        try:
            _run(5.0)
        except BaseException as err:  # noqa: BLE001 - reported below
            errors.append(err)
    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    (lib,) = _objects(cache)
    assert _intact(lib)
    assert not list(cache.glob("build-*"))  # no build directory left behind


def _build_in_process(folder: str, queue, scale: float = 7.0) -> None:
    os.environ["TEBOUND_CACHE_DIR"] = folder
    try:
        queue.put(_run(scale).tolist())
    except BaseException as err:  # noqa: BLE001 - sent to the parent
        queue.put(repr(err))


def test_processes_building_the_same_kernel_get_one_object(cache):
    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    procs = [ctx.Process(target=_build_in_process, args=(str(cache), queue)) for _ in range(3)]
    for p in procs:
        p.start()
    results = [queue.get(timeout=120) for _ in procs]
    for p in procs:
        p.join(timeout=60)
    expected = (np.arange(64, dtype="float32") * 7 + 1).tolist()
    assert results == [expected] * 3
    (lib,) = _objects(cache)
    assert _intact(lib)
