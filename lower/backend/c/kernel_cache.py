"""The on-disk cache of compiled kernels, which only its owner can write.

A shared object found in the cache is loaded into the process, so whoever can write the cache
runs code as the user. The directory (``$TEBOUND_CACHE_DIR``, else ``$XDG_CACHE_HOME/tebound``,
else ``~/.cache/tebound``) is created private (0700); one owned by another user or writable by
others is refused, and so is one that another user could swap for a directory of theirs: an
ancestor owned by another user (but root), or writable by others without the sticky bit.

The directory is opened once per build and everything happens relative to that descriptor,
never again through its path: files are created, read and checked there, and a kernel is
loaded from a private copy of the very bytes whose SHA-256 matched its record (a copy in a
directory of this process, inside the cache). Builders of the same key (threads or processes)
take a lock on it, so one object is written and all load it. A read-only cache falls back on a
private temporary one, with a warning; temporary directories left by a compile that was killed
are removed by a later build.
"""

from __future__ import annotations

import atexit
import contextlib
import errno
import fcntl
import hashlib
import os
import secrets
import shutil
import stat
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from lower.errors import LoweringError

#: Temporary directories of ours older than this (seconds) belong to a compile that was killed.
STALE_SECONDS = 3600.0
_BUILDING, _LOADING, _COMPILING, _PENDING = "build-", ".loaded-", "tebound-build-", ".loading-"
_O = os.O_NOFOLLOW | os.O_CLOEXEC


class CacheWarning(UserWarning):
    """The kernel cache cannot be written: kernels go to a private temporary cache instead."""


def cache_dir() -> Path:
    """Where compiled kernels are kept."""
    base = os.environ.get("TEBOUND_CACHE_DIR")
    if base:
        return Path(base)
    xdg = os.environ.get("XDG_CACHE_HOME")
    return (Path(xdg) if xdg else Path.home() / ".cache") / "tebound"


def owner_id() -> int:
    """The user the cache must belong to (the process's effective user)."""
    return os.geteuid()


def private_dir(folder: Path) -> Path:
    """*folder*, created 0700 if missing, once it is checked as :func:`open_cache` checks it.

    :raises LoweringError: naming the problem and the fix.
    """
    fd = _open_checked(folder)
    os.close(fd)
    return folder


class _Cache:
    """An opened cache directory: *fd* refers to it whatever happens to its path later."""

    def __init__(self, path: Path, fd: int) -> None:
        self.path, self.fd = path, fd

    def open(self, name: str, flags: int, mode: int = 0o600) -> int:
        return os.open(name, flags | _O, mode, dir_fd=self.fd)

    def read(self, name: str) -> bytes | None:
        """The bytes of the regular file *name*, else None (opened without blocking: a FIFO put
        there must not hang the build)."""
        try:
            fd = self.open(name, os.O_RDONLY | os.O_NONBLOCK)
        except OSError:
            return None
        with os.fdopen(fd, "rb") as f:
            if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                return None
            return f.read()


def cached_object(key: str, build: Callable[[Path], None]) -> Path:
    """A private copy of the shared object of *key*, to load: from the cache if its record
    vouches for its bytes, else made by ``build(path)`` and published atomically with its record."""
    cache = _open_cache()
    try:
        stem = _slot(cache, key)
        data = _intact(cache, stem, key)
        if data is None:
            try:
                lock = cache.open(f"{stem}.lock", os.O_RDWR | os.O_CREAT | os.O_NONBLOCK)
            except OSError as err:
                if err.errno not in (errno.EACCES, errno.EROFS, errno.EPERM):
                    raise
                os.close(cache.fd)
                cache = _fallback(cache.path, err)
                stem = _slot(cache, key)
                lock = cache.open(f"{stem}.lock", os.O_RDWR | os.O_CREAT | os.O_NONBLOCK)
            with _locked(lock):
                data = _intact(cache, stem, key)  # built by another thread or process meanwhile
                if data is None:
                    data = _build(cache, stem, key, build)
        return _private_copy(cache, key, data)
    finally:
        os.close(cache.fd)


#: Names a kernel's files may take: its own, then others where something that is not a file
#: (a FIFO, a directory) sits in the way.
SLOTS = 8


