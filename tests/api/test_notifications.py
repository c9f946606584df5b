"""Notifications (issue 40): written in the transaction of the events that cause them (the outbox),
delivered to a webhook signed with HMAC-SHA256 and one idempotency key per notification, retried with
backoff; a subscription that keeps failing is paused and its owner told. What is notified: your turn, the
game ended, a rewind; never anything the seat may not see."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import httpx
import msgspec
import pytest

from service.api.app import create_app
from service.events import outbox as outbox_module
from service.events.watchers import Notice
from service.settings import Settings
from tests.api.helpers import bearer, command, new_game
from tests.support.webhook_receiver import Receiver

END_RED = {"type": "tiny.end_phase", "seat": "red"}
END_BLUE = {"type": "tiny.end_phase", "seat": "blue"}
NOTICE_KEYS = set(Notice.__struct_fields__)


@pytest.fixture
async def app_client(sqlite_url) -> AsyncIterator[httpx.AsyncClient]:
    async for client in _app(sqlite_url):
        yield client


async def _app(database_url: str) -> AsyncIterator[httpx.AsyncClient]:
    settings = Settings(
        database_url=database_url, webhook_allow=("127.0.0.1",), notify_poll_seconds=0.05, webhook_timeout=1.0
    )
    app = create_app(settings)
    async with app.router.lifespan_context(app):
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://salvo") as client:
            client.app = app  # type: ignore[attr-defined]
            yield client


@pytest.fixture
def receiver() -> Any:
    with Receiver() as r:
        yield r


async def _player_with_seat(api: httpx.AsyncClient, token: str) -> dict[str, Any]:
    player = (await api.post("/v1/players", json={"label": "laptop"})).json()
    r = await api.post("/v1/players/me/seats", json={"token": token}, headers=bearer(player["key"]))
    assert r.status_code == 201, r.text
    return player


async def _subscribe(api: httpx.AsyncClient, player: dict[str, Any], url: str, **extra: Any) -> dict[str, Any]:
    r = await api.post("/v1/players/me/subscriptions", json={"url": url, **extra}, headers=bearer(player["key"]))
    assert r.status_code == 201, r.text
    return r.json()


@pytest.fixture
async def any_backend(database_url) -> AsyncIterator[httpx.AsyncClient]:
    async for client in _app(database_url):
        yield client


async def test_b_move_reaches_a_webhook_signed_with_one_idempotency_key(any_backend, receiver):
    """On SQLite and PostgreSQL (whose writer inserts the outbox rows as it inserts the events)."""
    api = any_backend
    game = await new_game(api)
    a = await _player_with_seat(api, game["seats"]["red"])
    sub = await _subscribe(api, a, receiver.url)
    assert sub["secret"] and sub["paused"] is False
    assert (await command(api, game, a["key"], END_RED)).status_code == 201  # A's own move: nothing for A
    assert (await command(api, game, game["seats"]["blue"], END_BLUE)).status_code == 201  # B's: the phase moves on
    [got] = await receiver.arrived(1)
    assert got.signed_by(sub["secret"]) and not got.signed_by("another secret")
    notice = got.json
    assert set(notice) == NOTICE_KEYS
    assert (notice["type"], notice["game_id"], notice["seat"], notice["phase"]) == (
        "your_turn",
        game["game_id"],
        "red",
        "end",
    )
    assert notice["must_act"] is True and notice["why"] == "end phase" and notice["ruleset"] == "tiny"
    assert got.headers["idempotency-key"] == notice["id"] and got.headers["x-salvo-event"] == "your_turn"
    assert notice["version"] == (await api.get(f"/v1/games/{game['game_id']}")).json()["version"]
    outbox = outbox_module.Outbox(api.app.state.store.engine)  # type: ignore[attr-defined]
    for _ in range(500):  # the delivery is recorded once the receiver has answered
        rows = await outbox.rows_of(sub["id"])
        if rows[0].delivered_at is not None:
            break
        await asyncio.sleep(0.02)
    assert [(r.id, r.delivered_at is not None, r.attempts) for r in rows] == [(notice["id"], True, 1)]


async def test_chat_bodies_game_over_and_rewind_are_notified(app_client, receiver):
    api = app_client
    game = await new_game(api, scenario={"hull": 3, "turn_limit": 1})
    a = await _player_with_seat(api, game["seats"]["red"])
    await _subscribe(api, a, receiver.url + "/discord", kind="discord")
    await _subscribe(api, a, receiver.url + "/slack", kind="slack", game_id=game["game_id"], seat="red")
    blue = game["seats"]["blue"]
    await command(api, game, a["key"], END_RED)
    await command(api, game, blue, END_BLUE)  # fire -> end: red's turn
    await command(api, game, a["key"], END_RED)
    await command(api, game, blue, END_BLUE)  # end of turn 1 of 1: the game is over
    got = await receiver.arrived(4)
    by_path = {(r.path, r.headers["x-salvo-event"]): r.json for r in got}
    assert set(by_path) == {
        ("/hook/discord", "your_turn"),
        ("/hook/slack", "your_turn"),
        ("/hook/discord", "game_over"),
        ("/hook/slack", "game_over"),
    }
    assert by_path[("/hook/discord", "your_turn")]["content"].startswith("Your move as red in game ")
    assert by_path[("/hook/discord", "your_turn")]["allowed_mentions"] == {"parse": []}
    assert "is over" in by_path[("/hook/slack", "game_over")]["text"]
    r = await api.post(f"/v1/games/{game['game_id']}/rewind", json={"to_seq": 3}, headers=bearer(game["umpire_token"]))
    assert r.status_code == 201, r.text
    got = await receiver.arrived(6)
    assert sorted(r.headers["x-salvo-event"] for r in got[4:]) == ["rewound", "rewound"]


async def test_no_notification_carries_what_its_seat_may_not_see(app_client, receiver):
    """Leak test: red's hidden number (TINY hidden information) never rides in blue's notifications, nor in
    red's own (a notification carries its seat's status, never the state)."""
    api = app_client
    game = await new_game(api, scenario={"hull": 3, "turn_limit": 2})
    red = await _player_with_seat(api, game["seats"]["red"])
    blue = await _player_with_seat(api, game["seats"]["blue"])
    await _subscribe(api, red, receiver.url + "/red")
    await _subscribe(api, blue, receiver.url + "/blue")
    secret = 987654321
    hide = {"type": "tiny.hide", "seat": "red", "secret": secret}
    assert (await command(api, game, red["key"], hide)).status_code == 201
    ends = [(blue["key"], END_BLUE), (red["key"], END_RED)]
    for phase in range(3):  # the seat that ends a phase last alternates: each is told its turn in turn
        for key, end in ends if phase % 2 == 0 else ends[::-1]:
            assert (await command(api, game, key, end)).status_code == 201
    got = await receiver.arrived(3)
    assert {r.path for r in got} == {"/hook/red", "/hook/blue"}
    assert all(str(secret) not in r.body.decode() for r in got)
    assert all(set(r.json) == NOTICE_KEYS for r in got)
    for r in got:  # each told only about its own seat
        assert r.json["seat"] == r.path.rsplit("/", 1)[-1]


async def test_a_subscription_that_keeps_failing_is_paused_and_its_owner_told(app_client, receiver, monkeypatch):
    monkeypatch.setattr(outbox_module, "PAUSE_AFTER", 2)
    monkeypatch.setattr(outbox_module, "BACKOFF_FIRST", 0.01)
    api = app_client
    game = await new_game(api)
    a = await _player_with_seat(api, game["seats"]["red"])
    failing = Receiver()  # bound, never started: its port refuses nothing but answers nothing either
    failing.server.server_close()  # closed: connections are refused
    broken = await _subscribe(api, a, failing.url)
    await _subscribe(api, a, receiver.url + "/told")
    for _ in range(2):
        await command(api, game, a["key"], END_RED)
        await command(api, game, game["seats"]["blue"], END_BLUE)
    got = await receiver.arrived(3)
    kinds = [r.json["type"] for r in got]
    assert "paused" in kinds, kinds
    told = next(r.json for r in got if r.json["type"] == "paused")
    assert failing.url[:30] in told["text"] and "could not connect" in told["why"]
    listed = (await api.get("/v1/players/me/subscriptions", headers=bearer(a["key"]))).json()["subscriptions"]
    paused = next(s for s in listed if s["id"] == broken["id"])
    assert paused["paused"] is True and paused["failures"] >= 2 and "secret" not in paused
    # resumed by its owner, it is tried again
    r = await api.post(f"/v1/players/me/subscriptions/{broken['id']}/resume", headers=bearer(a["key"]))
    assert r.status_code == 200 and r.json()["paused"] is False


async def test_games_nobody_watches_write_no_outbox_rows(app_client):
    api = app_client
    game = await new_game(api)
    await _player_with_seat(api, game["seats"]["red"])  # a claim, but no subscription
    await command(api, game, game["seats"]["red"], END_RED)
    await command(api, game, game["seats"]["blue"], END_BLUE)
    assert await outbox_module.Outbox(api.app.state.store.engine).pending() == 0  # type: ignore[attr-defined]
    assert game["game_id"] not in api.app.state.watchers.games  # type: ignore[attr-defined]


def test_the_notice_shape_is_the_documented_one():
    from service.api.player_contract import Notification

    assert set(Notification.__struct_fields__) == NOTICE_KEYS
    assert (
        msgspec.json.decode(
            msgspec.json.encode(
                Notice(
                    id="n",
                    type="your_turn",
                    game_id="g",
                    ruleset="tiny",
                    scenario=None,
                    role="seat",
                    seat="red",
                    version=1,
                    turn=1,
                    phase="fire",
                    phase_label="Fire",
                    must_act=True,
                    why="w",
                    over=False,
                    result=None,
                    text="t",
                )
            ),
            type=Notification,
        ).seat
        == "red"
    )


async def _campaign_watched(api: httpx.AsyncClient, receiver: Any) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """A three-powers campaign whose three players each hold their seat and a webhook at /hook/<player>."""
    game = await new_game(api, "ftcampaign", "three-powers")
    players = {}
    for seat, token in game["seats"].items():
        players[seat] = await _player_with_seat(api, token)
        await _subscribe(api, players[seat], f"{receiver.url}/{seat}")
    return game, players


async def test_an_umpires_ruling_is_told_to_the_seats_it_involves(app_client, receiver):
    """A dispute settled: the umpire's ruling reaches the players it involves (all, when it names none), in
    the words of their own view of it; never the umpire's own subscription, never a player it leaves out."""
    api = app_client
    game, _ = await _campaign_watched(api, receiver)
    umpire = game["umpire_token"]
    ruling = {"type": "ftcampaign.record_ruling", "text": "Drift counts from the hex entered", "involves": ["john"]}
    assert (await command(api, game, umpire, ruling)).status_code == 201
    [got] = await receiver.arrived(1)
    assert got.path == "/hook/john" and got.headers["x-salvo-event"] == "ruling"
    assert got.json["why"] == ruling["text"] and got.json["must_act"] is False
    assert got.json["text"].startswith("The umpire ruled in ") and set(got.json) == NOTICE_KEYS
    everyone = {"type": "ftcampaign.record_ruling", "text": "Fighters refuel at any carrier"}
    assert (await command(api, game, umpire, everyone)).status_code == 201
    got = await receiver.arrived(4)
    assert sorted(r.path for r in got[1:]) == ["/hook/colin", "/hook/eddie", "/hook/john"]
    assert len({r.headers["idempotency-key"] for r in got}) == 4


