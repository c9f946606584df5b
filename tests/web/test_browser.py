"""The web client in a real browser (Playwright + system Chromium) against the real server.

One scenario, end to end, through the page as drawn from the drawing contract (board.js pieces with
data attributes, labelled options and composed forms): create a GSC2 duel in the lobby, move and fire
as one seat (the umpire forces the phases on), watch it live as a spectator on a phone-sized screen,
scrub back in history and step through it (◀ ▶ and the arrow keys), open the turn replay with its rolls
and verified dice, and follow a roll's rule id to its text. Screenshots go to test-artifacts/.

Skips when Playwright or Chromium is missing, unless SALVO_REQUIRE_BROWSER=1 (then it fails).
"""

from __future__ import annotations

import hashlib
import json
import re
import time

from service.domain.core.dice import commitment, derive_face
from tests.web.driver import Seat
from tests.web.support import (
    ARTIFACTS,
    DESKTOP,
    PHONE,
    Console,
    create_in_lobby,
    evaluate_in_fresh_page,
    token_free_query,
)

MOVE_FORM = "section.form[data-command='gsc2.move']"
FORCE = "#commands button.opt[data-type='gsc2.force_phase']"


def _open(console: Console, ctx, url: str, name: str) -> Seat:
    page = console.watch(ctx.new_page(), name)
    page.goto(url)
    page.wait_for_selector("#conn[data-state=live]")
    page.wait_for_function("() => window.salvo && salvo.live")
    return Seat(page, name)


def _piece_at(seat: Seat, piece: str) -> tuple[str, str]:
    node = seat.page.wait_for_selector(f"#board .piece[data-id='{piece}']", state="attached")
    return node.get_attribute("data-x"), node.get_attribute("data-y")


def _shown_seq(seat: Seat) -> int:
    """The seq the header says is shown in history (#mode reads "History · seq N of V")."""
    seat.page.wait_for_selector("#mode[data-mode=history]")
    return int(re.search(r"seq (\d+) of", seat.page.inner_text("#mode")).group(1))


