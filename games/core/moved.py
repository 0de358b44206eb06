"""Modules that moved keep working under their old names, with a deprecation warning.

Experiment YAMLs, plug-in entry points and run directories written before a module moved name
it by its old dotted path (``entry_point: games.block_maze:BlockMaze``). One finder, first on
``sys.meta_path``, answers the old names (an old name that is a package again is left out of
the tables): it imports the module under its new name and hands back that same module object,
so classes and registries are not duplicated and ``isinstance`` holds across old and new names.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys
import warnings
from types import ModuleType


class MovedModules(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Old dotted names (a package's old name covers its sub-modules) mapped to new ones."""

    def __init__(self) -> None:
        self.moved: dict[str, str] = {}
        self._real_specs: dict[str, importlib.machinery.ModuleSpec | None] = {}

    def new_name(self, name: str) -> str | None:
        """Where ``name`` lives now, or None if it never moved."""
        head, rest = name, ""
        while head:
            if head in self.moved:
                return self.moved[head] + rest
            head, _, tail = head.rpartition(".")
            rest = f".{tail}{rest}"
        return None

    def find_spec(self, name: str, path: object = None, target: object = None) -> importlib.machinery.ModuleSpec | None:
        # First on ``sys.meta_path``: a sub-module of a moved package (``evo.operators.base``)
        # would otherwise be found in the package's new folder and loaded a second time.
        if self.new_name(name) is None:
            return None
        return importlib.util.spec_from_loader(name, self)

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType:
        new = self.new_name(spec.name)
        assert new is not None
        warnings.warn(f"module {spec.name} moved to {new}; import it from there", DeprecationWarning, stacklevel=2)
        module = importlib.import_module(new)
        self._real_specs[spec.name] = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        # The import system stamped the old name's spec on the module; give it its own back.
        for old, spec in list(self._real_specs.items()):
            if spec is not None and spec.name == module.__name__:
                module.__spec__ = spec
                del self._real_specs[old]


def _finder() -> MovedModules:
    for finder in sys.meta_path:
        if type(finder).__name__ == "MovedModules" and hasattr(finder, "moved"):
            return finder  # type: ignore[return-value]
    finder = MovedModules()
    sys.meta_path.insert(0, finder)
    return finder


def install(moved: dict[str, str]) -> None:
    """Answer the old names of ``moved`` (old dotted name -> new one) from now on."""
    _finder().moved.update(moved)
