"""A three-player campaign (scenario three-powers) strategic turn whose sealed orders are composed in the
page: the umpire and players bring the campaign to its orders phase over HTTP (map generation, homeworld
claims, expansion, ship purchases, ready); then each player, in its own page, splits its task group with
the labelled option and composes orders for both groups in the orders form (include, destination, posture),
and sends them once. A spectator's page follows: it learns that each player sealed its orders, never what
they are. Each player's sealed orders (as its page sees them) are exactly what it composed; the turn resolves
(the spectator's page moves on from the orders phase). Screenshots go to
test-artifacts/."""

from __future__ import annotations

import httpx

from tests.api.ftcampaign_play import QUIET
from tests.web.driver import Seat
from tests.web.support import ARTIFACTS, DESKTOP, PHONE, Console
from tests.web.test_play_pages import _open  # the seat opener the play-through tests share

FORM = "section.form[data-command='ftcampaign.submit_orders']"
SET_UP = ("ftcampaign.claim_homeworld", "ftcampaign.expand", "ftcampaign.buy_ship", "ftcampaign.ready")


def _auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _to_orders_phase(http: httpx.Client, created: dict) -> None:
    """Set-up over HTTP: each player claims, expands, buys two ships and is ready; the umpire does its
    duties (the map) when no player has anything to do. Stops when every player has the orders form."""
    gid, umpire, seats = created["game_id"], created["umpire_token"], created["seats"]
    bought = dict.fromkeys(seats, 0)
    for _ in range(120):
        offered = {p: http.get(f"/v1/games/{gid}/options", headers=_auth(t)).json() for p, t in seats.items()}
        if all(any(f["command"] == "ftcampaign.submit_orders" for f in o["forms"]) for o in offered.values()):
            return
        move = None
        for p, body in offered.items():
            types = [o["command"]["type"] for o in body["options"]]
            for want in SET_UP:
                if want in types and not (want == "ftcampaign.buy_ship" and bought[p] >= 2):
                    bought[p] += want == "ftcampaign.buy_ship"
                    move = (seats[p], body["options"][types.index(want)]["command"])
                    break
            if move:
                break
        if move is None:
            umpire_options = http.get(f"/v1/games/{gid}/options", headers=_auth(umpire)).json()["options"]
            duties = [o["command"] for o in umpire_options if o["command"]["type"] not in QUIET]
            assert duties, "nobody can move the campaign on"
            move = (umpire, duties[0])
        r = http.post(f"/v1/games/{gid}/commands", json={"command": move[1]}, headers=_auth(move[0]))
        assert r.status_code == 201, r.text
    raise AssertionError("the campaign did not reach its orders phase")


def _compose(seat: Seat) -> dict[str, tuple[str, str]]:
    """Split the task group (a labelled option), then give each group an order in the form: include it,
    pick a destination that is not "hold" and a posture. Returns group -> (destination label, posture)."""
    seat.option("ftcampaign.split_group")
    seat.page.wait_for_function(f'() => document.querySelectorAll("{FORM} .pc[data-piece]").length >= 2')
    groups = seat.page.eval_on_selector_all(f"{FORM} .pc[data-piece]", "els => els.map((e) => e.dataset.piece)")
    chosen = {}
    for i, group in enumerate(groups):
        pc = f"{FORM} .pc[data-piece='{group}']"
        box = seat.page.locator(f"{pc} input[type=checkbox]")
        if not box.is_checked():
            box.check()
        to = f"{pc} select[data-key='to']"
        labels = seat.page.eval_on_selector_all(f"{to} option", "els => els.map((e) => e.textContent)")
        moves = [n for n, text in enumerate(labels) if text != "hold"]
        assert moves, labels
        pick = moves[i % len(moves)]  # the two groups go different ways
        seat.page.select_option(to, index=pick)
        seat.page.select_option(f"{pc} select[data-key='posture']", label="attack" if i == 0 else "stand off")
        chosen[group] = (labels[pick], "attack" if i == 0 else "stand_off")
    return chosen


def test_three_players_seal_orders_for_several_groups_in_the_page(browser, server):
    console = Console()
    http = httpx.Client(base_url=server.url, timeout=30)
    r = http.post("/v1/games", json={"ruleset": "ftcampaign", "scenario": "three-powers", "options": {}})
    assert r.status_code == 201, r.text
    created = r.json()
    gid = created["game_id"]
    _to_orders_phase(http, created)
    desk = browser.new_context(viewport=DESKTOP)
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    try:
        players = [
            _open(console, phone if n == 1 else desk, server, created, p, t, touch=n == 1)
            for n, (p, t) in enumerate(created["seats"].items())
        ]
        spectator = _open(console, phone, server, created, "spectator", None, touch=True)
        spectator.page.wait_for_selector("#board")
        before = spectator.state()
        assert not spectator.has(FORM) and not spectator.has("#commands button.opt")
        orders: dict[str, dict[str, tuple[str, str]]] = {}
        for seat in players:
            orders[seat.name] = _compose(seat)
            ARTIFACTS.mkdir(exist_ok=True)
            if seat.touch:
                seat.page.screenshot(path=str(ARTIFACTS / "ftcampaign-orders-form-390x844.png"), full_page=True)
            v = seat.send_form("ftcampaign.submit_orders")
            spectator.sync(v)  # every step, the sealed ones too (their caught_up)
        print(orders)
        for seat in players:  # what each player sealed, as its own page saw it: exactly what it composed
            sealed = seat.page.evaluate(
                """(me) => salvo.events.filter((e) => e.type === 'ftcampaign.orders_submitted'
                && e.data.player === me).map((e) => e.data.orders)""",
                seat.name,
            )
            assert len(sealed) == 1 and sealed[0] is not None, sealed
            got = {o["group"]: (f"{o['to'][0]},{o['to'][1]}", o["posture"]) for o in sealed[0]}
            want = {g: (label.split()[0], posture) for g, (label, posture) in orders[seat.name].items()}
            assert len(want) >= 2 and got == want, (seat.name, got, want)
        version = http.get(f"/v1/games/{gid}").json()["version"]
        spectator.sync(version)  # the turn resolved: the spectator's page is up to date
        seen = spectator.page.evaluate("""() => salvo.events.filter((e) => e.type === 'ftcampaign.orders_submitted')
            .map((e) => [e.data.player, e.data.orders ?? null])""")
        assert sorted(seen) == sorted([p, None] for p in orders), seen  # that they sealed, never what
        after = spectator.state()
        assert (after["turn"], after["phase"]) != (before["turn"], before["phase"]), (before, after)  # resolved
        spectator.page.screenshot(path=str(ARTIFACTS / "ftcampaign-turn-spectator-390x844.png"), full_page=True)
        players[0].page.screenshot(path=str(ARTIFACTS / "ftcampaign-turn-player-1440x900.png"))
    finally:
        desk.close()
        phone.close()
        http.close()
    assert console.unexpected() == [], console.unexpected()