def _wait_seq(seat: Seat, seq: int) -> None:
    seat.page.wait_for_function(
        "(n) => /seq (\\d+) of/.exec(document.querySelector('#mode').textContent)?.[1] === String(n)", arg=seq
    )


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
        links = create_in_lobby(lobby, server.url, "gsc2", "duel")
        assert set(links) == {"seat:red", "seat:blue", "umpire", "spectator"}
        assert "token=" not in links["spectator"]
        for role, link in links.items():  # a seat's or the umpire's token rides in the fragment, never the query
            assert token_free_query(link) and (role == "spectator" or "#token=" in link), (role, link)
        lobby.screenshot(path=str(ARTIFACTS / "lobby-1440x900.png"))

        # a spectator on a phone watches from the start: the public view, no orders
        spec = _open(console, phone, links["spectator"], "spectator")
        spec.touch = True
        assert spec.page.get_attribute("#viewer", "data-viewer") == "spectator"
        assert spec.page.query_selector_all("#commands button.opt, section.form") == []

        seats = {side: _open(console, desk, links[f"seat:{side}"], side) for side in ("red", "blue")}
        umpire = _open(console, desk, links["umpire"], "umpire")
        for side, s in seats.items():  # the fragment's token opened the seat; the page's URL keeps it out of the query
            viewer = s.page.get_attribute("#viewer", "data-viewer")
            assert viewer == f"seat:{side}" and token_free_query(s.page.url), (viewer, s.page.url)

        # start, and the roll-off winner names the second player, until a seat has its move form
        mover = None
        for _ in range(6):
            mover = next((s for s in seats.values() if s.has(MOVE_FORM)), None)
            if mover:
                break
            seat = next(s for s in seats.values() if s.option_types())
            seat.act("#commands button.opt", "start / order")
            for s in (*seats.values(), spec):
                s.sync(seat.version())
        assert mover is not None, "no seat was given a move form"
        enemy_side = "blue" if mover.name == "red" else "red"
        ship = mover.page.get_attribute(f"{MOVE_FORM} .pc[data-piece]", "data-piece")
        enemy = seats[enemy_side].page.get_attribute(f"#board .piece[data-side='{enemy_side}']", "data-id")
        start_at = _piece_at(spec, ship)

        # a move through the form: one leg of 3" ahead, the ruler shown on the map
        form = MOVE_FORM
        mover.press(f"{form} .add-leg")
        mover.page.fill(f"{form} .leg[data-i='0'] .leg-distance", "3")
        mover.page.dispatch_event(f"{form} .leg[data-i='0'] .leg-distance", "change")
        mover.page.wait_for_selector("#board .plan-mark text:has-text('3\"')", state="attached")
        ruler = f"{form} .ruler-text"
        assert mover.page.query_selector(f"{ruler}.bad") is None, mover.page.inner_text(ruler)
        moved_v = mover.send_form("gsc2.move")
        spec.sync(moved_v)
        moved_at = _piece_at(spec, ship)
        assert moved_at != start_at  # live on the spectator's screen
        assert _piece_at(mover, ship) == moved_at

        # the umpire forces the phases on until the mover may fire its beams
        for _ in range(8):
            mover.sync(umpire.version())
            if "gsc2.fire" in mover.option_types():
                break
            umpire.act(FORCE, "force the phase on")
        assert "gsc2.fire" in mover.option_types(), mover.option_types()

        # a shot: select our ship, tap the target highlighted on the map, pick the action in the tray
        mover.select(ship)
        fired_v = mover.target(enemy)
        mover.page.wait_for_selector("#flash:has-text('✓')")
        spec.sync(fired_v)
        spec.page.wait_for_selector("#log li[data-type='gsc2.beam_fired']", state="attached")
        spec.page.wait_for_selector("#board line.fx", state="attached")  # the line of fire, live
        mover.page.screenshot(path=str(ARTIFACTS / f"{mover.name}-beams-1440x900.png"))

        # a rejection shows its rule id: the same battery cannot fire twice in a turn
        shot = spec.page.evaluate("() => salvo.events.filter((e) => e.type === 'gsc2.beam_fired').pop().data")
        mover.press("details.raw summary")
        mover.page.fill(
            "#raw-command",
            json.dumps(
                {"type": "gsc2.fire", "ship": shot["ship"], "battery": shot["battery"], "target": shot["target"]}
            ),
        )
        console.allowed_422 += 1
        mover.press("#send-raw")
        mover.page.wait_for_selector("#rejection:not([hidden]) code.rule")
        assert mover.page.inner_text("#rejection code.rule").startswith("GSC2-")

        # the spectator's socket drops; it resumes with after= and misses nothing
        spec.page.screenshot(path=str(ARTIFACTS / "spectator-live-390x844.png"), full_page=True)
        spec.page.evaluate("salvo.stream.drop()")

        # on to turn 2: turn 1's dice are revealed
        for _ in range(8):
            if spec.page.evaluate("() => salvo.live.turn") >= 2:
                break
            spec.sync(umpire.act(FORCE, "force the phase on"))
        spec.page.wait_for_selector("#conn[data-state=live]")
        spec.page.wait_for_function("() => document.querySelector('#clock').textContent.includes('Turn 2')")
        seqs = spec.page.eval_on_selector_all("#log li", "els => els.map(e => +e.dataset.seq)")
        assert sorted(seqs) == list(range(1, max(seqs) + 1))  # no gap, no duplicate

        # scrub back to turn 1: the header shows history, the ship is back where it started
        version = spec.version()
        spec.press(".turn-chips button[data-turn='1']")
        spec.page.wait_for_selector("#mode[data-mode=history]")
        assert "history" in spec.page.inner_text(".where")
        at = _shown_seq(spec)
        assert at < version
        assert _piece_at(spec, ship) == start_at
        assert spec.page.query_selector_all("#commands button.opt, section.form") == []

        # step on and back (▶ ◀), then the arrow keys: each moves one event and keeps the place
        spec.press("#step-on")
        _wait_seq(spec, at + 1)
        spec.press("#step-back")
        _wait_seq(spec, at)
        spec.page.keyboard.press("ArrowRight")
        _wait_seq(spec, at + 1)
        spec.page.keyboard.press("ArrowRight")
        _wait_seq(spec, at + 2)
        spec.page.keyboard.press("ArrowLeft")
        _wait_seq(spec, at + 1)
        assert spec.page.get_attribute("#mode", "data-mode") == "history"
        assert spec.page.input_value("#scrub") == str(at + 1)
        assert spec.page.get_attribute(f"#log li[data-seq='{at + 1}']", "aria-current") == "step"

        # the turn 1 replay: the shot with its rolls, dice verified against the revealed seed
        spec.press("#tab-replay")
        spec.page.wait_for_selector(".turn-row[data-turn='1'] .badge[data-status=verified]")  # by slot keys
        spec.press(".turn-row[data-turn='1'] button.open-turn")
        step = spec.page.wait_for_selector("#turn-replay li.step[data-type='gsc2.beam_fired']")
        assert step.query_selector(".roll") is not None
        assert spec.page.query_selector("#turn-replay .roll .ok") is not None  # each roll recomputed ✓
        # a roll's rule id links to its text in the rules digest
        link = step.query_selector(".roll a.rule[data-rule]")
        rule = link.get_attribute("data-rule")
        assert rule.startswith("GSC2-")
        link.click()
        box = step.wait_for_selector(f".rule-ref:has(a.rule[data-rule='{rule}']) .rule-text:not([hidden])")
        text = box.inner_text()
        assert text.startswith(rule) and "not in the" not in text, text
        assert link.get_attribute("aria-expanded") == "true"
        spec.page.screenshot(path=str(ARTIFACTS / "spectator-replay-390x844.png"), full_page=True)

        # from a replay step to the table after it, and back to live
        seq = int(step.get_attribute("data-seq"))
        spec.press("#turn-replay li.step[data-type='gsc2.beam_fired'] .seq-link")
        _wait_seq(spec, seq)
        spec.page.wait_for_selector("#go-live:not([disabled])")
        spec.press("#go-live")
        spec.page.wait_for_selector("#mode[data-mode=live]")
        spec.page.wait_for_selector("#go-live[disabled]")
        assert _piece_at(spec, ship) != start_at
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
    got, console = evaluate_in_fresh_page(
        browser,
        server.url,
        "dice",
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
    assert got["subtle"] == want
    assert got["js"] == want
    assert got["sha"] == got["shaJs"] == commitment(seed)
    assert got["shaLong"] == hashlib.sha256(b"a" * 200).hexdigest()
    assert console.unexpected() == []
