"""My games on any device (issue 40): a player makes a personal key in one browser context (a device),
pastes it in another, claims a seat from each, and both list both games with whose move it is; the game's
link opens the claimed seat with the key alone, and the other seat's move shows up on the next look. That
move (B's) reaches A's webhook receiver (a local HTTP server) within a second, signed, and A's Web Push
subscription (a local push endpoint, decrypted with the subscription's keys), while A's open page marks
its title."""

from __future__ import annotations

import time

import httpx
import pytest

from service.events.watchers import Notice
from tests.support.push_browser import Browser
from tests.support.server import TINY, ServerProcess
from tests.support.webhook_receiver import Receiver
from tests.web.support import Console

MARK = "● Your move · "


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """The page's server, allowed to call the test's receivers on the loopback address."""
    db = tmp_path_factory.mktemp("web") / "salvo.db"
    env = {
        "SALVO_HEARTBEAT_SECONDS": "1",
        "SALVO_RULESETS": TINY,
        "SALVO_WEBHOOK_ALLOW": "127.0.0.1",
        "SALVO_NOTIFY_POLL_SECONDS": "0.05",
    }
    with ServerProcess(f"sqlite:///{db}", env=env) as srv:
        yield srv


def _lobby(ctx, console: Console, server, name: str):
    page = console.watch(ctx.new_page(), name)
    page.goto(server.url + "/")
    page.wait_for_selector("#my-games-body button, #my-games-body ul, #my-games-body p")
    return page


def _claim(page, token: str) -> None:
    page.fill("#claim-token", token)
    page.click("#claim")


def _rows(page) -> dict[str, str]:
    rows = page.eval_on_selector_all("#my-games li.my-game", "els => els.map(e => [e.dataset.game, e.textContent])")
    return dict(rows)


def test_two_devices_keep_one_players_games(browser, server):
    console = Console()
    one = httpx.post(f"{server.url}/v1/games", json={"ruleset": "tiny", "scenario": "duel"}).json()
    two = httpx.post(f"{server.url}/v1/games", json={"ruleset": "tiny", "scenario": "duel"}).json()
    laptop_ctx, phone_ctx = browser.new_context(), browser.new_context()
    try:
        laptop = _lobby(laptop_ctx, console, server, "laptop")
        laptop.click("#make-key")
        laptop.wait_for_selector("#my-key-note")
        key = laptop.evaluate("() => localStorage.getItem('salvo.playerKey')")
        assert key.startswith("pk_") and key in laptop.text_content("#my-key-note")  # shown once, to copy
        _claim(laptop, f"{server.url}/?game={one['game_id']}#token={one['seats']['red']}")  # a seat link
        laptop.wait_for_selector(f"#my-games li[data-game='{one['game_id']}']")

        phone = _lobby(phone_ctx, console, server, "phone")
        phone.fill("#player-key", key)
        phone.click("#use-key")
        phone.wait_for_selector(f"#my-games li[data-game='{one['game_id']}']")
        _claim(phone, two["seats"]["blue"])  # a bare token
        phone.wait_for_selector(f"#my-games li[data-game='{two['game_id']}']")

        laptop.reload()
        laptop.wait_for_selector(f"#my-games li[data-game='{two['game_id']}']")
        for page in (laptop, phone):
            rows = _rows(page)
            assert set(rows) == {one["game_id"], two["game_id"]}
            assert "seat red" in rows[one["game_id"]] and "Your move: fire phase" in rows[one["game_id"]]
            assert "seat blue" in rows[two["game_id"]]

        # the key alone opens the claimed seat; red ends its phase there, blue has not: red waits for blue
        laptop.click(f"#my-games li[data-game='{one['game_id']}'] a")
        laptop.wait_for_selector("#conn[data-state=live]")
        assert laptop.evaluate("() => salvo.live.viewer") == "seat:red"
        _end_phase(server, one, key, "red")
        phone.reload()
        phone.wait_for_selector(f"#my-games li[data-game='{one['game_id']}'][data-must-act='false']")
        assert "Waiting for blue" in _rows(phone)[one["game_id"]]
        laptop.wait_for_function("(mark) => !document.title.startsWith(mark)", arg=MARK)

        # A's webhook and A's Web Push subscription hear B's move: A's turn again
        with Receiver() as hook, Receiver() as push_service:
            push_service.status = 201
            secret = _subscribe(server, key, {"url": hook.url})["secret"]
            pushed_to = Browser()
            _subscribe(server, key, {"kind": "webpush", "url": push_service.url + "/push/a", "keys": pushed_to.keys})
            started = time.monotonic()
            _end_phase(server, one, one["seats"]["blue"], "blue")  # B's move
            [got] = hook.wait_for(1, within=5)
            took = time.monotonic() - started
            assert took < 1.0, f"B's move reached A's webhook after {took:.2f} s"
            assert got.signed_by(secret) and got.json["type"] == "your_turn" and got.json["seat"] == "red"
            [pushed] = push_service.wait_for(1, within=5)
        notice = pushed_to.decrypt(pushed.body)
        assert set(notice) == set(Notice.__struct_fields__)
        assert (notice["type"], notice["game_id"], notice["seat"]) == ("your_turn", one["game_id"], "red")
        laptop.wait_for_function("(mark) => document.title.startsWith(mark)", arg=MARK)  # A's open page
    finally:
        laptop_ctx.close()
        phone_ctx.close()
    assert console.unexpected() == []


def _end_phase(server, game: dict, token: str, seat: str) -> None:
    r = httpx.post(
        f"{server.url}/v1/games/{game['game_id']}/commands",
        headers={"Authorization": f"Bearer {token}"},
        json={"command": {"type": "tiny.end_phase", "seat": seat}},
    )
    assert r.status_code == 201, r.text


def _subscribe(server, key: str, body: dict) -> dict:
    r = httpx.post(f"{server.url}/v1/players/me/subscriptions", headers={"Authorization": f"Bearer {key}"}, json=body)
    assert r.status_code == 201, r.text
    return r.json()
