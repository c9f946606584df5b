"""The phone layout (390×844, touch), issue 38: every sample scenario of every ruleset, opened as each
of its seats and as its umpire, shows no control smaller than 44×44 CSS px, is no wider than the screen,
and puts the seat's first order control (or, with nothing to do, the line saying why) on the first
screen. The lobby, with a game just created (its links and dice commitment), is no wider than the screen either.

One server, one phone page for the module; the games are created over the API.
"""

from __future__ import annotations

import httpx
import pytest

from tests.web.support import ARTIFACTS, PHONE, Console, create_in_lobby, page_url
from tests.web.test_every_page import CASES

MIN_PX = 44

# Every visible control a finger presses, outside the map (its pieces: test_every_page). A control inside a
# <label> is measured by its label's box, which takes the tap too. Boxes are page coordinates.
CONTROLS_JS = """() => {
  const sel = 'button, a[href], input:not([type=hidden]), select, textarea, summary, '
    + '[role=button], [role=tab], [role=slider]';
  const out = [];
  for (const n of document.querySelectorAll(sel)) {
    if (n.closest('#board')) continue;
    const box = n.closest('label') || n;
    const r = box.getBoundingClientRect();
    if (!r.width && !r.height) continue;  // not rendered (a hidden pane, a closed disclosure's content)
    if (getComputedStyle(n).visibility === 'hidden') continue;
    const name = n.id ? '#' + n.id
      : n.tagName.toLowerCase() + (n.className ? '.' + String(n.className).split(' ')[0] : '');
    out.push({ what: name + ' ' + (n.textContent || n.getAttribute('aria-label') || '').trim().slice(0, 30),
      w: Math.round(r.width * 10) / 10, h: Math.round(r.height * 10) / 10 });
  }
  return out;
}"""
WIDTH_JS = "() => ({ page: document.documentElement.scrollWidth, screen: innerWidth })"
# the first control of the seat's orders (a form's or an option's), else the status line; its bottom edge
FIRST_ORDER_JS = """() => {
  scrollTo(0, 0);
  const n = document.querySelector('#commands button, #commands select, #commands input')
    || document.querySelector('#status-line');
  const r = n.getBoundingClientRect();
  return { what: n.id || n.className || n.tagName, bottom: r.bottom + scrollY, order: n.closest('#commands') !== null };
}"""


@pytest.fixture(scope="module")
def phone(browser):
    console = Console()
    ctx = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    try:
        yield console.watch(ctx.new_page(), "phone"), console
    finally:
        ctx.close()


def _small(page) -> list[dict]:
    return [c for c in page.evaluate(CONTROLS_JS) if c["w"] < MIN_PX - 0.5 or c["h"] < MIN_PX - 0.5]


def _fits(page) -> bool:
    w = page.evaluate(WIDTH_JS)
    return w["page"] <= w["screen"]


@pytest.mark.parametrize("ruleset", sorted({r for r, _ in CASES}))
def test_phone_controls_finger_sized_page_fits_orders_on_first_screen(phone, server, ruleset):
    """For every scenario of the ruleset, each seat and the umpire: controls ≥ 44×44, page ≤ 390 px wide, and the first
    order control (or the status line when the seat has none) ends within the first 844 px."""
    page, console = phone
    seen_orders = 0
    for scenario in [s for r, s in CASES if r == ruleset]:
        body = {"ruleset": ruleset, "scenario": scenario, "options": {}}
        r = httpx.post(server.url + "/v1/games", json=body, timeout=30)
        assert r.status_code == 201, r.text
        created = r.json()
        for seat, token in [*created["seats"].items(), ("umpire", created["umpire_token"])]:
            where = f"{ruleset}/{scenario} as {seat}"
            page.goto(page_url(server.url, created["game_id"], token))
            page.wait_for_selector("#conn[data-state=live]", state="attached")
            page.wait_for_function("() => window.salvo && salvo.live")
            small = _small(page)
            first = page.evaluate(FIRST_ORDER_JS)
            if small or not _fits(page) or first["bottom"] > PHONE["height"]:
                ARTIFACTS.mkdir(exist_ok=True)
                shot = ARTIFACTS / f"phone-{ruleset}-{scenario}-{seat.replace('/', '_')}.png"
                page.screenshot(path=str(shot), full_page=True)
            assert not small, f"{where}: too small to tap: {small[:6]}"
            assert _fits(page), f"{where}: wider than the screen: {page.evaluate(WIDTH_JS)}"
            assert first["bottom"] <= PHONE["height"], f"{where}: first order control ends at y={first['bottom']}"
            seen_orders += first["order"]
    assert seen_orders, f"{ruleset}: no seat had an order control at the start: the check measured nothing"
    assert console.unexpected() == []


def test_phone_lobby_with_a_created_game_fits_and_is_finger_sized(phone, server):
    """After Create the lobby shows the links and the dice commitment (a 64-character hash): no wider
    than the screen, every control ≥ 44×44."""
    page, console = phone
    create_in_lobby(page, server.url, "gsc2", "duel")
    assert page.query_selector("#created .commitment") is not None
    assert _fits(page), page.evaluate(WIDTH_JS)
    assert _small(page) == []
    assert console.unexpected() == []
