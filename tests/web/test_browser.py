"""The web client in a real browser (Playwright + system Chromium) against the real server.

One scenario, end to end: create a GSC2 duel in the lobby, play a move and a shot as the red seat
(umpire forces the phases on), watch it live as a spectator on a phone-sized screen (including a
dropped socket that resumes with after=), scrub back to turn 1, open the turn replay with its rolls
and dice verification, and see a rejection with its rule id. Screenshots go to test-artifacts/.

Skips when Playwright or Chromium is missing, unless SALVO_REQUIRE_BROWSER=1 (then it fails).
"""

from __future__ import annotations

import hashlib
import time

import pytest

from service.domain.core.dice import commitment, derive_face
from tests.web.support import ARTIFACTS, DESKTOP, PHONE, Console


def _clock(page) -> str:
    return page.inner_text("#clock")


def _force(umpire, times: int) -> None:
    for _ in range(times):
        before = _clock(umpire)
        umpire.click("button.cmd[data-type='gsc2.force_phase']")
        umpire.wait_for_function("b => document.querySelector('#clock').textContent !== b", arg=before)


@pytest.mark.xfail(reason="written against the pre-contract renderer (selectors g.ship, canned move buttons); "
                          "the ruleset now has a drawing and is drawn by board.js: to be ported", strict=False)
