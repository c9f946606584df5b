"""A campaign battle in the page (issue 14): from the campaign, open the linked battle, watch it, and come
back to the campaign with its result — while a spectator follows the battle.

The campaign is brought to a battle and the battle is played over the HTTP API (the players' campaign
tokens open their tactical seats); what is tested here is what a player meets in the page.
"""

from __future__ import annotations

import httpx

from tests.api.linked_battle_play import campaign_to_battle, play_gsc2
from tests.web.support import ARTIFACTS, DESKTOP, PHONE, Console, page_url, token_free_query


def _page(console: Console, ctx, name: str, url: str):
    page = console.watch(ctx.new_page(), name)
    page.goto(url)
    page.wait_for_selector("#conn[data-state=live]")
    page.wait_for_function("() => window.salvo && salvo.live")
    return page


def test_open_the_battle_from_the_campaign_watch_it_and_return_with_the_result(browser, server) -> None:
    console = Console()
    with httpx.Client(base_url=server.url, timeout=60) as http:
        r = http.post("/v1/games", json={"ruleset": "ftcampaign", "scenario": "three-powers"})
        assert r.status_code == 201, r.text
        game = r.json()
        battle = campaign_to_battle(http, game, seed=3)
        r = http.post(
            f"/v1/games/{game['game_id']}/battles/{battle['id']}/tactical",
            headers={"Authorization": f"Bearer {game['umpire_token']}"},
        )
        assert r.status_code == 201, r.text
        tid = r.json()["tactical_game_id"]
        player = battle["forces"][0]["player"]
        token = game["seats"][player]
        phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        desk = browser.new_context(viewport=DESKTOP)
        try:
            page = _page(console, phone, player, page_url(server.url, game["game_id"], token))
            # issue 38: the status names the battle and links to it, no bare game id
            status = page.evaluate("() => document.querySelector('#turn-status').textContent")
            assert tid not in status and f"Battle {battle['id']}" in status, status
            named = page.locator(f"#turn-status a.battle-link[data-game='{tid}']").first
            assert named.inner_text() == f"Open battle {battle['id']}" and tid in named.get_attribute("href")
            page.click("#tab-ship")
            link = page.locator(f"#pane-ship li[data-battle='{battle['id']}'] a.battle-link")
            link.wait_for()
            href = link.get_attribute("href")
            assert token_free_query(href) and href.endswith(f"#token={token}"), href  # the token in the fragment
            link.click()
            page.wait_for_url(f"**game={tid}**")
            assert token_free_query(page.url), page.url
            page.wait_for_selector("#conn[data-state=live]")
            page.wait_for_function("() => window.salvo && salvo.live && salvo.live.viewer")
            assert page.evaluate("salvo.live.viewer") == f"seat:{player}"  # the campaign token holds the side
            page.wait_for_selector("#board [data-kind=ship]")
            spectator = _page(console, desk, "spectator", f"{server.url}/?game={tid}")
            spectator.wait_for_selector("#board [data-kind=ship]")
            sides = [f["player"] for f in battle["forces"]]
            play_gsc2(http, tid, {p: game["seats"][p] for p in sides}, seed=3)
            spectator.wait_for_selector(".badge.over", timeout=20_000)  # the spectator saw it end
            page.wait_for_selector(".badge.over", timeout=20_000)
            page.screenshot(path=str(ARTIFACTS / "linked-battle-over.png"))
            back = page.locator("#to-campaign")
            assert token_free_query(back.get_attribute("href")), back.get_attribute("href")
            back.click()
            page.wait_for_url(f"**game={game['game_id']}**")
            assert token_free_query(page.url) and page.url.endswith(f"#token={token}"), page.url
            page.wait_for_selector("#conn[data-state=live]")
            page.click("#tab-log")
            page.wait_for_selector("#log li[data-type='ftcampaign.battle_recorded']", timeout=20_000)
            page.screenshot(path=str(ARTIFACTS / "linked-battle-back-in-campaign.png"))
        finally:
            phone.close()
            desk.close()
    assert not console.unexpected(), console.unexpected()
