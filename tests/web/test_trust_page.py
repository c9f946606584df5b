"""Trust shown in the page (issue 38):

- A battle file imported with ``allow_unverified`` is marked "unverified" wherever the page shows dice: the
  game bar, the Replay tab's turn badges (never "✓ dice verified", though its seeds reconcile) and the
  log's rolls. The same game, signed, keeps its "✓ dice verified" badge.
- A rewind is shown to every seat with the umpire's reason, the events it superseded struck through in the
  log; the umpire's page keeps its answer and goes back to live.

Games of the test-only tiny ruleset (d10 shots, one revealed turn), made over the API.
"""

from __future__ import annotations

import json

import httpx

from tests.web.support import PHONE, Console, page_url

SHOOT_RED = {"type": "tiny.shoot", "shooter": "red", "target": "blue"}
ROLLED_LOG = "() => [...document.querySelectorAll('#log li')].some((e) => /d10=/.test(e.textContent))"


def _post(server, game: str, token: str, command: dict) -> None:
    r = httpx.post(
        f"{server.url}/v1/games/{game}/commands",
        json={"command": command},
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert r.status_code == 201, r.text


def _played(server) -> dict:
    """A tiny game with turn 1 played (red shoots; its seed revealed when the turn ends) and a shot in turn 2."""
    created = httpx.post(f"{server.url}/v1/games", json={"ruleset": "tiny", "scenario": "long"}, timeout=30).json()
    game, seats = created["game_id"], created["seats"]
    _post(server, game, seats["red"], SHOOT_RED)
    for _phase in range(2):
        for seat in ("red", "blue"):
            _post(server, game, seats[seat], {"type": "tiny.end_phase", "seat": seat})
    _post(server, game, seats["red"], SHOOT_RED)
    return created


def _unsigned_import(server, created: dict) -> dict:
    r = httpx.get(
        f"{server.url}/v1/games/{created['game_id']}/export",
        headers={"Authorization": f"Bearer {created['umpire_token']}"},
        timeout=30,
    )
    assert r.status_code == 200
    lines = r.content.splitlines()
    header = {k: v for k, v in json.loads(lines[0]).items() if k != "signature"}
    body = b"\n".join([json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode(), *lines[1:]]) + b"\n"
    r = httpx.post(
        f"{server.url}/v1/games/import",
        content=body,
        params={"allow_unverified": "true"},
        headers={"Content-Type": "application/x-ndjson"},
        timeout=30,
    )
    assert r.status_code == 201 and r.json()["unverified"], r.text
    return r.json()


def _open(page, server, game: str, token: str | None) -> None:
    page.goto(page_url(server.url, game, token))
    page.wait_for_selector("#conn[data-state=live]", state="attached")
    page.wait_for_function("() => window.salvo && salvo.live")


def _replay_badges(page) -> list[str]:
    page.tap("#tab-replay")
    page.wait_for_selector("#replay-turns .turn-row[data-turn='2'] .badge")  # both turns listed
    return page.eval_on_selector_all("#replay-turns .turn-row .badge", "els => els.map((e) => e.dataset.status)")


def test_an_unverified_import_is_marked_wherever_dice_are_shown(browser, server):
    signed = _played(server)
    imported = _unsigned_import(server, signed)
    console = Console()
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    try:
        page = console.watch(ctx.new_page(), "umpire")
        _open(page, server, signed["game_id"], signed["umpire_token"])
        assert "verified" in _replay_badges(page)  # the signed original: its turn 1 dice check out
        assert page.query_selector("#unverified") is None

        _open(page, server, imported["game_id"], imported["umpire_token"])
        assert page.get_attribute("#unverified", "title").startswith("Unverified origin: ")
        # the log is drawn once the view after the catch-up is in
        page.wait_for_function(ROLLED_LOG, polling=50)
        rolled = page.eval_on_selector_all(
            "#log li",
            "els => els.filter((e) => /d10=/.test(e.textContent)).map((e) => !!e.querySelector('.unverified'))",
        )
        assert rolled and all(rolled), rolled
        badges = _replay_badges(page)
        assert badges and set(badges) == {"unverified"}, badges
        assert page.query_selector(".badge.dice-verified") is None
        page.tap("#replay-turns .turn-row[data-turn='1'] .open-turn")
        page.wait_for_selector("#turn-replay .roll")
        assert page.query_selector("#turn-replay .roll .ok") is None  # no per-roll ✓ either
        assert page.inner_text("#turn-replay h3 .badge") == "⚠ unverified: dice not vouched for"
    finally:
        ctx.close()
    assert console.unexpected() == []


def test_a_rewind_is_shown_to_every_seat_with_its_reason(browser, server):
    created = _played(server)
    game = created["game_id"]
    console = Console()
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    try:
        umpire = console.watch(ctx.new_page(), "umpire")
        red = console.watch(ctx.new_page(), "red")
        _open(umpire, server, game, created["umpire_token"])
        _open(red, server, game, created["seats"]["red"])
        before = umpire.evaluate("() => salvo.live.version")
        umpire.tap("#step-back")  # history: one event back, the last shot to be undone
        umpire.wait_for_selector("#mode[data-mode=history]")
        umpire.tap("#tab-replay")
        umpire.fill("#rewind-reason", "red fired out of turn")
        umpire.tap("#rewind")
        umpire.wait_for_selector("#rewind-done")
        assert "red fired out of turn" in umpire.inner_text("#rewind-done")
        umpire.wait_for_selector("#mode[data-mode=live]")  # back to live after the rewind
        for page in (umpire, red):
            page.wait_for_selector("#rewind-note:not([hidden])")
            note = page.inner_text("#rewind-note")
            assert f"back to seq {before - 1}" in note and "red fired out of turn" in note, note
            page.wait_for_selector(f"#log li[data-seq='{before}'].superseded", state="attached")
            assert "red fired out of turn" in page.inner_text("#log li[data-type='game.rewound']")
        # the answer survives the updates that followed it
        umpire.wait_for_function(f"() => salvo.live.version > {before}")
        assert "red fired out of turn" in umpire.inner_text("#rewind-done")
    finally:
        ctx.close()
    assert console.unexpected() == []
