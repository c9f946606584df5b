"""openapi/openapi.json is generated from the app (msgspec types merged in) and must be up to date.

Regenerate with: .venv/bin/python -m service openapi --output openapi/openapi.json
"""

from __future__ import annotations

import json
import re
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
        "openapi/openapi.json is stale: run `python -m service openapi --output openapi/openapi.json`"
    )


def test_command_and_event_schemas_come_from_msgspec_types():
    doc = json.loads(COMMITTED.read_text())
    schemas = doc["components"]["schemas"]
    assert "Envelope" in schemas and "CommandRequest" in schemas and "DiceCommitted" in schemas
    paths = doc["paths"]
    for path in (
        "/v1/rulesets",
        "/v1/games",
        "/v1/games/{game_id}",
        "/v1/games/{game_id}/commands",
        "/v1/games/{game_id}/options",
        "/v1/games/{game_id}/events",
        "/v1/games/{game_id}/turns/{turn}",
    ):
        assert path in paths, path
    ref = paths["/v1/games/{game_id}/commands"]["post"]["requestBody"]["content"]["application/json"]["schema"]
    assert ref == {"$ref": "#/components/schemas/CommandRequest"}


def test_every_operation_has_a_typed_success_and_problem_errors():
    doc = json.loads(COMMITTED.read_text())
    assert doc["openapi"].startswith("3.1")
    schemas = doc["components"]["schemas"]
    assert "HTTPValidationError" not in schemas  # the service answers problem+json, never FastAPI's shape
    assert doc["components"]["securitySchemes"]["bearer"] == {
        **doc["components"]["securitySchemes"]["bearer"],
        "type": "http",
        "scheme": "bearer",
    }
    for path, methods in doc["paths"].items():
        for method, op in methods.items():
            name = f"{method.upper()} {path} ({op['operationId']})"
            security = op.get("security", doc["security"])  # the document's optional bearer, or none
            assert security in ([], [{}, {"bearer": []}]), name
            successes = [code for code in op["responses"] if code.startswith("2")]
            assert len(successes) == 1 or op["operationId"] == "post_linked_battle", name  # 201 new, 200 known
            success = op["responses"][successes[0]]
            for media, content in success.get("content", {}).items():
                schema = content["schema"]
                assert schema != {"type": "string"} or media != "application/json", name
            errors = [code for code in op["responses"] if not code.startswith("2")]
            reads_a_token = security != []
            # the limits: commands, authenticating a token, imports, players created and passkey ceremonies
            # (started, or failed as authentications) per address
            anonymous_limits = ("post_import", "create_player", "post_login_options", "post_login")
            limited_anonymously = op["operationId"] in anonymous_limits
            assert ("429" in errors) == (reads_a_token or limited_anonymously), name
            assert any(code.startswith("4") for code in errors), name  # every operation says how it fails
            for code in errors:
                problem = op["responses"][code]["content"]["application/problem+json"]
                assert problem["schema"] == {"$ref": "#/components/schemas/Problem"}, (name, code)
                assert all(ex["value"]["status"] == int(code) for ex in problem["examples"].values()), (name, code)
            assert not any(p["name"].lower() == "authorization" for p in op.get("parameters", ())), name
    commands = doc["paths"]["/v1/games/{game_id}/commands"]["post"]
    assert set(commands["responses"]) == {"201", "401", "403", "404", "409", "413", "422", "429"}
    assert "security" not in commands and doc["security"] == [{}, {"bearer": []}]  # a token, or a spectator
    assert doc["paths"]["/v1/games"]["post"]["security"] == []
    assert schemas["Command"]["oneOf"] and schemas["Option"]["properties"]["command"] == {
        "$ref": "#/components/schemas/Command"
    }


# --- what generators need (issue 35): openapi-python-client, openapi-typescript, Redocly ------------------


def _walk(node, path="$"):
    if isinstance(node, dict):
        yield path, node
        for key, value in node.items():
            yield from _walk(value, f"{path}.{key}")
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _walk(value, f"{path}[{i}]")


