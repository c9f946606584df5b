"""My games on any device (issue 40): a player makes a personal key in one browser context (a device),
pastes it in another, claims a seat from each, and both list both games with whose move it is; the game's
link opens the claimed seat with the key alone, and the other seat's move shows up on the next look."""

from __future__ import annotations

import httpx

from tests.web.support import Console


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
        r = httpx.post(
            f"{server.url}/v1/games/{one['game_id']}/commands",
            headers={"Authorization": f"Bearer {key}"},
            json={"command": {"type": "tiny.end_phase", "seat": "red"}},
        )
        assert r.status_code == 201, r.text
        phone.reload()
        phone.wait_for_selector(f"#my-games li[data-game='{one['game_id']}'][data-must-act='false']")
        assert "Waiting for blue" in _rows(phone)[one["game_id"]]
    finally:
        laptop_ctx.close()
        phone_ctx.close()
    assert console.unexpected() == []
