"""The kernel cache cannot be hijacked: a cache another user could swap for a directory of
theirs is refused, and a swap between the check and the load still loads the checked bytes;
a read-only cache falls back on a private one; what a killed compile left is removed; a cache
shared between machines keys kernels on the CPU."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import numpy as np
import pytest

import lower
from lower.backend.c import compile as compile_module
from lower.backend.c import kernel_cache

from ..lower.test_kernel_cache import _run
from .isolated import ROOT

pytestmark = pytest.mark.skipif(compile_module.find_compiler() is None, reason="no C compiler")
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="two users need root to run as both")

VICTIM, ATTACKER = 40001, 40002


def _planted(folder: Path, key: str, marker: Path) -> None:
    """An object for *key*, with a record that vouches for it, whose loading writes *marker*."""
    src = folder / "planted.c"
    src.write_text(f'#include <stdio.h>\n__attribute__((constructor)) static void planted(void) '
                   f'{{ FILE* f = fopen("{marker}", "w"); if (f) fclose(f); }}\nint tb_main(void) {{ return 0; }}\n')
    lib = folder / f"k_{key}.so"
    subprocess.run([compile_module.find_compiler(), "-shared", "-fPIC", "-o", str(lib), str(src)], check=True)
    (folder / f"k_{key}.sha256").write_text(f"{key} {hashlib.sha256(lib.read_bytes()).hexdigest()}\n")


def _key(tmp_path: Path, monkeypatch) -> str:
    """The cache key of :func:`_run`'s kernel (built once in a scratch cache)."""
    scratch = tmp_path / "scratch"
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(scratch))
    _run()
    (lib,) = scratch.glob("k_*.so")
    return lib.stem[2:]


def test_a_swap_between_the_check_and_the_load_still_loads_the_checked_bytes(tmp_path, monkeypatch):
    # Someone replaces the cache directory just after it was opened and checked (the injected
    # hook stands for a user who could rename entries in its parent) with one holding an object
    # for the very key being built, and a record that vouches for it.
    key = _key(tmp_path, monkeypatch)
    cache, evil, marker = tmp_path / "cache", tmp_path / "evil", tmp_path / "planted-ran"
    evil.mkdir(mode=0o700)
    _planted(evil, key, marker)
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(cache))
    opened = kernel_cache._open_checked

    def open_then_swap(folder):
        fd = opened(folder)
        if evil.exists():
            os.rename(cache, tmp_path / "moved")
            os.rename(evil, cache)
        return fd

    monkeypatch.setattr(kernel_cache, "_open_checked", open_then_swap)
    np.testing.assert_array_equal(_run(), np.arange(64) * 3 + 1)
    assert not marker.exists(), "the planted object was loaded"
    assert (tmp_path / "moved" / f"k_{key}.so").exists()  # built where the checks were made


def _as_user(uid: int | None, code: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    """Run *code* in a new interpreter as the user *uid* (imports first, as root: the
    interpreter may live where only root may look), or as this one's user if None."""
    prelude = textwrap.dedent(f"""
        import os, sys, numpy as np
        import schedule as te
        import lower
        uid = {uid!r}
        if uid is not None:
            os.setgid(uid); os.setuid(uid)
    """)
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                          cwd=ROOT, env={**os.environ, **env}, timeout=300)


_VICTIM_BUILDS = """
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 3 + 1, name="B")
    b = np.zeros(64, "float32")
    try:
        lower.build(te.create_schedule(B.op), [A, B], target="c")(np.arange(64, dtype="float32"), b)
        print("built", b[:3].tolist())
    except lower.LoweringError as e:
        print("refused:", e)
"""


@pytest.fixture
def shared_folder():
    """A folder that a victim and an attacker may both traverse (``tmp_path`` is root's own)."""
    base = Path(tempfile.mkdtemp(prefix="tebound-two-users-"))
    os.chmod(base, 0o755)
    yield base
    subprocess.run(["rm", "-rf", str(base)], check=False)


