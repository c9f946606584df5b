"""The Python client is its own distribution (clients/python); from a checkout, `salvo` finds it beside
the service when it is not installed."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from types import ModuleType

CLIENT_SRC = Path(__file__).resolve().parents[1] / "clients" / "python"


def salvo_client(module: str = "") -> ModuleType:
    name = "salvo_client" + (f".{module}" if module else "")
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError:
        if str(CLIENT_SRC) not in sys.path:
            sys.path.append(str(CLIENT_SRC))
        return importlib.import_module(name)
