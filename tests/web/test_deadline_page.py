"""A deadline-driven GSC2 game in the page (issue 39): a seat's page shows the phase's deadline counting down
and each seat's clock; when the deadline passes the page says what the service did (the deadline.passed
and the force_phase command after it, in the replay's words) and the next deadline counts down again. A
spectator's page gets the spectators' channel live from the stream (no poll in between)."""

from __future__ import annotations

import re

import httpx

from tests.web.support import Console, page_url

SECONDS = 3


def _text(page, selector: str) -> str:
    return page.eval_on_selector(selector, "(e) => e.textContent") or ""


def test_a_deadline_driven_gsc2_game_shows_the_time_left_and_what_the_service_did(desk, server):
    created = httpx.post(
        f"{server.url}/v1/games",
        json={
            "ruleset": "gsc2",
            "scenario": "duel",
            "options": {"deadline": {"per": "phase", "seconds": SECONDS}, "clock": {"seconds": 600}},
        },
        timeout=30,
    ).json()
    game, seats = created["game_id"], created["seats"]
    seat = sorted(seats)[0]
    console = Console()
    page = console.watch(desk.new_page(), seat)
    page.goto(page_url(server.url, game, seats[seat]))
    page.wait_for_selector("#conn[data-state=live]", state="attached")
    page.wait_for_selector("#deadline:not([hidden])")
    shown = page.text_content("#deadline") or ""
    assert re.fullmatch(rf"Phase deadline: 0:0[0-{SECONDS}] left", shown), shown
    clocks = _text(page, "#seat-clocks")
    assert all(s in clocks for s in seats) and re.search(r"(10:00|9:5\d)", clocks), clocks

    # the deadline passes: the page says what the service appended, and why
    page.wait_for_selector("#time-notice:not([hidden])", timeout=20_000)
    page.wait_for_function("() => /Then:/.test(document.querySelector('#time-notice').textContent)", timeout=20_000)
    notice = _text(page, "#time-notice")
    assert re.search(rf"deadline of {SECONDS} s for turn 1, phase \w+ passed at .*gsc2\.force_phase", notice), notice
    # ... and the phase's next deadline counts down again (the game never stalls on a forced phase)
    page.wait_for_function(
        "() => / left$/.test(document.querySelector('#deadline').textContent)"
        " && Number(document.querySelector('#time-notice').dataset.seq) > 0",
        timeout=20_000,
    )

    # the spectators' channel, live: the line comes from the stream (data-live), not the panel's 3 s poll
    gallery = console.watch(desk.new_page(), "spectator")
    gallery.goto(page_url(server.url, game, None))
    gallery.wait_for_selector("#conn[data-state=live]", state="attached")
    r = httpx.post(f"{server.url}/v1/games/{game}/spectator-messages", json={"text": "LIVE-FROM-THE-GALLERY"})
    assert r.status_code == 201, r.text
    line = gallery.wait_for_selector(f"#gallery-lines li[data-id='{r.json()['id']}']", state="attached")
    assert line.get_attribute("data-live") == "true" and "LIVE-FROM-THE-GALLERY" in (line.text_content() or "")
    assert "LIVE-FROM-THE-GALLERY" not in page.content()  # never to a seat
    assert not console.unexpected(), console.unexpected()