@as_root
def test_a_cache_in_a_folder_others_may_write_is_refused_while_an_attacker_swaps_it(shared_folder):
    shared = shared_folder / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)  # no sticky bit: anyone may rename the victim's cache
    cache, marker = shared / "cache", shared_folder / "planted-ran"
    cache.mkdir(mode=0o700)
    os.chown(cache, VICTIM, VICTIM)
    # The attacker swaps the victim's cache with a folder of theirs as fast as they can.
    attacker = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import os, time
        os.setgid({ATTACKER}); os.setuid({ATTACKER})
        evil = "{shared}/evil"
        os.mkdir(evil, 0o755)
        end = time.time() + 20
        while time.time() < end and not os.path.exists("{shared_folder}/stop"):
            try:
                os.rename("{cache}", "{shared}/victims")
                os.rename(evil, "{cache}")
                os.rename("{cache}", evil)
                os.rename("{shared}/victims", "{cache}")
            except OSError:
                pass
    """)])
    try:
        for _ in range(3):
            done = _as_user(VICTIM, _VICTIM_BUILDS, {"TEBOUND_CACHE_DIR": str(cache)})
            assert done.returncode == 0, done.stderr
            assert "refused:" in done.stdout and "which other users may write (mode 777, no sticky bit)" in done.stdout
    finally:
        (shared_folder / "stop").touch()
        attacker.wait(30)
    assert not marker.exists()


@as_root
def test_a_cache_in_a_sticky_folder_is_used_and_others_cannot_rename_it(shared_folder):
    shared = shared_folder / "shared"
    shared.mkdir()
    os.chmod(shared, 0o1777)  # as /tmp: only an entry's owner may rename it
    cache = shared / "cache"
    done = _as_user(VICTIM, _VICTIM_BUILDS, {"TEBOUND_CACHE_DIR": str(cache)})
    assert done.returncode == 0 and "built [1.0, 4.0, 7.0]" in done.stdout, done.stdout + done.stderr
    assert cache.stat().st_uid == VICTIM
    attempt = _as_user(ATTACKER, f"""
        try:
            os.rename("{cache}", "{shared}/taken")
            print("renamed")
        except PermissionError:
            print("refused")
    """, {})
    assert attempt.stdout.strip().endswith("refused")


@as_root
def test_a_cache_under_another_users_folder_is_refused(shared_folder, monkeypatch):
    other = shared_folder / "other"
    other.mkdir(mode=0o755)
    os.chown(other, ATTACKER, ATTACKER)
    cache = other / "cache"
    cache.mkdir(mode=0o700)
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(cache))
    with pytest.raises(lower.LoweringError, match=rf"lies in {other}, which belongs to another user \(uid {ATTACKER}\)"):
        _run()


def test_an_ancestor_of_another_user_is_refused_by_its_owner(tmp_path, monkeypatch):
    # Without root, the other user is injected: the check sees every folder as someone else's.
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(tmp_path / "cache"))
    real_stat = Path.stat

    def owned_by_someone_else(self, *args, **kwargs):
        info = real_stat(self, *args, **kwargs)
        if self == tmp_path:
            return os.stat_result((info.st_mode, info.st_ino, info.st_dev, info.st_nlink, ATTACKER, ATTACKER,
                                   info.st_size, info.st_atime, info.st_mtime, info.st_ctime))
        return info

    monkeypatch.setattr(Path, "stat", owned_by_someone_else)
    with pytest.raises(lower.LoweringError, match=rf"lies in {tmp_path}, which belongs to another user"):
        _run()


def test_an_ancestor_others_may_write_without_the_sticky_bit_is_refused(tmp_path, monkeypatch):
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, 0o777)
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(shared / "cache"))
    with pytest.raises(lower.LoweringError, match=rf"lies in {shared}, which other users may write"):
        _run()


READ_ONLY = """
    import warnings
    A = te.placeholder((64,), name="A")
    B = te.compute((64,), lambda i: A[i] * 3 + 1, name="B")
    b = np.zeros(64, "float32")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lower.build(te.create_schedule(B.op), [A, B], target="c")(np.arange(64, dtype="float32"), b)
    print("built", b[:3].tolist())
    print("warned", [str(w.message) for w in caught if w.category.__name__ == "CacheWarning"])
