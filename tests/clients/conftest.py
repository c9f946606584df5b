"""The Python client lives in clients/python (its own distribution); tests import it from there, and a
live server (tests/support/server.py) answers it over real HTTP and websockets."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

CLIENT_SRC = Path(__file__).resolve().parents[2] / "clients" / "python"
if str(CLIENT_SRC) not in sys.path:
    sys.path.insert(0, str(CLIENT_SRC))

from tests.support.server import ServerProcess  # noqa: E402


@pytest.fixture(scope="module")
def live_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ServerProcess]:
    db = tmp_path_factory.mktemp("live") / "salvo.db"
    with ServerProcess(f"sqlite:///{db}", env={"SALVO_HEARTBEAT_SECONDS": "0.5"}) as server:
        yield server
