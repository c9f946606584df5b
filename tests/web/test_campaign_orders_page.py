"""A campaign player's and umpire's Orders pane (issue 38), on a phone: the treasury above the orders and
each purchase's price (FTC-ECO-1, FTC-BLD-2); "Finish set-up spending" is not the first button and, like
"End the campaign now" (FTC-TIME-1), takes a second tap that says what cannot be undone.

The campaign is brought to set-up spending over the HTTP API, following the options each seat is offered.
"""

from __future__ import annotations

import httpx

from tests.web.support import PHONE, Console, page_url

SKIP = ("ftcampaign.end_campaign", "ftcampaign.record_ruling")


def _to_spending(http: httpx.Client, created: dict) -> None:
    game = created["game_id"]
    tokens = {"umpire": created["umpire_token"], **created["seats"]}
    for _ in range(80):
        for token in tokens.values():
            got = http.get(f"/v1/games/{game}/options", headers={"Authorization": f"Bearer {token}"}).json()
            if any(o["command"]["type"] == "ftcampaign.buy_ship" for o in got["options"]):
                return
            todo = [o for o in got["options"] if o["command"]["type"] not in SKIP]
            if todo:
                r = http.post(
                    f"/v1/games/{game}/commands",
                    json={"command": todo[0]["command"]},
                    headers={"Authorization": f"Bearer {token}"},
                )
                assert r.status_code == 201, r.text
                break
        else:
            raise AssertionError("no seat had anything to do before set-up spending")
    raise AssertionError("set-up spending never came")


def _open(page, server, game: str, token: str) -> None:
    page.goto(page_url(server.url, game, token))
    page.wait_for_selector("#conn[data-state=live]", state="attached")
    page.wait_for_function("() => window.salvo && salvo.live && salvo.labelled.length")


def _version(page) -> int:
    return int(page.evaluate("() => salvo.live.version"))


def test_ftc_eco_1_treasury_prices_and_a_second_tap_for_what_cannot_be_undone(browser, server):
    console = Console()
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    with httpx.Client(base_url=server.url, timeout=30) as http:
        created = http.post("/v1/games", json={"ruleset": "ftcampaign", "scenario": "intro-duel"}).json()
        _to_spending(http, created)
        game, player = created["game_id"], "nac"
        cash = http.get(f"/v1/games/{game}", headers={"Authorization": f"Bearer {created['seats'][player]}"}).json()[
            "state"
        ]["economy"]["cash"]
    try:
        page = console.watch(ctx.new_page(), player)
        _open(page, server, game, created["seats"][player])
        assert page.inner_text("#treasury").startswith(f"Treasury: {cash:,} pts"), page.inner_text("#treasury")
        buys = page.eval_on_selector_all(
            "#commands button.opt[data-type='ftcampaign.buy_ship']", "els => els.map((e) => e.textContent)"
        )
        assert buys and all(b.endswith(" pts") for b in buys), buys
        first = page.get_attribute("#commands button.opt", "data-type")
        assert first != "ftcampaign.ready", "ending set-up spending is the first button"
        # ready with no ships bought: a second tap, saying so; Cancel leaves everything as it was
        before = _version(page)
        page.tap("#commands button.opt[data-type='ftcampaign.ready']")
        page.wait_for_selector("#confirm")
        assert "you have bought no ships" in page.inner_text("#confirm")
        page.tap("#confirm-no")
        page.wait_for_selector("#confirm", state="detached")
        assert _version(page) == before
        page.tap("#commands button.opt[data-type='ftcampaign.ready']")
        page.tap("#confirm-yes")
        page.wait_for_function(f"() => salvo.live.version > {before}")
        assert page.query_selector("#confirm") is None

        umpire = console.watch(ctx.new_page(), "umpire")
        _open(umpire, server, game, created["umpire_token"])
        before = _version(umpire)
        umpire.tap("#commands button.opt[data-type='ftcampaign.end_campaign']")
        umpire.wait_for_selector("#confirm")
        assert "cannot be undone" in umpire.inner_text("#confirm")
        umpire.tap("#confirm-no")
        umpire.wait_for_selector("#confirm", state="detached")
        assert _version(umpire) == before and not umpire.evaluate("() => salvo.live.over")
    finally:
        ctx.close()
    assert console.unexpected() == []
