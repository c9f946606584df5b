"""A campaign's linked battle started and fought from the page (issue 38, FTC-ARR-8): the umpire's Orders
pane lists the battle with "Fight battle … on the table"; one tap starts the linked GSC2 game, and every
player's page then names it ("Open battle B…") live. Both players open it from their campaign pages (their
campaign tokens hold their sides there) and fight it with taps on their orders — one side sails off
(GSC2-R-20, FTC-ARR-11), the other holds — until it ends and its result is back in the campaign.

The campaign is brought to the battle over the HTTP API (set-up and strategic turns are other tests' business).
"""

from __future__ import annotations

import httpx
import pytest

from tests.api.linked_battle_play import _run_to_edge, campaign_to_battle
from tests.web.driver import Seat
from tests.web.support import DESKTOP, PHONE, Console, page_url

SETTLED_JS = "(v) => window.salvo && salvo.live && !salvo.sending && salvo.live.version >= v"
OPTIONS_JS = "() => salvo.labelled.map((o, i) => ({i, label: o.label, piece: o.piece, command: o.command}))"


def _open(console: Console, ctx, name: str, url: str, touch: bool) -> Seat:
    page = console.watch(ctx.new_page(), name)
    page.goto(url)
    page.wait_for_selector("#conn[data-state=live]")
    page.wait_for_function("() => window.salvo && salvo.live")
    return Seat(page, name, touch=touch)


def _rank(leaver: bool, option: dict, view: dict) -> float:
    """The leaver heads for the nearest drawn edge and disengages once allowed; the other side holds and ends
    its phases; nobody fires (tests/api/linked_battle_play.sail_off's order, read off the page's options)."""
    cmd = option["command"]
    if cmd["type"] == "gsc2.disengage":
        return -2 if leaver else 10
    if cmd["type"] == "gsc2.move":
        legs = cmd.get("legs", ())
        if not leaver:
            return 0 if not any(leg.get("distance") for leg in legs) else 8
        if "leaves the table" in option["label"]:
            return -1
        ship = next(s for s in view["ships"] if s["id"] == cmd["ship"])
        return 1 - 1 / (1 + _run_to_edge(ship, list(legs), view["table"]))
    return {"gsc2.choose_order": 2, "gsc2.pass": 3, "gsc2.end_phase": 4}.get(cmd["type"], 9)


@pytest.mark.slow  # ~40 s: a campaign driven to a battle, then the battle fought tap by tap
def test_the_umpire_starts_a_linked_battle_from_the_page_and_the_players_fight_it(browser, server):
    console = Console()
    with httpx.Client(base_url=server.url, timeout=60) as http:
        game = http.post("/v1/games", json={"ruleset": "ftcampaign", "scenario": "three-powers"}).json()
        battle = campaign_to_battle(http, game, seed=3)
    gid, bid = game["game_id"], battle["id"]
    sides = [f["player"] for f in battle["forces"]]
    desk = browser.new_context(viewport=DESKTOP)
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    try:
        players = {
            p: _open(console, ctx, p, page_url(server.url, gid, game["seats"][p]), touch=ctx is phone)
            for p, ctx in zip(sides, (phone, desk), strict=True)
        }
        for seat in players.values():  # not linked yet: the players are told who decides
            seat.page.wait_for_selector(f"#battles li[data-battle='{bid}']")
            assert not seat.has(f"#battles li[data-battle='{bid}'] button")
        umpire = _open(console, desk, "umpire", page_url(server.url, gid, game["umpire_token"]), touch=False)
        start = f"#battles button.start-battle[data-battle='{bid}']"
        assert "Fight battle" in umpire.page.inner_text(start)
        umpire.press(start)
        umpire.page.wait_for_selector(f"#battles li[data-battle='{bid}'] a.battle-link")
        tid = umpire.page.get_attribute(f"#battles li[data-battle='{bid}'] a.battle-link", "data-game")
        assert tid and umpire.page.is_hidden("#rejection")
        for p, seat in players.items():  # live, no reload: the players' pages name the battle and open it
            link = f"#battles li[data-battle='{bid}'] a.battle-link[data-game='{tid}']"
            seat.page.wait_for_selector(link)
            assert seat.page.inner_text(link) == f"Open battle {bid}"
            seat.press(link)
            seat.page.wait_for_url(f"**game={tid}**")
            seat.page.wait_for_selector("#conn[data-state=live]")
            seat.page.wait_for_function("() => window.salvo && salvo.live && salvo.live.viewer")
            assert seat.page.evaluate("salvo.live.viewer") == f"seat:{p}"
        leaver = min(
            sides,
            key=lambda p: min(
                int(s["speed"]) for s in players[p].page.evaluate("() => salvo.live.state.ships") if s["side"] == p
            ),
            default=sides[1],
        )
        latest = 0
        for _ in range(400):
            for seat in players.values():
                seat.page.wait_for_function(SETTLED_JS, arg=latest, polling=50)
            if players[sides[0]].page.evaluate("salvo.live.over"):
                break
            view = players[sides[0]].page.evaluate("() => salvo.live.state")
            offered = [
                (_rank(p == leaver, o, view), p, o)
                for p, seat in players.items()
                for o in seat.page.evaluate(OPTIONS_JS)
            ]
            assert offered, "no side can act in the battle: a stall"
            _, p, o = min(offered, key=lambda x: x[0])
            seat = players[p]
            button = f"#commands button.opt[data-i='{o['i']}']"
            if not seat.has(button) and o["piece"]:  # many orders: only the selected ship's are listed
                seat.select(o["piece"])
            latest = seat.act(button, o["command"]["type"])
        else:
            raise AssertionError("the battle did not end")
        umpire.press("#tab-log")
        umpire.page.wait_for_selector("#log li[data-type='ftcampaign.battle_recorded']", timeout=20_000)
    finally:
        desk.close()
        phone.close()
    assert console.unexpected() == [], console.unexpected()
