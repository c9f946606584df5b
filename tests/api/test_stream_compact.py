"""?history=compact: the catch-up comes as compact pages whose entries expand to exactly the envelopes
the default event frames carry, per viewer (the same redaction), page after page, with fewer bytes."""

from __future__ import annotations

import random
from typing import Any

import msgspec
import pytest
from starlette.testclient import TestClient

from service.api import history_pages
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


def _play(client: TestClient, game: dict[str, Any], n: int) -> None:
    for i in range(n):
        who, cmd = CYCLE[i % len(CYCLE)]
        r = client.post(
            f"/v1/games/{game['game_id']}/commands",
            json={"command": cmd},
            headers={"Authorization": f"Bearer {game['seats'][who]}"},
        )
        assert r.status_code == 201, r.text


def _same_bytes(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> bool:
    return [msgspec.json.encode(e) for e in a] == [msgspec.json.encode(e) for e in b]  # key order too


def test_compact_pages_expand_to_the_default_envelopes_for_every_viewer(sqlite_url, monkeypatch):
    monkeypatch.setattr(history_pages, "PAGE", 16)  # several pages
    app = create_app(Settings(database_url=sqlite_url, rate_commands_per_token="off", rate_commands_per_address="off"))
    with TestClient(app) as client:
        game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        _play(client, game, 30)
        stream = f"/v1/games/{game['game_id']}/stream"
        cache = history_pages.cache_of(app.state.reader)
        for token in (None, game["seats"]["red"], game["umpire_token"]):
            for after in (3, 0, 16):  # a page begun, then every page (full ones kept), then from the cache
                plain, plain_kinds, plain_bytes = _join(client, stream + f"?after={after}", token)
                compact, kinds, size = _join(client, stream + f"?after={after}&history=compact", token)
                assert compact == plain and _same_bytes(compact, plain)
                assert plain[0]["seq"] == after + 1 and len(plain) > 32 - after
                pages = -(-plain[-1]["seq"] // 16) - after // 16  # pages on multiples of 16
                assert set(kinds) == {"events", "caught_up"} and kinds.count("events") == pages
                assert set(plain_kinds) == {"event", "caught_up"}
                assert size < 0.6 * plain_bytes, (size, plain_bytes)  # pages of 16: each starts in full
        assert cache.hits >= 3 * 1  # the third join of each viewer read its full pages from the cache
        # what a seat may not see stays hidden in the compact form too, from the cache as well
        for _ in range(2):
            blue_secret = [
                e
                for e in _join(client, stream + "?history=compact", game["seats"]["red"])[0]
                if e["type"] == "tiny.hidden" and e["data"]["seat"] == "blue"
            ]
            assert blue_secret and all(e["data"]["secret"] is None for e in blue_secret)


def test_a_rewind_after_pages_were_kept_marks_them_superseded(sqlite_url, monkeypatch):
    monkeypatch.setattr(history_pages, "PAGE", 8)
    app = create_app(Settings(database_url=sqlite_url, rate_commands_per_token="off", rate_commands_per_address="off"))
    with TestClient(app) as client:
        game = client.post("/v1/games", json={"ruleset": "tiny", "scenario": "long"}).json()
        _play(client, game, 20)
        stream = f"/v1/games/{game['game_id']}/stream?history=compact"
        for token in (None, game["seats"]["blue"], game["umpire_token"]):
            _join(client, stream, token)  # full pages kept
        r = client.post(
            f"/v1/games/{game['game_id']}/rewind",
            json={"to_seq": 5, "reason": "test"},
            headers={"Authorization": f"Bearer {game['umpire_token']}"},
        )
        assert r.status_code == 201, r.text
        _play(client, game, 3)
        for token in (None, game["seats"]["blue"], game["umpire_token"]):
            compact = _join(client, stream, token)[0]
            plain = _join(client, stream.replace("&history=compact", ""), token)[0]
            assert _same_bytes(compact, plain)
            assert any(e.get("superseded") for e in compact) and not compact[0].get("superseded")


def _env(seq: int, **kw: Any) -> Envelope:
    base = {
        "game_id": "g",
        "seq": seq,
        "type": "t.x",
        "v": 1,
        "turn": 1,
        "phase": "p",
        "actor": "seat:red",
        "recorded_at": "2026-12-01T00:00:00.000000Z",
        "data": {"n": seq},
    }
    return msgspec.convert({**base, **kw}, Envelope)


def _roll(value: int, **kw: Any) -> dict[str, Any]:
    return {"i": 0, "die": "d10", "value": value, "purpose": "to-hit", "rule": "R-1", "target": 5, **kw}


def _expands_exactly(envelopes: list[Envelope]) -> list[dict[str, Any]]:
    """The page's entries, once its expansion is byte for byte the envelopes (key order included)."""
    page = msgspec.json.decode(compact_page("g", envelopes))
    assert [msgspec.json.encode(e) for e in expand_page(page)] == [msgspec.json.encode(e) for e in envelopes]
    assert all("game_id" not in entry for entry in page["events"])
    return page["events"]


@pytest.mark.parametrize(
    "envelopes",
    [
        [_env(1, command_id=None), _env(2, command_id="c1"), _env(3, command_id="c1"), _env(4)],  # back to none
        [_env(5), _env(9, superseded=True), _env(10, actor="system", phase="q")],  # a gap in seq (hidden events)
        [_env(7, command_id="c2", rolls=[_roll(3)], dice={"turn": 1, "base": 7, "slot": 0})],
        # times: not of the usual form, across midnight, going back, equal
        [
            _env(1, recorded_at="2026-12-01T11:29:43Z"),
            _env(2, recorded_at="2026-12-01T11:29:44Z"),
            _env(3, recorded_at="2026-12-01T23:59:59.999999Z"),
            _env(4, recorded_at="2026-12-02T00:00:00.000001Z"),
            _env(5, recorded_at="2026-12-01T23:00:00.000000Z"),
            _env(6, recorded_at="2026-12-01T23:00:00.000000Z"),
            _env(7, recorded_at="2026-12-01T22:59:60.000000Z"),
            _env(8, recorded_at="2026-12-01T22:59:59.000000Z"),
            _env(9, recorded_at="2026-12-01T22:59:59.00000\u0663Z"),
            _env(10, recorded_at="2026-12-01T22:59:5\u0663.000001Z"),
            _env(11, recorded_at="2026-12-01T22:59:59.000002Z"),
        ],  # digits other than 0-9 are no time to add to
        # data: carried, patched, keys added or removed or reordered, a value changing its JSON type
        [
            _env(1, data={"a": 1, "b": "x"}),
            _env(2, data={"a": 1, "b": "x"}),
            _env(3, data={"a": 2, "b": "x"}),
            _env(4, data={"a": True, "b": "x"}),
            _env(5, data={"a": 1.0, "b": "x"}),
            _env(6, data={"a": 1, "b": "x"}),
            _env(7, data={"b": "x", "a": 1}),
            _env(8, data={"a": 1}),
            _env(9, data={"a": 1, "b": None, "c": [1]}),
            _env(10, data={"a": 1, "b": None, "c": [True]}),
            _env(11, data={"a": -0.0, "b": None, "c": [True]}),
            _env(12, data={"a": 0.0, "b": None, "c": [True]}),
            _env(13, data={"a": {"y": 1, "z": 2}, "b": 0, "c": 0}),
            _env(14, data={"a": {"z": 2, "y": 1}, "b": 0, "c": 0}),
            _env(15, data={}),
        ],
        # types interleaved: data and rolls patch on the previous entry of the same type
        [
            _env(1, type="a", data={"k": 1}, rolls=[_roll(3)]),
            _env(2, type="b", data={"k": 1}),
            _env(3, type="a", data={"k": 1}, rolls=[_roll(4, outcome="hit")]),
            _env(4, type="b", data={"k": 2}),
            _env(5, type="a", data={"k": 1}),
            _env(6, type="a", data={"k": 1}, rolls=[_roll(4)]),
            _env(7, type="a", data={"k": 1}, rolls=[_roll(4), {**_roll(2), "i": 1}]),
            _env(8, type="a", data={"k": 1}, rolls=[_roll(4), {**_roll(1), "i": 1}]),
            _env(9, type="a", data={"k": 1}, rolls=[_roll(4, target=None), {**_roll(1), "i": 1}]),
            _env(10, type="a", data={"k": 1}, rolls=[_roll(4, modifiers=[{"rule": "M", "why": "w", "value": 1}])]),
        ],
        # dice: shifted, the same, a new salt or turn, slots appearing
        [
            _env(1, rolls=[_roll(1)], dice={"turn": 1, "base": 1, "slot": 0}),
            _env(2, rolls=[_roll(1)], dice={"turn": 1, "base": 2, "slot": 1}),
            _env(3, rolls=[_roll(1)], dice={"turn": 1, "base": 2, "slot": 1}),
            _env(4),
            _env(5, rolls=[_roll(1)], dice={"turn": 1, "base": 5, "slot": 3, "salt": "s"}),
            _env(6, rolls=[_roll(1)], dice={"turn": 2, "base": 6, "slot": 0, "salt": "s"}),
            _env(7, rolls=[_roll(1)], dice={"turn": 2, "base": 7, "salt": "s"}),
            _env(8, rolls=[_roll(1)], dice={"turn": 2, "base": 9, "salt": "s"}),
            _env(9, rolls=[_roll(1)], dice={"turn": 2, "base": 9, "slot": 4, "salt": "s", "salts": ["s", "t"]}),
            _env(10, rolls=[_roll(1)], dice={"turn": 2, "base": 10, "slot": 5, "salt": "s", "origin": "g_o"}),
        ],
    ],
)
def test_a_page_expands_to_its_envelopes(envelopes):
    _expands_exactly(envelopes)


def test_what_repeats_is_left_out():
    shots = [
        _env(
            s,
            type="tiny.shot",
            command_id=f"c_0123456789ab{s:04x}",
            recorded_at=f"2026-12-01T11:29:43.{s:06d}Z",
            data={"shooter": "red", "target": "blue", "hit": s % 3 == 0},
            rolls=[_roll(s % 10 + 1, outcome="hit" if s % 3 == 0 else "miss")],
            dice={"turn": 1, "base": s, "slot": s - 3},
        )
        for s in range(3, 9)
    ]
    first, second, third, *_ = _expands_exactly(shots)
    assert first["seq"] == 3 and first["command_id"] == "c_0123456789ab0003" and "rolls" in first
    assert second == {
        "dt": 1,
        "command_id": [17, "4"],
        "d": {"hit": False},
        "r": [{"value": 5, "outcome": "miss"}],
        "dd": [1, 1],
    }
    assert third == {"dt": 1, "command_id": [17, "5"], "r": [{"value": 6}], "dd": [1, 1]}  # data as before


def test_random_pages_expand_exactly():
    """Many small pages drawn at random over the fields that vary, each expanding byte for byte."""
    rnd = random.Random(11)
    for _ in range(300):
        envelopes, seq = [], 0
        for _ in range(rnd.randint(1, 12)):
            seq += rnd.choice((1, 1, 1, 2, 5))
            kw: dict[str, Any] = {
                "type": rnd.choice(("a", "b")),
                "v": rnd.choice((1, 1, 2)),
                "turn": rnd.choice((1, 2)),
                "actor": rnd.choice(("seat:red", "system")),
                "recorded_at": rnd.choice(
                    (
                        f"2026-12-01T10:00:00.{rnd.randint(0, 999999):06d}Z",
                        f"2026-12-0{rnd.randint(1, 2)}T23:59:59.999999Z",
                        "then",
                    )
                ),
                "command_id": rnd.choice((None, f"c_abcdef{rnd.randint(0, 20)}")),
                "data": {
                    k: rnd.choice((0, 1, True, None, 1.5, "x", [1], {"q": 1}))
                    for k in rnd.choice((("x", "y"), ("x", "y"), ("y", "x"), ("x",)))
                },
                "superseded": rnd.random() < 0.1,
            }
            if rnd.random() < 0.7:
                kw["rolls"] = [
                    _roll(rnd.randint(1, 3), i=i, **rnd.choice(({}, {"outcome": "hit"}, {"target": None})))
                    for i in range(rnd.choice((1, 1, 2)))
                ]
                kw["dice"] = {
                    "turn": rnd.choice((1, 2)),
                    "base": seq - rnd.randint(0, 2),
                    **rnd.choice(({"slot": rnd.randint(0, 9)}, {"slot": 2, "salt": "s"}, {})),
                }
            envelopes.append(_env(seq, **kw))
        _expands_exactly(envelopes)
