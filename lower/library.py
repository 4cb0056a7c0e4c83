"""Shared objects a built function is exported to (TVM's ``export_library``): the kernel's C and,
in the same library, the metadata that loading it in another process needs (``read_library``):
the entry name, the checks, fast math and the lowered function as ``save_json`` text, from which
the arguments, their dtypes and shapes follow."""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import shutil
import tempfile
from typing import Any

from lower.backend.c.compile import compile_c, compile_object, link_shared
from lower.backend.c.kernel_cache import private_library

#: The symbols the metadata is stored under, and the format it is written in.
SYMBOL = "tebound_module_metadata"
FORMAT = "tebound-module"
VERSION = 1


def _with_metadata(source: str, metadata: dict[str, Any]) -> str:
    data = json.dumps({"format": FORMAT, "version": VERSION, **metadata}).encode()
    rows = ",\n".join(", ".join(str(b) for b in data[k:k + 32]) for k in range(0, len(data), 32))
    return source + (f"\nconst unsigned long long {SYMBOL}_size = {len(data)}ULL;\n"
                     f"const unsigned char {SYMBOL}[{max(len(data), 1)}] = {{\n{rows}\n}};\n")


def write_library(source: str, fast_math: bool, metadata: dict[str, Any], path: str) -> None:
    """Compile *source* with *metadata* beside it into the shared object *path*: written under
    a name of its own beside it, then renamed over it, so that a process that has *path*
    loaded keeps its mapping intact (rewriting a mapped library in place crashes it)."""
    folder = os.path.dirname(os.path.abspath(path))
    fd, partial = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", dir=folder)
    try:
        built = compile_c(_with_metadata(source, metadata), fast_math, metadata.get("fp_contract", False))
        with os.fdopen(fd, "wb") as out, open(built, "rb") as src:
            shutil.copyfileobj(src, out)
        os.chmod(partial, 0o755)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(partial)
        raise


def write_object(source: str, fast_math: bool, metadata: dict[str, Any], path: str) -> None:
    """Compile *source* with *metadata* into the object file *path* (TVM's ``mod.save("x.o")``);
    :func:`create_shared` links such objects into a library :func:`read_library` reads."""
    compile_object(_with_metadata(source, metadata), fast_math, path, metadata.get("fp_contract", False))


def create_shared(output: Any, objects: Any, options: Any = None, cc: str | None = None) -> None:
    """TVM's ``contrib.cc.create_shared``: links object files (``mod.save("x.o")``) into the
    shared object *output*."""
    objects = [objects] if isinstance(objects, (str, os.PathLike)) else list(objects)
    if not objects:
        raise ValueError("create_shared: give at least one object file")
    link_shared(os.fspath(output), [os.fspath(o) for o in objects], list(options or []), cc)


def read_library(path: str) -> tuple[dict[str, Any], str]:
    """The metadata of the library at *path*, and its absolute path.

    :raises ValueError: for a file that is not a library ``export_library`` wrote, naming it.
    """
    shown = os.path.abspath(os.fspath(path))
    where = os.path.abspath(os.fspath(path))
    try:
        with open(where, "rb") as f:  # loaded from a private copy of these bytes (see private_library)
            where = str(private_library(f.read()))
        lib = ctypes.CDLL(where)
        size = ctypes.c_ulonglong.in_dll(lib, f"{SYMBOL}_size").value
        data = bytes((ctypes.c_ubyte * size).in_dll(lib, SYMBOL))
        metadata = json.loads(data.decode())
    except OSError as err:
        raise ValueError(f"load_module: cannot load {shown}: {err}") from None
    except (ValueError, UnicodeDecodeError):
        raise ValueError(f"load_module: {shown} is not a library export_library wrote (no readable metadata)") \
            from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT or metadata.get("version") != VERSION:
        raise ValueError(f"load_module: {shown} holds metadata of another format or version")
    return metadata, where
