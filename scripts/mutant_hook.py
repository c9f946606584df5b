"""pytest plugin for scripts/mutate.py: loads one mutated rules module in place of its file.

``SALVO_MUTANT`` (JSON: module, path, source) names the module and gives its mutated source; a meta-path finder
placed first answers that one import with the mutated code, so the working tree is never written.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import json
import os
import sys
from types import ModuleType
from typing import Any


class _MutantLoader(importlib.abc.Loader):
    def __init__(self, path: str, source: str) -> None:
        self.path, self.source = path, source

    def create_module(self, spec: importlib.machinery.ModuleSpec) -> ModuleType | None:
        return None

    def exec_module(self, module: ModuleType) -> None:
        exec(compile(self.source, self.path, "exec"), module.__dict__)  # noqa: S102 - the point of the hook


class _MutantFinder(importlib.abc.MetaPathFinder):
    def __init__(self, name: str, path: str, source: str) -> None:
        self.name, self.loader = name, _MutantLoader(path, source)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> importlib.machinery.ModuleSpec | None:
        if fullname != self.name:
            return None
        return importlib.machinery.ModuleSpec(fullname, self.loader, origin=self.loader.path)


_raw = os.environ.get("SALVO_MUTANT")
if _raw:
    _m = json.loads(_raw)
    assert _m["module"] not in sys.modules, "the mutated module was imported before the hook"
    sys.meta_path.insert(0, _MutantFinder(_m["module"], _m["path"], _m["source"]))
    print("SALVO_MUTANT loaded", _m["module"], file=sys.stderr)
