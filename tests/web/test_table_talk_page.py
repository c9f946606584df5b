"""Table talk and the time left in the page (issue 39): a seat's page shows the phase's deadline counting
down, says something to one seat and to everyone; the other seat reads the first, the spectator only the
second; the spectators' channel is the spectator's and never shown to a seat."""

from __future__ import annotations

import re

import httpx

from tests.web.support import Console, page_url


def _open(context, server, game: str, token: str | None, console: Console, name: str):
    page = console.watch(context.new_page(), name)
    page.goto(page_url(server.url, game, token))
    page.wait_for_selector("#conn[data-state=live]", state="attached")
    page.wait_for_selector("#talk-form")
    return page


def _lines(page, box: str = "#talk-lines") -> str:
    return page.eval_on_selector(box, "(e) => e.textContent")


def test_talk_and_the_deadline_in_the_page(desk, server):
    created = httpx.post(
        f"{server.url}/v1/games",
        json={"ruleset": "tiny", "scenario": "duel", "options": {"deadline": {"per": "phase", "seconds": 600}}},
        timeout=30,
    ).json()
    game, seats = created["game_id"], created["seats"]
    console = Console()
    red = _open(desk, server, game, seats["red"], console, "red")
    blue = _open(desk, server, game, seats["blue"], console, "blue")
    gallery = _open(desk, server, game, None, console, "spectator")

    red.wait_for_selector("#deadline:not([hidden])")
    shown = red.text_content("#deadline") or ""
    assert re.fullmatch(r"Phase deadline: (10:00|9:[0-5]\d) left", shown), shown
    red.select_option("#talk-to", "seat:blue")
    red.fill("#talk-text", "psst, blue only")
    red.click("#talk-form button[type=submit]")
    # the form sends one message at a time: the next waits until the first is in red's own lines
    red.wait_for_function("() => /psst, blue only/.test(document.querySelector('#talk-lines').textContent)")
    red.select_option("#talk-to", "all")
    red.fill("#talk-text", "good luck, all")
    red.click("#talk-form button[type=submit]")
    red.wait_for_function("() => /good luck, all/.test(document.querySelector('#talk-lines').textContent)")
    blue.wait_for_function(
        "() => /good luck, all/.test(document.querySelector('#talk-lines').textContent)", timeout=20_000
    )
    assert "psst, blue only" in _lines(blue)
    gallery.wait_for_function(
        "() => /good luck, all/.test(document.querySelector('#talk-lines').textContent)", timeout=20_000
    )
    assert "psst" not in _lines(gallery)

    assert gallery.eval_on_selector("#talk-to", "(e) => e.value") == "gallery"
    gallery.fill("#talk-text", "what a shot")
    gallery.click("#talk-form button[type=submit]")
    gallery.wait_for_function("() => /what a shot/.test(document.querySelector('#gallery-lines').textContent)")
    assert red.is_hidden("#gallery") and "what a shot" not in red.content()
    assert not console.unexpected(), console.unexpected()