def test_play_watch_scrub_and_replay(browser, server):
    ARTIFACTS.mkdir(exist_ok=True)
    console = Console()
    started = time.monotonic()
    desk = phone = None
    try:
        desk = browser.new_context(viewport=DESKTOP)
        phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)

        # lobby: rulesets, scenarios, create, share links
        lobby = console.watch(desk.new_page(), "lobby")
        lobby.goto(server.url + "/")
        lobby.wait_for_function("() => document.querySelector('#scenario')?.value === 'duel'")
        lobby.select_option("#ruleset", "gsc2")
        lobby.click("#create")
        lobby.wait_for_selector("#created .links")
        links = {
            row.get_attribute("data-role"): row.query_selector("input").input_value()
            for row in lobby.query_selector_all("#created .link-row")
        }
        assert set(links) == {"seat:red", "seat:blue", "umpire", "spectator"}
        assert "token=" not in links["spectator"]
        lobby.screenshot(path=str(ARTIFACTS / "lobby-1440x900.png"))

        # a spectator on a phone watches from the start
        spec = console.watch(phone.new_page(), "spectator")
        spec.goto(links["spectator"])
        spec.wait_for_selector("#conn[data-state=live]")
        assert spec.inner_text("#viewer") == "spectator"
        assert spec.query_selector_all("button.cmd") == []

        red = console.watch(desk.new_page(), "red")
        red.goto(links["seat:red"])
        red.wait_for_selector("#conn[data-state=live]")
        red.click("button.cmd[data-type='gsc2.start']")
        red.wait_for_selector("button.cmd[data-type='gsc2.start']", state="detached")
        # the roll-off winner names the second player; make it red so red moves first
        if red.query_selector("button.cmd[data-type='gsc2.choose_order']") is None:
            blue = console.watch(desk.new_page(), "blue")
            blue.goto(links["seat:blue"])
            blue.click("button.cmd[data-type='gsc2.choose_order']:has-text('red is second player')")
            blue.close()
        else:
            red.click("button.cmd[data-type='gsc2.choose_order']:has-text('red is second player')")

        # a move, from the options buttons
        red.click("button.cmd[data-type='gsc2.move']:has-text('Hood: 8\" ahead')")
        red.wait_for_selector("g.ship[data-id=hood][data-y='14']")
        spec.wait_for_selector("g.ship[data-id=hood][data-y='14']")  # live on the spectator's screen

        # the umpire forces movement and missiles on, to the beams phase
        umpire = console.watch(desk.new_page(), "umpire")
        umpire.goto(links["umpire"])
        umpire.wait_for_selector("#conn[data-state=live]")
        _force(umpire, 2)
        assert "beams" in _clock(umpire)

        # a shot: tap the target in arc on the map, pick the battery
        red.wait_for_selector("g.ship.target[data-id=bismarck]")
        red.wait_for_selector("#board .arcs path[data-battery=hb1]")  # the selected ship's arcs
        red.click("g.ship[data-id=bismarck]")
        red.click("#chooser button.cmd[data-type='gsc2.fire']:has-text('heavy beam battery')")
        red.wait_for_selector("#flash:has-text('✓')")
        red.wait_for_selector("#log li[data-type='gsc2.beam_fired']", state="attached")
        spec.wait_for_selector("#log li[data-type='gsc2.beam_fired']", state="attached")
        red.screenshot(path=str(ARTIFACTS / "red-beams-1440x900.png"))

        # a rejection shows its rule id and explanation: hb1 has already fired this turn
        red.click("details.raw summary")
        red.fill("#raw-command", '{"type":"gsc2.fire","ship":"hood","battery":"hb1","target":"bismarck"}')
        console.allowed_422 += 1
        red.click("#send-raw")
        red.wait_for_selector("#rejection:has-text('GSC2-BEAM-3')")
        assert "already fired" in red.inner_text("#rejection")

        # the spectator's socket drops; it resumes with after= and misses nothing
        spec.evaluate("salvo.stream.drop()")
        _force(umpire, 3)  # beams -> boarding -> repairs -> turn 2 (reveals turn 1's dice)
        spec.wait_for_selector("#conn[data-state=live]")
        spec.wait_for_function("() => document.querySelector('#clock').textContent.includes('Turn 2')")
        seqs = spec.eval_on_selector_all("#log li", "els => els.map(e => +e.dataset.seq)")
        assert sorted(seqs) == list(range(1, max(seqs) + 1))  # no gap, no duplicate
        # the side panel: Bismarck's data sheet and the damage Hood's battery did
        spec.click("#tab-ship")
        spec.click(".piece-list button[data-id=bismarck]")
        spec.wait_for_selector("#pane-ship table.sheet tr[data-battery=hb1]")
        assert "Hull" in spec.inner_text("#pane-ship")
        spec.screenshot(path=str(ARTIFACTS / "spectator-live-390x844.png"), full_page=True)

        # scrub back to turn 1: Hood is back at its start
        spec.click(".turn-chips button[data-turn='1']")
        spec.wait_for_selector("g.ship[data-id=hood][data-y='6']")
        assert "history" in spec.inner_text(".where")

        # the turn 1 replay: every event explained, rolls with modifiers and rule ids, dice verified
        spec.click("#tab-replay")
        spec.wait_for_selector(".turn-row[data-turn='1'] .badge[data-status=verified]")
        spec.click(".turn-row[data-turn='1'] button.open-turn")
        step = spec.wait_for_selector("#turn-replay li.step[data-type='gsc2.beam_fired']")
        text = step.inner_text()
        assert "fires at Bismarck" in text and "GSC2-HIT-1" in text and "target aspect" in text
        assert spec.query_selector("#turn-replay .roll .ok") is not None  # roll recomputed ✓
        spec.screenshot(path=str(ARTIFACTS / "spectator-replay-390x844.png"), full_page=True)

        # the same replay on a desktop, and back to live
        desk_spec = console.watch(desk.new_page(), "desk-spectator")
        desk_spec.goto(links["spectator"])
        desk_spec.wait_for_selector("#conn[data-state=live]")
        desk_spec.click("#tab-replay")
        desk_spec.click(".turn-row[data-turn='1'] button.open-turn")
        desk_spec.wait_for_selector("#turn-replay li.step[data-type='gsc2.beam_fired']")
        desk_spec.click("#turn-replay li.step[data-type='gsc2.beam_fired'] .seq-link")
        desk_spec.wait_for_selector("#go-live:not([disabled])")
        desk_spec.screenshot(path=str(ARTIFACTS / "spectator-replay-1440x900.png"))
        desk_spec.click("#go-live")
        desk_spec.wait_for_selector("#go-live[disabled]")

        red_phone = console.watch(phone.new_page(), "red-phone")
        red_phone.goto(links["seat:red"])
        red_phone.wait_for_selector("#conn[data-state=live]")
        red_phone.wait_for_selector("#commands > *")
        red_phone.screenshot(path=str(ARTIFACTS / "red-orders-390x844.png"), full_page=True)
    finally:
        for ctx in (desk, phone):
            if ctx is not None:
                ctx.close()
    assert console.unexpected() == [], console.unexpected()
    assert time.monotonic() - started < 60


