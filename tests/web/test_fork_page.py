"""Issue 38: a fork made in the page at any turn chip can be played. A GSC2 duel played by two rules bots for
a few turns; in the umpire's page each turn chip is pressed, a what-if forked there, and the forked game
answered: a seat it says must act has an option or a form, and a bot seated there plays it on."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlparse

import httpx

from tests.web.support import Console
from tests.web.test_keyboard_play import _create, _open

TURNS = 3


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _played_duel(http: httpx.Client, server) -> dict:
    created = _create(server, "gsc2", "duel")
    gid, umpire = created["game_id"], created["umpire_token"]
    for seat in created["seats"]:
        r = http.post(f"/v1/games/{gid}/bots", json={"seat": seat, "bot": "rules"}, headers=_auth(umpire))
        assert r.status_code in (200, 201), r.text
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        game = http.get(f"/v1/games/{gid}", headers=_auth(umpire)).json()
        if game["turn"] > TURNS or game["over"]:
            break
        time.sleep(0.2)
    for seat in created["seats"]:  # the bots stop: the original stays as it is while the page forks it
        http.delete(f"/v1/games/{gid}/bots/{seat}", headers=_auth(umpire))
    assert game["turn"] > TURNS or game["over"], game
    return {**created, "turns": game["turn"]}


def _must_act(http: httpx.Client, gid: str, tokens: dict[str, str]) -> list[str]:
    r = http.get(f"/v1/games/{gid}", headers=_auth(tokens["umpire"]))
    assert r.status_code == 200, (gid, r.status_code, r.text[:300])
    status = r.json()["state"]["draw"]["status"]
    return [s["seat"] for s in status["seats"] if s["must_act"]]


def _tokens_of(page) -> dict[str, str]:
    """The forked game's links as the page lists them: role -> token (from the link's fragment)."""
    links = page.eval_on_selector_all(
        ".disputes-out .links li[data-role] a", "as => as.map((a) => [a.parentElement.dataset.role, a.href])"
    )
    tokens = {}
    for role, href in links:
        token = parse_qs(urlparse(href).fragment).get("token")
        if token:
            tokens[role.removeprefix("seat:")] = token[0]
    return tokens


def test_a_fork_made_at_any_turn_chip_can_be_played(browser, server, desk):
    console = Console()
    http = httpx.Client(base_url=server.url, timeout=30)
    try:
        created = _played_duel(http, server)
        k = _open(console, desk, server, created, "umpire", created["umpire_token"])
        page = k.page
        page.click("[data-tab=replay]")
        chips = page.eval_on_selector_all(".turn-chips button.chip", "bs => bs.map((b) => b.dataset.seq)")
        assert len(chips) >= min(TURNS, created["turns"]) >= 1, (chips, created["turns"])  # a duel may end early
        for seq in chips:
            page.click(f".turn-chips button.chip[data-seq='{seq}']")
            page.wait_for_selector("#mode[data-mode=history]")
            shown = page.eval_on_selector_all(".disputes-out p", "ps => ps.map((p) => p.textContent).join()")
            page.click("#fork")
            page.wait_for_function(  # this fork's answer, not the one before it still on screen
                "(before) => { const p = document.querySelector('.disputes-out p');"
                " return p && p.textContent !== before && document.querySelector("
                "\".disputes-out .links li[data-role='umpire'] a\"); }",
                arg=shown,
            )
            words = page.inner_text(".disputes-out p")
            forked = words.split()[2]
            tokens = _tokens_of(page)
            waiting = _must_act(http, forked, tokens)
            assert waiting, (seq, words)
            for seat in waiting:  # told to act: something to do
                offered = http.get(f"/v1/games/{forked}/options", headers=_auth(tokens[seat])).json()
                assert offered["options"] or offered["forms"], (seq, seat, offered)
            # and the game goes on: a bot in the seat that must act makes the next move
            before = http.get(f"/v1/games/{forked}", headers=_auth(tokens["umpire"])).json()["version"]
            r = http.post(
                f"/v1/games/{forked}/bots", json={"seat": waiting[0], "bot": "rules"}, headers=_auth(tokens["umpire"])
            )
            assert r.status_code in (200, 201), r.text
            for _ in range(100):
                now = http.get(f"/v1/games/{forked}", headers=_auth(tokens["umpire"])).json()["version"]
                if now > before:
                    break
                time.sleep(0.1)
            assert now > before, (seq, words, "the forked game did not go on")
            http.delete(f"/v1/games/{forked}/bots/{waiting[0]}", headers=_auth(tokens["umpire"]))
        assert console.unexpected() == []
    finally:
        http.close()
