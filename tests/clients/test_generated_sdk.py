"""An integrator's SDK from the committed document, with no patching (issue 35): openapi-python-client
(pinned in the dev dependencies) generates a Python client from openapi/openapi.json with no warning (no
dropped operation, no unsupported body), and that client plays a GSC2 duel to its end against a live
server, every event typed by its envelope's ``type`` (tests/clients/generated_play.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.server import ServerProcess

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    out = tmp_path_factory.mktemp("sdk") / "out"
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}  # its ruff formats the code
    result = subprocess.run(
        [
            str(BIN / "openapi-python-client"),
            "generate",
            "--path",
            str(ROOT / "openapi" / "openapi.json"),
            "--output-path",
            str(out),
        ],
        capture_output=True,
        text=True,
        env=env,
        cwd=out.parent,
        timeout=300,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return out, result.stdout + result.stderr


@pytest.mark.slow
def test_openapi_python_client_generates_every_operation_without_a_warning(generated: tuple[Path, str]) -> None:
    out, log = generated
    assert "warning" not in log.lower() and "will not be generated" not in log, log
    document = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    operations = {op["operationId"] for item in document["paths"].values() for op in item.values()}
    modules = {p.stem for p in (out / "salvo_client" / "api").rglob("*.py") if p.stem != "__init__"}
    assert modules == operations
    spectator_read = (out / "salvo_client" / "api" / "games" / "get_game.py").read_text()
    assert "client: AuthenticatedClient | Client" in spectator_read  # no token needed to watch


@pytest.mark.slow
def test_the_generated_client_plays_a_gsc2_duel_to_its_end(
    generated: tuple[Path, str], live_server: ServerProcess
) -> None:
    out, _log = generated
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    result = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "clients" / "generated_play.py"), live_server.url],
        capture_output=True,
        text=True,
        timeout=170,
        cwd=out,
        env={**env, "PYTHONPATH": str(out)},
    )
    assert result.returncode == 0, result.stdout + result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["over"] and seen["commands"] > 3 and seen["imported"], seen
    assert seen["export_lines"] == len(seen["events"]) + 1
    for tag, envelope, data in seen["events"]:  # each event parsed as its own envelope, its data its payload
        assert envelope.endswith("Envelope") and data == envelope.removesuffix("Envelope"), (tag, envelope, data)
    kinds = {tag for tag, _e, _d in seen["events"]}
    assert {"game.created", "dice.committed", "gsc2.ship_moved", "gsc2.game_over"} <= kinds, kinds
