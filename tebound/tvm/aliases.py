"""Packages of ours that TVM names otherwise, made importable under TVM's names: every module
of ``topi`` is also ``tebound.tvm.topi...`` (the same module object, so ``import
tvm.topi.nn.pooling`` after the import rewrite gives ``topi.nn.pooling`` itself)."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from types import ModuleType

import topi


def alias_package(alias: str, package: ModuleType) -> None:
    """Register *package* and each of its submodules under *alias* in ``sys.modules``."""
    sys.modules[alias] = package
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        module = importlib.import_module(info.name)
        sys.modules[alias + info.name[len(package.__name__):]] = module


alias_package("tebound.tvm.topi", topi)
