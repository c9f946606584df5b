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


def test_every_operation_has_a_typed_success_and_problem_errors():
    doc = json.loads(COMMITTED.read_text())
    assert doc["openapi"].startswith("3.1")
    schemas = doc["components"]["schemas"]
    assert "HTTPValidationError" not in schemas  # the service answers problem+json, never FastAPI's shape
    assert doc["components"]["securitySchemes"]["bearer"] == {**doc["components"]["securitySchemes"]["bearer"],
                                                              "type": "http", "scheme": "bearer"}
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            name = f"{method.upper()} {path} ({op['operationId']})"
            assert "security" in op, name
            successes = [code for code in op["responses"] if code.startswith("2")]
            assert len(successes) == 1, name
            success = op["responses"][successes[0]]
            if successes[0] != "204":
                (media, content), = success["content"].items()
                schema = content["schema"]
                assert schema != {"type": "string"} or media != "application/json", name
            errors = [code for code in op["responses"] if not code.startswith("2")]
            reads_a_token = op["security"] != []
            assert ("429" in errors) == reads_a_token, name  # the limits: commands, authenticating a token
            for code in errors:
                problem = op["responses"][code]["content"]["application/problem+json"]
                assert problem["schema"] == {"$ref": "#/components/schemas/Problem"}, (name, code)
                assert all(ex["value"]["status"] == int(code) for ex in problem["examples"].values()), (name, code)
            assert not any(p["name"].lower() == "authorization" for p in op.get("parameters", ())), name
    commands = doc["paths"]["/v1/games/{game_id}/commands"]["post"]
    assert set(commands["responses"]) == {"201", "401", "403", "404", "409", "413", "422", "429"}
    assert commands["security"] == [{}, {"bearer": []}]
    assert doc["paths"]["/v1/games"]["post"]["security"] == []
    assert schemas["Command"]["anyOf"] and schemas["Option"]["properties"]["command"] == {
        "$ref": "#/components/schemas/Command"}
