"""Phases with nothing to do (issue 38): a GSC2 seat's page ends a phase in which its only order is "End the …
phase" (GSC2-SEQ-1) by itself, and says so; turned off, the page leaves that order to the player. The other
seat and the game's start are driven over the HTTP API: only red's page is under test."""

from __future__ import annotations

import httpx

from tests.web.support import DESKTOP, Console, page_url

SETTLED_JS = "(v) => window.salvo && salvo.live && !salvo.sending && salvo.live.version >= v"


def _only_end(options: list[dict]) -> bool:
    return len(options) == 1 and options[0]["command"]["type"] == "gsc2.end_phase"


def _red_done(http: httpx.Client, gid: str) -> int:
    """Red's phase ends in the log (gsc2.side_done by seat:red): this test never sends one, so the page did."""
    events = http.get(f"/v1/games/{gid}/events", params={"limit": 1000}).json()["events"]
    return sum(e["type"] == "gsc2.side_done" and e["actor"] == "seat:red" for e in events)


def _drive(http: httpx.Client, gid: str, tokens: dict[str, str], page, page_ends: bool, budget: int = 200):
    """Play over HTTP both seats' orders but red's "End the … phase" (moves and the like first, never fire).
    With ``page_ends``: until red's page has ended two phases by itself, returning its flash lines then; without:
    up to the first phase whose only order for red is to end it, returning the game's version there."""
    flashes: list[str] = []
    for _ in range(budget):
        head = http.get(f"/v1/games/{gid}").json()
        page.wait_for_function(SETTLED_JS, arg=head["version"], polling=50)
        if page_ends and _red_done(http, gid) >= 2:
            return flashes
        red = http.get(f"/v1/games/{gid}/options", headers={"Authorization": f"Bearer {tokens['red']}"}).json()
        if _only_end(red["options"]) and not red["forms"]:
            if not page_ends:
                return head["version"]
            page.wait_for_function(f"() => salvo.live.version > {head['version']} && !salvo.sending", polling=50)
            flashes.append(page.inner_text("#flash"))
            continue
        for side in ("red", "blue"):
            opts = http.get(f"/v1/games/{gid}/options", headers={"Authorization": f"Bearer {tokens[side]}"}).json()
            mine = [o for o in opts["options"] if side == "blue" or o["command"]["type"] != "gsc2.end_phase"]
            if not mine:
                continue
            pick = next(
                (o for o in mine if o["command"]["type"] != "gsc2.end_phase" and "fire" not in o["command"]["type"]),
                mine[0],
            )
            r = http.post(
                f"/v1/games/{gid}/commands",
                json={"command": pick["command"]},
                headers={"Authorization": f"Bearer {tokens[side]}"},
            )
            assert r.status_code == 201, r.text
            break
        else:
            if page_ends:  # red's page is ending its phase right now
                page.wait_for_function(f"() => salvo.live.version > {head['version']} && !salvo.sending", polling=50)
    raise AssertionError(f"red's page ended {_red_done(http, gid)} phases within the budget")


def test_a_phase_with_nothing_to_do_is_ended_by_the_page_and_the_player_may_turn_that_off(browser, server):
    """GSC2-SEQ-1: ending a phase is red's own order; the page gives it only when nothing else is offered."""
    console = Console()
    with httpx.Client(base_url=server.url, timeout=30) as http:
        game = http.post("/v1/games", json={"ruleset": "gsc2", "scenario": "duel"}).json()
        gid, tokens = game["game_id"], game["seats"]
        ctx = browser.new_context(viewport=DESKTOP)
        try:
            page = console.watch(ctx.new_page(), "red", skip_empty=True)
            page.goto(page_url(server.url, gid, tokens["red"]))
            page.wait_for_selector("#conn[data-state=live]")
            assert page.get_attribute("#skip-empty", "aria-pressed") == "true"  # on by default
            _drive(http, gid, tokens, page, page_ends=True)
            page.wait_for_selector("#flash:has-text('nothing else to do')")  # the page says what it did
            assert "End the" in page.inner_text("#flash")
            page.click("#skip-empty")  # off: red ends its phases itself
            assert page.get_attribute("#skip-empty", "aria-pressed") == "false"
            page.reload()
            page.wait_for_selector("#conn[data-state=live]")
            assert page.get_attribute("#skip-empty", "aria-pressed") == "false"  # kept in this browser
            at = _drive(http, gid, tokens, page, page_ends=False)
            page.wait_for_selector("#commands button.opt[data-type='gsc2.end_phase']")
            assert page.evaluate("() => salvo.live.version") == at  # offered, not sent
        finally:
            ctx.close()
    assert console.unexpected() == [], console.unexpected()
