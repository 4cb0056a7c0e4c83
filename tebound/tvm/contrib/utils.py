"""TVM's ``tvm.contrib.utils``: a temporary folder removed when the object goes."""

from __future__ import annotations

import os
import shutil
import tempfile


class TempDirectory:
    """A fresh folder (``temp_dir``); ``relpath(name)`` is a path inside it."""

    def __init__(self, custom_path: str | None = None, keep_for_debug: bool = False) -> None:
        if custom_path is not None:
            os.makedirs(custom_path, exist_ok=True)
            self.temp_dir = os.path.abspath(custom_path)
        else:
            self.temp_dir = tempfile.mkdtemp(prefix="tebound-")
        self._keep = keep_for_debug or custom_path is not None

    def relpath(self, name: str) -> str:
        return os.path.join(self.temp_dir, name)

    def listdir(self) -> list[str]:
        return sorted(os.listdir(self.temp_dir))

    def remove(self) -> None:
        if not self._keep and os.path.isdir(self.temp_dir):
            shutil.rmtree(self.temp_dir, ignore_errors=True)

    def __enter__(self) -> TempDirectory:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()

    def __del__(self) -> None:
        self.remove()


def tempdir(custom_path: str | None = None, keep_for_debug: bool = False) -> TempDirectory:
    """A new temporary folder (kept if *custom_path* names it or *keep_for_debug*)."""
    return TempDirectory(custom_path, keep_for_debug)
