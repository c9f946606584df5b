"""openapi/asyncapi.json: generated from the frame structs, valid AsyncAPI 3.0, and what the server sends.

Validation: the official AsyncAPI 3.0.0 JSON Schema (@asyncapi/specs, pinned in clients/package.json),
plus the rules that schema cannot express (every $ref resolves; an operation's messages are its
channel's; the address's parameters are declared). Sync: frames of a real socket session validate
against the document's payload schemas, and every server frame kind the document lists is seen.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema_rs
import pytest
from starlette.testclient import TestClient

from service.api.app import create_app
from service.api.asyncapi import build_asyncapi
from service.domain.core import register_ruleset, unregister_ruleset
from service.settings import Settings
from tests.clients.test_contract_live import strict
from tests.support import tiny

ROOT = Path(__file__).resolve().parents[2]
COMMITTED = ROOT / "openapi" / "asyncapi.json"
SPEC = ROOT / "clients" / "node_modules" / "@asyncapi" / "specs" / "schemas" / "3.0.0-without-$id.json"
DOC = json.loads(COMMITTED.read_text())


def test_committed_asyncapi_is_current() -> None:
    unregister_ruleset("tiny")  # the document describes what ships
    try:
        generated = build_asyncapi(create_app(Settings()).version)
    finally:
        register_ruleset("tiny", tiny.RULESET)
    assert DOC == json.loads(json.dumps(generated)), (
        "openapi/asyncapi.json is stale: run `python -m service asyncapi --output openapi/asyncapi.json`"
    )


@pytest.mark.skipif(not SPEC.exists(), reason="@asyncapi/specs not installed (scripts/_node.sh)")
def test_document_validates_against_the_asyncapi_3_schema() -> None:
    validator = jsonschema_rs.Draft7Validator(json.loads(SPEC.read_text()))
    errors = [f"{e.instance_path}: {e.message}" for e in validator.iter_errors(DOC)]
    assert errors == []
    broken = dict(DOC, operations={"x": {"action": "listen", "channel": {"$ref": "#/channels/gameStream"}}})
    assert not validator.is_valid(broken)  # the check can fail


def _pointer(doc: Any, ref: str) -> Any:
    node = doc
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        return [node["$ref"]] if isinstance(node.get("$ref"), str) else [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_structure_the_schema_cannot_check() -> None:
    for ref in _refs(DOC):
        assert ref.startswith("#/"), ref
        _pointer(DOC, ref)  # raises KeyError when it does not resolve
    for name, op in DOC["operations"].items():
        channel = op["channel"]["$ref"]
        for message in op["messages"] + op.get("reply", {}).get("messages", []):
            assert message["$ref"].startswith(channel + "/messages/"), (name, message)
    for channel in DOC["channels"].values():
        # null: an address not known in advance (AsyncAPI 3.0), e.g. the url a player's subscription names
        address = channel["address"] or ""
        assert set(re.findall(r"{(\w+)}", address)) == set(channel.get("parameters", {}))
        for key, message in channel["messages"].items():
            assert message["name"] == key
            assert message["payload"]["schema" if "schema" in message["payload"] else "$ref"]
    bindings = DOC["channels"]["gameStream"]["bindings"]["ws"]
    assert "token" not in bindings["query"]["properties"]  # the server refuses a token in the URL
    assert set(bindings["headers"]["properties"]) == {"Authorization", "Sec-WebSocket-Protocol"}
    kinds = {m["name"] for m in DOC["channels"]["gameStream"]["messages"].values()}
    server_kinds = {"event", "events", "snapshot", "caught_up", "ping", "result", "error", "spectator_message"}
    assert kinds == server_kinds | {"command"}
    assert set(bindings["query"]["properties"]) == {"after", "join", "own_events", "history", "frames"}


def payload_validator(kind: str) -> Any:
    message = DOC["channels"]["gameStream"]["messages"][kind]
    return jsonschema_rs.Draft7Validator({"components": strict(DOC["components"]), **message["payload"]})


def test_frames_of_a_real_session_match_the_document(sqlite_url: str) -> None:
    app = create_app(Settings(database_url=sqlite_url, heartbeat_seconds=0.2))
    seen: dict[str, int] = {}

    def check(frame: dict[str, Any]) -> None:
        errors = [e.message for e in payload_validator(frame["kind"]).iter_errors(frame)]
        assert errors == [], (frame["kind"], errors[:3])
        seen[frame["kind"]] = seen.get(frame["kind"], 0) + 1

    with TestClient(app) as client:
        game = client.post("/v1/games", json={"ruleset": "gsc2", "scenario": "duel"}).json()
        stream = f"/v1/games/{game['game_id']}/stream"
        red = {"Authorization": f"Bearer {game['seats']['red']}"}  # tokens never go in the URL
        command = {"kind": "command", "ref": "r1", "command": {"type": "gsc2.start"}}
        assert list(payload_validator("command").iter_errors(command)) == []
        with client.websocket_connect(stream, headers=red) as ws:
            kinds = []
            while "ping" not in kinds:
                frame = ws.receive_json()
                check(frame)
                kinds.append(frame["kind"])
                if frame["kind"] == "caught_up":
                    ws.send_json(command)
                    ws.send_json({**command, "ref": "r2"})  # refused: the game has started
        with client.websocket_connect(stream, headers={"Authorization": "Bearer nope"}) as ws:
            check(ws.receive_json())
        with client.websocket_connect(stream, subprotocols=["salvo.v1", f"salvo.token.{game['seats']['red']}"]) as ws:
            first = ws.receive_json()  # the browsers' way, as the document says
            check(first)
            assert first["kind"] == "event"
        with client.websocket_connect(stream + "?history=compact", headers=red) as ws:
            page = ws.receive_json()  # the history as one compact page
            check(page)
            assert page["kind"] == "events"
            check(ws.receive_json())
        with client.websocket_connect(stream + "?join=present", headers=red) as ws:
            snapshot = ws.receive_json()  # the present in one frame: GET /v1/games/{id}'s body at the head
            check(snapshot)
            assert snapshot["kind"] == "snapshot" and snapshot["game"]["game_id"] == game["game_id"]
        with client.websocket_connect(stream + f"?token={game['seats']['red']}") as ws:
            refused = ws.receive_json()
            check(refused)
            assert refused["kind"] == "error" and refused["field"] == "token"
    assert set(seen) == {"event", "events", "snapshot", "caught_up", "ping", "result", "error"}