async def test_a_battle_needs_the_seats_that_fight_it_and_no_other(app_client, receiver):
    """A campaign battle started as a linked game (``ftcampaign.battle_linked``, seen by its witnesses only)
    notifies the seats that fight it, with the linked game to open; the third player, who may not know of
    the battle, is told nothing (leak test). Written by the watchers exactly as a command's batch would."""
    from service.domain.core import UMPIRE
    from service.domain.ftcampaign import events as E
    from service.events.fresh import FreshEvent

    api = app_client
    game, _ = await _campaign_watched(api, receiver)
    app = api.app  # type: ignore[attr-defined]
    head = await app.state.service.current_head(game["game_id"])
    linked = E.BattleLinked(battle="b7", hex=(3, 4), tactical_game_id="g_tactical", witnesses=("eddie", "john"))
    fresh = FreshEvent(linked, head.state, "umpire")
    fresh.seq = head.seq + 1
    rows = app.state.watchers.command_rows(head, head.state, UMPIRE, head.seq + 1, [fresh])
    notices = [msgspec.json.decode(r["body"], type=Notice) for r in rows]
    assert sorted((n.type, n.seat) for n in notices) == [("battle", "eddie"), ("battle", "john")]
    for n in notices:
        assert n.linked_game_id == "g_tactical" and n.version == head.seq + 1 and not n.must_act
        assert "battle b7" in n.text and "g_tactical" in n.text
    assert not any("colin" in r["body"] for r in rows)
    # a battle the seat does not see (another's, not witnessed) is nothing to it
    theirs = FreshEvent(
        E.BattleLinked(battle="b8", hex=(5, 5), tactical_game_id="g_other", witnesses=("colin",)), head.state, "umpire"
    )
    theirs.seq = head.seq + 2
    rows = app.state.watchers.command_rows(head, head.state, UMPIRE, head.seq + 2, [theirs])
    assert [msgspec.json.decode(r["body"], type=Notice).seat for r in rows] == ["colin"]
    assert not any("g_other" in r["body"] for r in rows if '"seat":"colin"' not in r["body"])
