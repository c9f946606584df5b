"""openapi/openapi.json is generated from the app (msgspec types merged in) and must be up to date.

Regenerate with: .venv/bin/python -m service openapi --output openapi/openapi.json
"""

from __future__ import annotations

import json
from pathlib import Path

from service.api.app import create_app
from service.domain.core import register_ruleset, unregister_ruleset
from service.settings import Settings
from tests.support import tiny

COMMITTED = Path(__file__).resolve().parents[1] / "openapi" / "openapi.json"


def test_committed_openapi_is_current():
    unregister_ruleset("tiny")  # the document describes what ships, not the test ruleset
    try:
        generated = create_app(Settings()).openapi()
    finally:
        register_ruleset("tiny", tiny.RULESET)
    committed = json.loads(COMMITTED.read_text())
    assert committed == json.loads(json.dumps(generated)), (
        "openapi/openapi.json is stale: run `python -m service openapi --output openapi/openapi.json`")


def test_command_and_event_schemas_come_from_msgspec_types():
    doc = json.loads(COMMITTED.read_text())
    schemas = doc["components"]["schemas"]
    assert "Envelope" in schemas and "CommandRequest" in schemas and "DiceCommitted" in schemas
    paths = doc["paths"]
    for path in ("/v1/rulesets", "/v1/games", "/v1/games/{game_id}", "/v1/games/{game_id}/commands",
                 "/v1/games/{game_id}/options", "/v1/games/{game_id}/events", "/v1/games/{game_id}/turns/{turn}"):
        assert path in paths, path
    ref = paths["/v1/games/{game_id}/commands"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert ref == {"$ref": "#/components/schemas/CommandRequest"}
