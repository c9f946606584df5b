"""?history=compact: the catch-up comes as compact pages whose entries expand to exactly the envelopes
the default event frames carry, per viewer (the same redaction), page after page, with fewer bytes."""

from __future__ import annotations

from typing import Any

import msgspec
import pytest
from starlette.testclient import TestClient

from service.api import streaming
from service.api.app import create_app
from service.api.compact import compact_page, expand_page
from service.events.envelope import Envelope
from service.settings import Settings

CYCLE = [
    ("red", {"type": "tiny.shoot", "shooter": "red", "target": "blue"}),
    ("blue", {"type": "tiny.hide", "seat": "blue", "secret": 7}),
    ("red", {"type": "tiny.hide", "seat": "red", "secret": 3}),
    ("red", {"type": "tiny.end_phase", "seat": "red"}),
    ("blue", {"type": "tiny.end_phase", "seat": "blue"}),
    ("red", {"type": "tiny.end_phase", "seat": "red"}),
    ("blue", {"type": "tiny.end_phase", "seat": "blue"}),
]


def _join(client: TestClient, path: str, token: str | None) -> tuple[list[dict[str, Any]], list[str], int]:
    """Envelopes until caught_up, the kinds of the messages, and their bytes."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    envelopes, kinds, size = [], [], 0
    with client.websocket_connect(path, headers=headers) as ws:
        while True:
            text = ws.receive_text()
            size += len(text)
            msg = msgspec.json.decode(text)
            kinds.append(msg["kind"])
            if msg["kind"] == "caught_up":
                return envelopes, kinds, size
            envelopes.extend(expand_page(msg) if msg["kind"] == "events" else [msg["event"]])


def test_compact_pages_expand_to_the_default_envelopes_for_every_viewer(sqlite_url, monkeypatch):
    monkeypatch.setattr(streaming, "CATCH_UP_PAGE", 16)  # several pages
    app = create_app(Settings(database_url=sqlite_url, rate_commands_per_token="off",
                              rate_commands_per_address="off"))
    with TestClient(app) as client:
        game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        for i in range(30):
            who, cmd = CYCLE[i % len(CYCLE)]
            r = client.post(f"/v1/games/{game['game_id']}/commands", json={"command": cmd},
                            headers={"Authorization": f"Bearer {game['seats'][who]}"})
            assert r.status_code == 201, r.text
        stream = f"/v1/games/{game['game_id']}/stream"
        for token in (None, game["seats"]["red"], game["umpire_token"]):
            plain, plain_kinds, plain_bytes = _join(client, stream + "?after=3", token)
            compact, kinds, size = _join(client, stream + "?after=3&history=compact", token)
            assert compact == plain
            assert plain[0]["seq"] == 4 and len(plain) > 32
            assert set(kinds) == {"events", "caught_up"} and kinds.count("events") == -(-(plain[-1]["seq"] - 3) // 16)
            assert set(plain_kinds) == {"event", "caught_up"}
            assert size < 0.75 * plain_bytes, (size, plain_bytes)
        # what a seat may not see stays hidden in the compact form too
        blue_secret = [e for e in _join(client, stream + "?history=compact", game["seats"]["red"])[0]
                       if e["type"] == "tiny.hidden" and e["data"]["seat"] == "blue"]
        assert blue_secret and all(e["data"]["secret"] is None for e in blue_secret)


def _env(seq: int, **kw: Any) -> Envelope:
    base = {"game_id": "g", "seq": seq, "type": "t.x", "v": 1, "turn": 1, "phase": "p", "actor": "seat:red",
            "recorded_at": "2026-12-01T00:00:00Z", "data": {"n": seq}}
    return msgspec.convert({**base, **kw}, Envelope)


@pytest.mark.parametrize("envelopes", [
    [_env(1, command_id=None), _env(2, command_id="c1"), _env(3, command_id="c1"), _env(4)],  # back to none
    [_env(5), _env(9, superseded=True), _env(10, actor="system", phase="q")],  # a gap in seq (hidden events)
    [_env(1, command_id="c_0123456789ab0009", recorded_at="2026-12-01T11:29:43.380431Z"),  # shared prefixes
     _env(2, command_id="c_0123456789ab0010", recorded_at="2026-12-01T11:29:43.380656Z"),
     _env(3, command_id="c_ffff", recorded_at="2026-12-01T11:29:43.380656Z")],
    [_env(7, command_id="c2", rolls=[{"i": 0, "die": "d6", "value": 3, "purpose": "x", "rule": "R-1"}],
          dice={"turn": 1, "base": 7, "slot": 0})],
])
def test_a_page_expands_to_its_envelopes(envelopes):
    page = msgspec.json.decode(compact_page("g", envelopes))
    assert expand_page(page) == [msgspec.json.decode(msgspec.json.encode(e)) for e in envelopes]
    assert all("game_id" not in entry for entry in page["events"])
    if len(page["events"]) == 3 and page["events"][0].get("command_id", "").startswith("c_0123"):
        second = page["events"][1]
        assert second["command_id"] == [16, "10"] and second["recorded_at"] == [23, "656Z"]
        assert "recorded_at" not in page["events"][2]