def _slot(cache: _Cache, key: str) -> str:
    """The stem of *key*'s files (``k_<key>``, ``.so``/``.sha256``/``.lock`` appended): the
    first whose three names hold only regular files or nothing. Anything else there is a miss
    that the kernel is built past, under the next stem, with a :class:`CacheWarning`."""
    for n in range(SLOTS):
        stem = f"k_{key}" if n == 0 else f"k_{key}.{n}"
        names = (f"{stem}.so", f"{stem}.sha256", f"{stem}.lock")
        foreign = [name for name in names if not _regular_or_absent(cache, name)]
        if not foreign:
            return stem
        if n == 0 and (str(cache.path), key) not in _warned:
            _warned.add((str(cache.path), key))
            warnings.warn(f"build: the kernel cache {cache.path} holds {', '.join(foreign)}, which is not a file; "
                          "the kernel is built under another name (remove it to reclaim the name)", CacheWarning,
                          stacklevel=4)
    raise LoweringError(f"build: the kernel cache {cache.path} holds things that are not files under every name of "
                        f"kernel k_{key} (k_{key}.so, k_{key}.1.so ...); remove them or set TEBOUND_CACHE_DIR")


_warned: set[tuple[str, str]] = set()  # the kernels whose names were said to be taken, once each


def _regular_or_absent(cache: _Cache, name: str) -> bool:
    try:
        info = os.stat(name, dir_fd=cache.fd, follow_symlinks=False)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    return stat.S_ISREG(info.st_mode)


def private_library(data: bytes) -> Path:
    """A private copy of the library bytes *data* for this process to load, named by their
    hash: a library rewritten at its path is a new file to the loader (which otherwise hands
    back what it loaded from that path before)."""
    cache = _open_cache()
    try:
        return _private_copy(cache, "lib_" + hashlib.sha256(data).hexdigest(), data)
    finally:
        os.close(cache.fd)


def _open_cache() -> _Cache:
    folder = _fallen_back.get(str(cache_dir())) or cache_dir()
    fd = _open_checked(folder)
    cache = _Cache(folder, fd)
    _remove_stale(cache)
    return cache


def _open_checked(folder: Path) -> int:
    """A descriptor of the cache directory *folder* (created 0700 if missing), checked on the
    descriptor itself, its ancestors checked on the way."""
    try:
        _check_ancestors(Path(os.path.realpath(folder)))  # before creating anything there
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        real = Path(os.path.realpath(folder))
        _check_ancestors(real)
        fd = os.open(real, os.O_RDONLY | os.O_DIRECTORY | _O)
    except (NotADirectoryError, FileExistsError):
        raise LoweringError(f"build: the kernel cache {folder} is not a directory; set TEBOUND_CACHE_DIR "
                            "to one") from None
    except OSError as err:
        raise LoweringError(f"build: cannot create the kernel cache {folder}: {err.strerror}; set "
                            "TEBOUND_CACHE_DIR to a directory of your own") from None
    info = os.fstat(fd)
    fix = f"set TEBOUND_CACHE_DIR to a directory of your own, or run: chmod 700 {folder}"
    problem = None
    if not stat.S_ISDIR(info.st_mode):
        problem = f"the kernel cache {folder} is not a directory; set TEBOUND_CACHE_DIR to one"
    elif info.st_uid != owner_id():
        problem = (f"the kernel cache {folder} belongs to another user (uid {info.st_uid}), who could put "
                   "code there that this process would load; set TEBOUND_CACHE_DIR to a directory of your own")
    elif info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        problem = (f"the kernel cache {folder} is writable by other users (mode {stat.S_IMODE(info.st_mode):o}), "
                   f"who could put code there that this process would load; {fix}")
    if problem is not None:
        os.close(fd)
        raise LoweringError(f"build: {problem}")
    return fd


