"""One update = one message (issue 38): once a game's page has loaded, a stream update costs it no request.
The stream (?frames=view) carries the viewer's view and options after each update; a GSC2 duel and an ASC
game (hidden information: sealed sensor commits), as a seat and as a spectator, counted with Chromium's
request events while the game is played on over the HTTP API by both seats."""

from __future__ import annotations

import httpx
import pytest

from tests.web.support import Console, page_url

UPDATES = 6
SETTLED_JS = "(v) => window.salvo && salvo.live && !salvo.sending && salvo.live.version >= v"
# table talk reads its messages on a timer of its own (issue 39), not per update
OWN_TIMER = ("/messages", "/spectator-messages")


def _play_one(http: httpx.Client, gid: str, seats: dict[str, str]) -> bool:
    """One command of whichever seat has one (never a fire: the game goes on); False when none has."""
    for token in seats.values():
        auth = {"Authorization": f"Bearer {token}"}
        options = http.get(f"/v1/games/{gid}/options", headers=auth).json()["options"]
        for option in sorted(options, key=lambda o: "fire" in o["command"]["type"]):
            if http.post(f"/v1/games/{gid}/commands", json={"command": option["command"]}, headers=auth).is_success:
                return True
    return False


@pytest.mark.parametrize(("ruleset", "scenario"), [("gsc2", "duel"), ("asc", "frigate-screen")])
def test_no_request_per_stream_update_for_a_seat_and_a_spectator(browser, server, ruleset, scenario):
    created = httpx.post(f"{server.url}/v1/games", json={"ruleset": ruleset, "scenario": scenario}, timeout=30).json()
    gid, seats = created["game_id"], created["seats"]
    first = next(iter(seats))
    console = Console()
    ctx = browser.new_context()
    try:
        pages, requests, encodings = {}, {}, []
        for name, token in ((first, seats[first]), ("spectator", None)):
            page = console.watch(ctx.new_page(), name)
            seen: list[str] = []
            page.on("request", lambda r, seen=seen: seen.append(f"{r.method} {r.url}"))
            page.on("response", lambda r: r.url.endswith(f"/v1/games/{gid}") and encodings.append(r.headers))
            page.goto(page_url(server.url, gid, token))
            page.wait_for_selector("#conn[data-state=live]", state="attached")
            pages[name], requests[name] = page, seen
        with httpx.Client(base_url=server.url, timeout=30) as http:
            version = http.get(f"/v1/games/{gid}").json()["version"]
            for page in pages.values():
                page.wait_for_function(SETTLED_JS, arg=version, polling=50)
                page.wait_for_timeout(300)  # the first load's own reads (a campaign link, the rules) settle
            for seen in requests.values():
                seen.clear()
            for _ in range(UPDATES):
                assert _play_one(http, gid, seats), "no seat had anything to do"
                version = http.get(f"/v1/games/{gid}").json()["version"]
                for page in pages.values():  # each page follows, its view and options from the stream alone
                    page.wait_for_function(SETTLED_JS, arg=version, polling=50)
            auth = {"Authorization": f"Bearer {seats[first]}"}
            options = http.get(f"/v1/games/{gid}/options", headers=auth).json()
        pages[first].wait_for_timeout(200)
        shown = pages[first].evaluate("() => salvo.labelled.map((o) => o.command)")
        assert shown == [o["command"] for o in options["options"]]  # the seat's options are the server's
        for name, seen in requests.items():
            per_update = [r for r in seen if "/v1/" in r and not r.split("?")[0].endswith(OWN_TIMER)]
            assert per_update == [], (name, per_update)
        # the first load's view came gzipped (the server under test is the fast path's, as served)
        assert encodings and all(h.get("content-encoding") == "gzip" for h in encodings), encodings
        assert console.unexpected() == []
    finally:
        ctx.close()
