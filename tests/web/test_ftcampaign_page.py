"""The campaign star map in a real browser (Playwright + system Chromium) against the real server.

Create an intro-duel campaign in the lobby; the umpire generates the map with the option buttons; a
player sees the star map (worlds, owners, sealed-order status) and its own option buttons, claims its
homeworld with them, and taps a world for its details; a spectator sees the same public map and no
buttons. No console errors. Screenshots go to test-artifacts/ at 390×844 and 1440×900.

Same skip/require semantics as tests/web/test_browser.py (SALVO_REQUIRE_BROWSER=1 turns a skip into a
failure).
"""

from __future__ import annotations

from tests.web.support import ARTIFACTS, DESKTOP, PHONE, Console, create_in_lobby


def _open(page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector("#conn[data-state=live]")
    page.wait_for_selector("#board[data-board=starmap]")


OPT = "#commands button.opt"


def test_campaign_star_map_in_the_browser(browser, server):
    """The lobby creates a campaign; the umpire generates the map with its button; a player claims a homeworld
    with its button; every page, the spectator's too, sees the claim live on the star map."""
    ARTIFACTS.mkdir(exist_ok=True)
    console = Console()
    desk = phone = None
    try:
        desk = browser.new_context(viewport=DESKTOP)
        phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)

        lobby = console.watch(desk.new_page(), "lobby")
        links = create_in_lobby(lobby, server.url, "ftcampaign", "intro-duel")
        assert set(links) == {"seat:nac", "seat:fsr", "umpire", "spectator"}

        # the umpire generates the map from its labelled button
        umpire = console.watch(desk.new_page(), "umpire")
        _open(umpire, links["umpire"])
        # a locator, not an element handle: the options panel may re-render (the stream catching up) between
        # finding the button and clicking it, and a locator finds it again
        gen = umpire.locator(f"{OPT}[data-type='ftcampaign.generate_map']")
        assert "star map" in gen.inner_text().lower()
        gen.click()
        umpire.wait_for_selector("#board [data-node]", state="attached")

        pages = {}
        for p, ctx in (("nac", desk), ("fsr", phone)):
            page = console.watch(ctx.new_page(), p)
            _open(page, links[f"seat:{p}"])
            page.wait_for_selector("#board [data-node]", state="attached")
            assert page.query_selector(f"{OPT}[data-type='ftcampaign.generate_map']") is None
            pages[p] = page
        assert pages["nac"].eval_on_selector_all("#board [data-node]", "els => els.length") >= 2
        claimer = next(
            p
            for p, page in pages.items()
            if page.wait_for_selector(f"{OPT}", state="attached")
            and page.query_selector(f"{OPT}[data-type='ftcampaign.claim_homeworld']") is not None
        )
        page = pages[claimer]
        page.click(f"{OPT}[data-type='ftcampaign.claim_homeworld']")
        page.wait_for_selector(f"#board [data-node][data-owner={claimer}]", state="attached")
        # everyone sees the claim (set-up is public), the spectator too, live
        spec = console.watch(phone.new_page(), "spectator")
        _open(spec, links["spectator"])
        spec.wait_for_selector(f"#board [data-node][data-owner={claimer}]", state="attached")
        assert spec.query_selector_all(OPT) == []
        other = next(p for p in pages if p != claimer)
        pages[other].wait_for_selector(f"#board [data-node][data-owner={claimer}]", state="attached")

        # readable labels everywhere (words, never JSON)
        for pg in pages.values():
            labels = pg.eval_on_selector_all(OPT, "els => els.map(e => e.textContent)")
            assert not any("{" in t for t in labels), labels
        pages["nac"].screenshot(path=str(ARTIFACTS / "ftcampaign-nac-1440x900.png"))
        pages["fsr"].screenshot(path=str(ARTIFACTS / "ftcampaign-fsr-390x844.png"), full_page=True)
        spec.screenshot(path=str(ARTIFACTS / "ftcampaign-spectator-390x844.png"), full_page=True)
    finally:
        for ctx in (desk, phone):
            if ctx is not None:
                ctx.close()
    assert console.unexpected() == [], console.unexpected()