def _check_ancestors(real: Path) -> None:
    """Refuse a cache whose path another user could point elsewhere: an ancestor that belongs to
    another user (but root), or that others may write without the sticky bit (with it, only the
    owner of an entry may rename it: the entry must then be root's or ours)."""
    me = owner_id()
    parts = real.parts
    for depth in range(1, len(parts)):
        parent, child = Path(*parts[:depth]), Path(*parts[:depth + 1])
        try:
            info = parent.stat()
        except FileNotFoundError:
            return  # the rest is created by this process, private
        if not stat.S_ISDIR(info.st_mode):
            return  # mkdir says what is wrong
        if info.st_uid not in (0, me):
            raise LoweringError(f"build: the kernel cache {real} lies in {parent}, which belongs to another user "
                                f"(uid {info.st_uid}), who could swap {child.name} for a directory of theirs; "
                                "set TEBOUND_CACHE_DIR to a directory of your own")
        if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
            if not info.st_mode & stat.S_ISVTX:
                raise LoweringError(f"build: the kernel cache {real} lies in {parent}, which other users may write "
                                    f"(mode {stat.S_IMODE(info.st_mode):o}, no sticky bit), so they could swap "
                                    f"{child.name} for a directory of theirs; set TEBOUND_CACHE_DIR to a directory "
                                    "whose parents only you (or root) may write")
            with contextlib.suppress(FileNotFoundError):
                if child.lstat().st_uid in (0, me):
                    continue
                raise LoweringError(f"build: the kernel cache {real} lies in {child}, which belongs to another "
                                    "user, in a directory others may write; set TEBOUND_CACHE_DIR to a directory "
                                    "of your own")


#: Cache directories that could not be written -> the private temporary cache used instead.
_fallen_back: dict[str, Path] = {}


def _fallback(folder: Path, err: OSError) -> _Cache:
    """A private temporary cache for this process, for the read-only *folder*."""
    temporary = Path(tempfile.mkdtemp(prefix="tebound-cache-"))
    atexit.register(shutil.rmtree, temporary, True)
    _fallen_back[str(folder)] = temporary
    warnings.warn(f"build: the kernel cache {folder} cannot be written ({err.strerror}); kernels go to the "
                  f"temporary cache {temporary} for this process (set TEBOUND_CACHE_DIR to a directory you "
                  "can write to keep them)", CacheWarning, stacklevel=4)
    return _Cache(temporary, _open_checked(temporary))


def _build(cache: _Cache, stem: str, key: str, build: Callable[[Path], None]) -> bytes:
    """Compile in a private temporary directory (the compiler works by path, and the cache's path
    is not to be trusted twice), then publish the object's bytes and its record in the cache."""
    work = Path(tempfile.mkdtemp(prefix=_COMPILING))
    try:
        build(work / "kernel.so")
        data = (work / "kernel.so").read_bytes()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    digest = hashlib.sha256(data).hexdigest()
    tmp = _BUILDING + secrets.token_hex(8)
    os.mkdir(tmp, 0o700, dir_fd=cache.fd)
    try:
        _write(cache, f"{tmp}/object", data, 0o700)
        _write(cache, f"{tmp}/record", f"{key} {digest}\n".encode(), 0o600)
        os.replace(f"{tmp}/object", f"{stem}.so", src_dir_fd=cache.fd, dst_dir_fd=cache.fd)
        os.replace(f"{tmp}/record", f"{stem}.sha256", src_dir_fd=cache.fd, dst_dir_fd=cache.fd)
    finally:
        _remove_tree(cache, tmp)
    return data


