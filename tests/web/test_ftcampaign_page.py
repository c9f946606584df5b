"""The campaign star map in a real browser (Playwright + system Chromium) against the real server.

Create an intro-duel campaign in the lobby; the umpire generates the map with the option buttons; a
player sees the star map (worlds, owners, sealed-order status) and its own option buttons, claims its
homeworld with them, and taps a world for its details; a spectator sees the same public map and no
buttons. No console errors. Screenshots go to test-artifacts/ at 390×844 and 1440×900.

Same skip/require semantics as tests/web/test_browser.py (SALVO_REQUIRE_BROWSER=1 turns a skip into a
failure).
"""

from __future__ import annotations

import time

import pytest

from tests.web.support import ARTIFACTS, DESKTOP, PHONE, Console


def _open(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#conn[data-state=live]")
    page.wait_for_selector("#board[data-ruleset=ftcampaign]")


@pytest.mark.xfail(reason="written against the pre-contract renderer (selectors g.ship, canned move buttons); "
                          "the ruleset now has a drawing and is drawn by board.js: to be ported", strict=False)
def test_campaign_star_map_in_the_browser(browser, server):
    ARTIFACTS.mkdir(exist_ok=True)
    console = Console()
    started = time.monotonic()
    desk = phone = None
    try:
        desk = browser.new_context(viewport=DESKTOP)
        phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)

        lobby = console.watch(desk.new_page(), "lobby")
        lobby.goto(server.url + "/")
        lobby.wait_for_selector("#ruleset option[value=ftcampaign]", state="attached")
        lobby.select_option("#ruleset", "ftcampaign")
        lobby.wait_for_function("() => document.querySelector('#scenario')?.value === 'intro-duel'")
        lobby.click("#create")
        lobby.wait_for_selector("#created .links")
        links = {
            row.get_attribute("data-role"): row.query_selector("input").input_value()
            for row in lobby.query_selector_all("#created .link-row")
        }
        assert set(links) == {"seat:nac", "seat:fsr", "umpire", "spectator"}

        # the umpire generates the map from its option buttons
        umpire = console.watch(desk.new_page(), "umpire")
        _open(umpire, links["umpire"])
        gen = umpire.query_selector("button.cmd[data-type='ftcampaign.generate_map']")
        assert gen.inner_text() == "Generate the star map"
        assert gen.evaluate("b => b.closest('.cmd-group').dataset.group") == "Set-up"
        umpire.click("button.cmd[data-type='ftcampaign.generate_map']")
        umpire.wait_for_selector("#board g.world", state="attached")
        assert "homeworlds" in umpire.inner_text("#clock")

        # the players: the star map, the sealed-order status, and their own option buttons
        pages = {}
        for p, ctx in (("nac", desk), ("fsr", phone)):
            page = console.watch(ctx.new_page(), p)
            _open(page, links[f"seat:{p}"])
            page.wait_for_selector("#board g.world", state="attached")
            page.wait_for_selector("#starmap-info .sealed-orders li[data-player=nac]")
            assert page.query_selector("button.cmd[data-type='ftcampaign.generate_map']") is None
            pages[p] = page
        worlds = pages["nac"].eval_on_selector_all("#board g.world", "els => els.length")
        assert worlds >= 2
        claimer = next(
            p
            for p, page in pages.items()
            if page.query_selector("button.cmd[data-type='ftcampaign.claim_homeworld']") is not None
        )
        page = pages[claimer]
        assert page.inner_text("button.cmd[data-type='ftcampaign.claim_homeworld']") == "Claim a homeworld"
        page.click("button.cmd[data-type='ftcampaign.claim_homeworld']")
        page.wait_for_selector(f"#board g.world[data-owner={claimer}]", state="attached")
        # everyone sees the claim (set-up is public), the spectator too, live
        spec = console.watch(phone.new_page(), "spectator")
        _open(spec, links["spectator"])
        spec.wait_for_selector(f"#board g.world[data-owner={claimer}]", state="attached")
        assert spec.query_selector_all("button.cmd") == []
        assert spec.query_selector("#starmap-info .economy") is None
        other = next(p for p in pages if p != claimer)
        pages[other].wait_for_selector(f"#board g.world[data-owner={claimer}]", state="attached")

        # tap the claimed world: its details (income, IDP for its owner) show under the map
        page.click(f"#board g.world[data-owner={claimer}]")
        page.wait_for_selector("#starmap-details h4:has-text('World')")
        assert "Owner" in page.inner_text("#starmap-details")
        assert page.query_selector("#starmap-info .economy") is not None

        # readable labels everywhere (no "type — field: value" fallbacks), and the campaign sheet in the panel
        for _player, pg in pages.items():
            pg.wait_for_selector("#commands > *")
            labels = pg.eval_on_selector_all("#commands button.cmd", "els => els.map(e => e.textContent)")
            assert not any(" — " in t and ":" in t for t in labels), labels
            pg.click("#tab-ship")
            pg.wait_for_selector("#pane-ship table.ftc-players tr[data-player=fsr]")
            assert {"nac", "fsr"} <= set(
                pg.eval_on_selector_all("#pane-ship tr[data-player]", "els => els.map(e => e.dataset.player)")
            )
            pg.click("#tab-orders")
        pages["nac"].wait_for_selector("#commands > *")
        pages["nac"].screenshot(path=str(ARTIFACTS / "ftcampaign-nac-1440x900.png"))
        pages["fsr"].wait_for_selector("#commands > *")
        pages["fsr"].screenshot(path=str(ARTIFACTS / "ftcampaign-fsr-390x844.png"), full_page=True)
        spec.screenshot(path=str(ARTIFACTS / "ftcampaign-spectator-390x844.png"), full_page=True)
        umpire.screenshot(path=str(ARTIFACTS / "ftcampaign-umpire-1440x900.png"))
    finally:
        for ctx in (desk, phone):
            if ctx is not None:
                ctx.close()
    assert console.unexpected() == [], console.unexpected()
    assert time.monotonic() - started < 60
