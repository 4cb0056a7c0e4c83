"""The on-disk cache of compiled kernels, which only its owner can write.

A shared object found in the cache is loaded into the process, so whoever can write the cache
runs code as the user. The directory (``$TEBOUND_CACHE_DIR``, else ``$XDG_CACHE_HOME/tebound``,
else ``~/.cache/tebound``) is created private (0700); one owned by another user or writable by
others is refused. Each object has a record of the key it was built for and the SHA-256 of its
bytes, checked before it is loaded: a truncated or corrupted object is rebuilt. Builders of the
same key (threads or processes) take a lock on it, so one object is written and all load it.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import stat
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from lower.errors import LoweringError


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
    """*folder*, created 0700 if missing.

    :raises LoweringError: if it is not a directory, belongs to another user, or others may
        write to it (naming it and the fix).
    """
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.stat()
    except OSError as err:
        raise LoweringError(f"build: cannot create the kernel cache {folder}: {err.strerror}; set "
                            "TEBOUND_CACHE_DIR to a directory of your own") from None
    fix = f"set TEBOUND_CACHE_DIR to a directory of your own, or run: chmod 700 {folder}"
    if not stat.S_ISDIR(info.st_mode):
        raise LoweringError(f"build: the kernel cache {folder} is not a directory; set TEBOUND_CACHE_DIR to one")
    if info.st_uid != owner_id():
        raise LoweringError(f"build: the kernel cache {folder} belongs to another user (uid {info.st_uid}), who "
                            "could put code there that this process would load; set TEBOUND_CACHE_DIR to a "
                            "directory of your own")
    if info.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        raise LoweringError(f"build: the kernel cache {folder} is writable by other users (mode "
                            f"{stat.S_IMODE(info.st_mode):o}), who could put code there that this process "
                            f"would load; {fix}")
    return folder


def cached_object(key: str, build: Callable[[Path], None]) -> Path:
    """The shared object of *key*: from the cache if its record vouches for it, else made by
    ``build(path)`` and published atomically with its record."""
    folder = private_dir(cache_dir())
    lib, record = folder / f"k_{key}.so", folder / f"k_{key}.sha256"
    if _intact(lib, record, key):
        return lib
    with _locked(folder / f"k_{key}.lock"):
        if _intact(lib, record, key):  # built by another thread or process meanwhile
            return lib
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            out = Path(tmp) / "kernel.so"
            build(out)
            os.chmod(out, 0o700)
            note = Path(tmp) / "record"
            note.write_text(f"{key} {_digest(out)}\n")
            os.chmod(note, 0o600)
            os.replace(out, lib)
            os.replace(note, record)
    return lib


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _intact(lib: Path, record: Path, key: str) -> bool:
    """Whether *lib* exists and its bytes are those its record names for *key*."""
    try:
        claimed = record.read_text().split()
        return claimed == [key, _digest(lib)]
    except OSError:
        return False


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)  # closing releases the lock