def test_dice_verifier_matches_the_service(browser, server):
    """dice.js (crypto.subtle and the pure-JS fallback) derives the same faces as derive_face."""
    seed = bytes(range(32))
    cases = [(i, sides, salt) for i in range(12) for sides in (3, 6, 10, 20, 100) for salt in ("", "abc")]
    want = [derive_face(seed, "g_test", 7, i, sides, salt) for i, sides, salt in cases]
    console = Console()
    ctx = browser.new_context()
    try:
        page = console.watch(ctx.new_page(), "dice")
        page.goto(server.url + "/")
        got = page.evaluate(
            """async ([seedHex, cases]) => {
            const d = await import('/static/dice.js');
            const seed = d.hexToBytes(seedHex);
            const subtleKey = await d.hmacKey(seed), jsKey = { raw: seed };
            const out = { subtle: [], js: [] };
            for (const [i, sides, salt] of cases) {
                out.subtle.push(await d.deriveFace(subtleKey, 'g_test', 7, i, sides, salt));
                out.js.push(await d.deriveFace(jsKey, 'g_test', 7, i, sides, salt));
            }
            out.sha = d.bytesToHex(await d.sha256(seed));
            out.shaJs = d.bytesToHex(d.sha256js(seed));
            out.shaLong = d.bytesToHex(d.sha256js(new TextEncoder().encode('a'.repeat(200))));
            return out;
        }""",
            [seed.hex(), cases],
        )
    finally:
        ctx.close()
    assert got["subtle"] == want
    assert got["js"] == want
    assert got["sha"] == got["shaJs"] == commitment(seed)
    assert got["shaLong"] == hashlib.sha256(b"a" * 200).hexdigest()
    assert console.unexpected() == []


def test_hex_map_draws_vessels_bogeys_and_move_targets(browser, server):
    """hexmap.js draws an ASC-like view defensively: grid, planet, facings, bogeys, clickable hexes."""
    view = {
        "ruleset": "asc",
        "turn": 1,
        "phase": "sensors",
        "map_radius": 5,
        "planet_hexes": [[0, 0]],
        "vessels": [
            {"id": "v1", "name": "Nimitz", "side": "advantaged", "hex": [1, -1], "facing": 2, "unknown_field": {"x": 1}}
        ],
        "bogeys": [{"bogey": "bogey-1", "hex": [-2, 3]}],
    }
    options = [{"type": "asc.move", "vessel": "v1", "hex": [2, -1]}]
    console = Console()
    ctx = browser.new_context()
    try:
        page = console.watch(ctx.new_page(), "hex")
        page.goto(server.url + "/")
        got = page.evaluate(
            """async ([view, options]) => {
            const h = await import('/static/hexmap.js');
            const root = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
            document.body.append(root);
            const sent = [];
            h.renderHex(root, view, { selected: 'v1', options, onSelect() {}, onCommand: (c) => sent.push(c) });
            root.querySelector('.hex.move-target').dispatchEvent(new MouseEvent('click', { bubbles: true }));
            return {
                hexes: root.querySelectorAll('.hex').length,
                planets: root.querySelectorAll('.hex.planet').length,
                pieces: [...root.querySelectorAll('g.ship')].map((g) => [g.dataset.id, g.dataset.q, g.dataset.r]),
                bogeys: root.querySelectorAll('g.ship.bogey').length,
                facing: root.querySelector('g.ship[data-id=v1] g').getAttribute('transform'),
                sent,
            };
        }""",
            [view, options],
        )
    finally:
        ctx.close()
    assert got["hexes"] == 91 and got["planets"] == 1
    assert sorted(got["pieces"]) == [["bogey-1", "-2", "3"], ["v1", "1", "-1"]]
    assert got["bogeys"] == 1 and got["facing"] == "rotate(120)"
    assert got["sent"] == options
    assert console.unexpected() == []