def test_tuples_have_items_generators_read():
    doc = json.loads(COMMITTED.read_text())
    tuples = [(path, node) for path, node in _walk(doc) if "prefixItems" in node]
    assert tuples, "the hex and point tuples are described"
    for path, node in tuples:
        assert isinstance(node.get("items"), dict), path  # never `items: false`
        assert node["minItems"] == node.get("maxItems", node["minItems"]) == len(node["prefixItems"]), path


def test_schema_titles_are_unique_and_are_the_component_names():
    schemas = json.loads(COMMITTED.read_text())["components"]["schemas"]
    assert not [name for name in schemas if "." in name]
    titled = [s["title"] for s in schemas.values() if "title" in s]
    assert len(titled) == len(set(titled))
    assert all(schema.get("title", name) == name for name, schema in schemas.items())
    assert {"Gsc2Move", "StarfinderMove", "AscMove", "DrawingBoard"} <= set(schemas)


def test_every_event_type_is_a_variant_of_envelope_with_its_payload():
    from service.domain.core import available_rulesets, find_ruleset
    from service.events.envelope import SERVICE_EVENT_TYPES

    doc = json.loads(COMMITTED.read_text())
    schemas = doc["components"]["schemas"]
    envelope = schemas["Envelope"]
    mapping = envelope["discriminator"]["mapping"]
    assert envelope["discriminator"]["propertyName"] == "type"
    assert sorted(v["$ref"] for v in envelope["oneOf"]) == sorted(mapping.values())
    shipped = {e.__struct_config__.tag for e in SERVICE_EVENT_TYPES} | {
        e.__struct_config__.tag
        for name in available_rulesets()
        if name != "tiny"
        for e in find_ruleset(name).event_types
    }
    assert set(mapping) == shipped
    for tag, ref in mapping.items():
        variant = schemas[ref.rsplit("/", 1)[1]]
        assert variant["properties"]["type"] == {"const": tag, "type": "string"}
        payload = schemas[variant["properties"]["data"]["$ref"].rsplit("/", 1)[1]]
        assert "type" not in payload.get("properties", {}) and "rolls" not in payload.get("properties", {}), tag
        assert set(variant["required"]) >= {"type", "data", "seq", "game_id"}
    commands = schemas["Command"]["discriminator"]
    assert commands["propertyName"] == "type" and "gsc2.move" in commands["mapping"]


def test_every_component_is_used_but_the_websocket_frames():
    """Only the websocket frames (described for the TypeScript types; their contract is openapi/asyncapi.json)
    are not reached from an operation; what the server sends is one union, ServerFrame, so Redocly's
    no-unused-components (a component no $ref names) reports just ServerFrame and CommandFrame."""
    from service.api.openapi_shapes import reachable

    doc = json.loads(COMMITTED.read_text())
    frames = {
        "EventFrame",
        "EventsPageFrame",
        "SnapshotFrame",
        "CaughtUpFrame",
        "PingFrame",
        "ResultFrame",
        "ErrorFrame",
        "SpectatorMessageFrame",  # the spectators' channel, live (issue 39)
    }
    unused = set(doc["components"]["schemas"]) - reachable(doc)
    assert unused == {*frames, "StreamView", "ServerFrame", "CommandFrame"}  # StreamView: a frame's ``view``
    named = set(re.findall(r'"#/components/schemas/([^"]+)"', COMMITTED.read_text()))
    assert set(doc["components"]["schemas"]) - named == {"ServerFrame", "CommandFrame"}
    server_frame = doc["components"]["schemas"]["ServerFrame"]
    assert server_frame["discriminator"]["propertyName"] == "kind"
    assert {ref.rsplit("/", 1)[1] for ref in server_frame["discriminator"]["mapping"].values()} == frames


def test_a_server_and_battle_files_as_generators_take_them():
    doc = json.loads(COMMITTED.read_text())
    assert doc["servers"] and doc["servers"][0]["url"].startswith("http")
    export = doc["paths"]["/v1/games/{game_id}/export"]["get"]["responses"]["200"]["content"]
    assert set(export) == {"application/x-ndjson", "application/octet-stream"}
    body = doc["paths"]["/v1/games/import"]["post"]["requestBody"]["content"]
    assert body == {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}}