def _write(cache: _Cache, name: str, data: bytes, mode: int) -> None:
    fd = cache.open(name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(data)


def _intact(cache: _Cache, stem: str, key: str) -> bytes | None:
    """The object of *key* (its files named *stem*) if its bytes are those its record names,
    else None."""
    record, data = cache.read(f"{stem}.sha256"), cache.read(f"{stem}.so")
    if record is None or data is None:
        return None
    return data if record.decode(errors="replace").split() == [key, hashlib.sha256(data).hexdigest()] else None


#: This process's directory of private copies, by cache directory: its name and a descriptor
#: kept open while the process lives (kernels are loaded through it, see :func:`_private_copy`).
_loading: dict[str, tuple[str, int]] = {}


def _private_copy(cache: _Cache, key: str, data: bytes) -> Path:
    """A file of this process holding *data* (checked bytes) to load: nobody else writes it
    between the check and the load, and its path goes through a descriptor of this process's
    directory (``/proc/self/fd/N/k_<key>.so``), so that swapping a directory on the way cannot
    make the loader open another file. The directory is held under a shared lock while the
    process lives, which is how a sweep in another process (another PID namespace too) knows
    it is in use; if it is gone all the same, a new one is made."""
    try:
        return _copy_into(cache, _loading_dir(cache), key, data)
    except FileNotFoundError:
        _loading.pop(str(cache.path), None)
        return _copy_into(cache, _loading_dir(cache), key, data)


def _loading_dir(cache: _Cache) -> tuple[str, int]:
    found = _loading.get(str(cache.path))
    if found is None:
        # Made under a name of its own and locked before it takes the name a sweep looks at.
        partial = f"{_PENDING}{secrets.token_hex(8)}"
        os.mkdir(partial, 0o700, dir_fd=cache.fd)
        fd = os.open(partial, os.O_RDONLY | os.O_DIRECTORY | _O, dir_fd=cache.fd)
        fcntl.flock(fd, fcntl.LOCK_SH)
        folder = f"{_LOADING}{os.getpid()}-{secrets.token_hex(4)}"
        os.rename(partial, folder, src_dir_fd=cache.fd, dst_dir_fd=cache.fd)
        found = _loading[str(cache.path)] = (folder, fd)
        atexit.register(shutil.rmtree, cache.path / folder, True)
    return found


def _copy_into(cache: _Cache, found: tuple[str, int], key: str, data: bytes) -> Path:
    folder, fd = found
    name = f"k_{key}.so"
    if not _exists(name, fd):  # else loaded before, or by another thread: the same bytes
        # Written whole under a name of its own, then renamed: a thread that finds the name
        # finds all of the file.
        partial = f".{name}.{secrets.token_hex(4)}"
        out = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _O, 0o700, dir_fd=fd)
        with os.fdopen(out, "wb") as f:
            f.write(data)
        os.replace(partial, name, src_dir_fd=fd, dst_dir_fd=fd)
    through = Path(f"/proc/self/fd/{fd}")
    return through / name if through.is_dir() else cache.path / folder / name


def _exists(name: str, dir_fd: int) -> bool:
    try:
        os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return False
    return True


def _remove_stale(cache: _Cache) -> None:
    """Remove temporary directories of compiles that were killed (older than
    :data:`STALE_SECONDS`, in the cache and in the temporary folder), and private copies of
    processes that ended; at most once a minute."""
    now = time.monotonic()
    if now - _last_sweep.get(str(cache.path), -1e9) < 60:
        return
    _last_sweep[str(cache.path)] = now
    with contextlib.suppress(OSError):
        for entry in os.scandir(tempfile.gettempdir()):
            if entry.name.startswith(_COMPILING) and entry.is_dir(follow_symlinks=False):
                info = entry.stat(follow_symlinks=False)
                if info.st_uid == owner_id() and time.time() - info.st_mtime > STALE_SECONDS:
                    shutil.rmtree(entry.path, ignore_errors=True)
    for entry in os.scandir(cache.fd):
        if entry.name.startswith(_BUILDING):
            with contextlib.suppress(OSError):
                if time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_SECONDS:
                    _remove_tree(cache, entry.name)
        elif entry.name.startswith(_LOADING) and not _in_use(cache, entry.name):
            _remove_tree(cache, entry.name)
        elif entry.name.startswith(_PENDING):
            with contextlib.suppress(OSError):
                if time.time() - entry.stat(follow_symlinks=False).st_mtime > STALE_SECONDS:
                    _remove_tree(cache, entry.name)


_last_sweep: dict[str, float] = {}


def _in_use(cache: _Cache, name: str) -> bool:
    """Whether a process holds the private directory *name* (its shared lock): a PID says
    nothing across PID namespaces (containers sharing a volume), a lock does."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | _O, dir_fd=cache.fd)
    except OSError:
        return True  # gone already, or not ours to judge
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        return True
    finally:
        os.close(fd)  # releases the lock taken to test it
    return False


def _remove_tree(cache: _Cache, name: str) -> None:
    """Remove the directory *name* of the cache and what it holds (one level: ours only hold files)."""
    with contextlib.suppress(OSError):
        fd = os.open(name, os.O_RDONLY | os.O_DIRECTORY | _O, dir_fd=cache.fd)
        try:
            for entry in os.listdir(fd):
                with contextlib.suppress(OSError):
                    os.unlink(entry, dir_fd=fd)
        finally:
            os.close(fd)
        os.rmdir(name, dir_fd=cache.fd)


@contextmanager
def _locked(fd: int) -> Iterator[None]:
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