"""


def test_a_read_only_cache_falls_back_on_a_private_one(shared_folder):
    cache = shared_folder / "cache"
    cache.mkdir(mode=0o500)
    user = VICTIM if os.geteuid() == 0 else None  # root writes anywhere: the cache is another user's
    if user is not None:
        os.chown(cache, user, user)
    done = _as_user(user, READ_ONLY, {"TEBOUND_CACHE_DIR": str(cache)})
    assert done.returncode == 0, done.stderr
    assert "built [1.0, 4.0, 7.0]" in done.stdout
    assert f"the kernel cache {cache} cannot be written (Permission denied); kernels go to the temporary cache" \
        in done.stdout
    assert not list(cache.iterdir())


def test_what_a_killed_compile_left_is_removed_by_a_later_build(tmp_path, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(cache))
    monkeypatch.setattr(kernel_cache, "_last_sweep", {})
    cache.mkdir(mode=0o700)
    old, recent, dead = cache / "build-0123456789abcdef", cache / "build-fedcba9876543210", cache / ".loaded-999999999-ab"
    for folder in (old, recent, dead):
        folder.mkdir()
        (folder / "kernel.c").write_text("int x;")
    hours_ago = time.time() - 2 * 3600
    os.utime(old, (hours_ago, hours_ago))
    _run()
    assert not old.exists() and not dead.exists()
    assert recent.exists()  # a compile that may still be running


def test_kernels_are_keyed_on_the_cpu(tmp_path, monkeypatch):
    # A cache in a home directory shared between machines: another CPU builds its own kernel.
    cache = tmp_path / "cache"
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(cache))
    _run()
    monkeypatch.setattr(compile_module, "native_target", lambda: "-mavx512f [disabled] (another machine)")
    _run()
    assert len(list(cache.glob("k_*.so"))) == 2


def test_a_private_copy_held_by_a_live_process_survives_a_sweep_whatever_its_pid(tmp_path, monkeypatch):
    """Containers sharing a volume see each other's folders under PIDs that do not exist here:
    a folder is in use while its process holds its lock, and only then."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(cache))
    cache.mkdir(mode=0o700)
    other = cache / ".loaded-999999999-cd"  # a PID no process here has
    other.mkdir()
    (other / "k_x.so").write_text("loaded elsewhere")
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import fcntl, os, sys
        fd = os.open({str(other)!r}, os.O_RDONLY | os.O_DIRECTORY)
        fcntl.flock(fd, fcntl.LOCK_SH)
        print("locked", flush=True)
        sys.stdin.read()
    """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        monkeypatch.setattr(kernel_cache, "_last_sweep", {})
        _run()
        assert (other / "k_x.so").exists()  # its process lives
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    monkeypatch.setattr(kernel_cache, "_last_sweep", {})
    _run()
    assert not other.exists()  # its process ended: the lock went with it


@pytest.mark.parametrize("kind", ["fifo", "directory"])
def test_a_fifo_or_directory_in_place_of_a_cached_file_is_built_past(tmp_path, monkeypatch, kind):
    key = _key(tmp_path, monkeypatch)
    cache = tmp_path / "cache"
    monkeypatch.setenv("TEBOUND_CACHE_DIR", str(cache))
    cache.mkdir(mode=0o700)
    for name in (f"k_{key}.so", f"k_{key}.sha256"):
        if kind == "fifo":
            os.mkfifo(cache / name)
        else:
            (cache / name).mkdir()
    with pytest.warns(kernel_cache.CacheWarning, match="not a file"):
        _run()  # neither blocks on the FIFO nor fails on the directory
    assert (cache / f"k_{key}.1.so").is_file()
    _run()  # and again: the kernel is found under its other name
