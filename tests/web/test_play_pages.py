"""Games played through the page alone — taps on the map, clicks on labelled orders and composed forms,
never the JSON box — while a spectator's page follows every step. Screenshots go to test-artifacts/.

- GSC2 duel to its end: Bismarck makes free-distance moves (typed, and once dragged on the map), Hood
  turns about with paid turns and sails off the table (GSC2-R-18), shots are taken by tapping the
  target on the map; the spectator sees the line of fire.
- ASC ambush through detection and fire: sealed sensor commit from the form, a detection and a lock
  tapped on the map, hex-path moves tapped hex by hex, fire declared at a tapped target, shots resolved.
- The test ruleset `skirmish` (tests/web/skirmish.py) on a plane and a hex map: every part of the
  contract the real rulesets may not use (legs for two pieces in one order, hexpath, effects, destroyed).
"""

from __future__ import annotations

import httpx
import pytest

from tests.web.driver import Seat, play_loop
from tests.web.support import ARTIFACTS, DESKTOP, PHONE, Console, page_url, token_free_query

TARGETED = "#commands button.opt[data-target]:not([data-target=''])"  # an option with a tap target


def _create(server, ruleset: str, scenario: str) -> dict:
    r = httpx.post(server.url + "/v1/games", json={"ruleset": ruleset, "scenario": scenario, "options": {}}, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()


def _url(server, created: dict, token: str | None) -> str:
    return page_url(server.url, created["game_id"], token)


@pytest.fixture
def contexts(browser):
    desk = browser.new_context(viewport=DESKTOP)
    phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)
    try:
        yield desk, phone
    finally:
        desk.close()
        phone.close()


def _open(console: Console, ctx, server, created: dict, name: str, token: str | None, touch: bool) -> Seat:
    page = console.watch(ctx.new_page(), name)
    page.goto(_url(server, created, token))
    page.wait_for_selector("#conn[data-state=live]")
    page.wait_for_function("() => window.salvo && salvo.live")
    return Seat(page, name, touch=touch)


class Spectator:
    """Follows the game and notes what it saw at each step: versions, effects on its map."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self.versions: list[int] = []
        self.effects: set[str] = set()

    def note(self) -> None:
        self.versions.append(self.seat.version())
        kinds = self.seat.page.eval_on_selector_all("#board .fx[data-kind], #board line.fx",
                                                    "els => els.map((e) => e.dataset.kind || 'fire')")
        self.effects.update(kinds)


def _end_or_first(seat: Seat, prefer: tuple[str, ...]) -> int:
    types = seat.option_types()
    for t in prefer:
        if t in types:
            return seat.option(t)
    return seat.act("#commands button.opt", "first option")


def test_gsc2_duel_to_its_end_through_the_page(browser, server, contexts):
    desk, phone = contexts
    console = Console()
    created = _create(server, "gsc2", "duel")
    red = _open(console, phone, server, created, "red", created["seats"]["red"], touch=True)
    blue = _open(console, desk, server, created, "blue", created["seats"]["blue"], touch=False)
    spec_seat = _open(console, phone, server, created, "spectator", None, touch=True)
    spec = Spectator(spec_seat)
    moves = {"red": 0, "blue": 0}
    fired: set[tuple[str, int]] = set()
    dragged = []

    def plan(seat: Seat, st: dict) -> int:
        page = seat.page
        if seat.has("section.form[data-command='gsc2.move']"):
            moves[seat.name] += 1
            form = "section.form[data-command='gsc2.move']"
            page.click(f"{form} .add-leg") if not seat.touch else page.tap(f"{form} .add-leg")
            if seat.name == "red" and moves["red"] <= 2:
                # Hood turns about: two paid 45° turns a move (GSC2-MOV-3), going nowhere yet
                page.fill(f"{form} .leg[data-i='0'] .leg-distance", "0")
                page.dispatch_event(f"{form} .leg[data-i='0'] .leg-distance", "change")
                page.select_option(f"{form} .leg[data-i='0'] .leg-turn", "45")
                seat.press(f"{form} .add-leg")
                page.fill(f"{form} .leg[data-i='1'] .leg-distance", "0")
                page.dispatch_event(f"{form} .leg[data-i='1'] .leg-distance", "change")
                page.select_option(f"{form} .leg[data-i='1'] .leg-turn", "45")
                turned = f"{form} .leg[data-i='1'] .leg-turn option[value='45']:checked"
                page.wait_for_selector(turned, state="attached")
                if page.query_selector(f"{form} .ruler-text.bad"):  # live legality: no 4" left for a second turn
                    seat.press(f"{form} .leg[data-i='1'] button[aria-label^='Remove']")
                    page.wait_for_selector(f"{form} .leg[data-i='1']", state="detached")
            elif seat.name == "blue" and moves["blue"] == 2:
                # drag the end of the move on the map: the ruler follows, the distance is what was dragged
                page.fill(f"{form} .leg[data-i='0'] .leg-distance", "3")
                page.dispatch_event(f"{form} .leg[data-i='0'] .leg-distance", "change")
                box = page.locator("#board .handle").bounding_box()
                page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
                page.mouse.down()
                page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2 + 40, steps=4)
                page.mouse.up()
                dist = f"{form} .leg[data-i='0'] .leg-distance"
                page.wait_for_function(f"() => document.querySelector(\"{dist}\").value !== '3'")
                dragged.append(float(page.input_value(f"{form} .leg[data-i='0'] .leg-distance")))
            elif seat.name == "blue":
                # a free distance, not a canned move: seven tenths of what is left
                left = float(page.get_attribute(f"{form} .leg[data-i='0'] .leg-slider", "max"))
                page.fill(f"{form} .leg[data-i='0'] .leg-distance", f"{round(left * 0.7, 1)}")
                page.dispatch_event(f"{form} .leg[data-i='0'] .leg-distance", "change")
            assert page.query_selector(f"{form} .ruler-text.bad") is None, page.inner_text(f"{form} .ruler-text")
            v = seat.send_form("gsc2.move")
        elif "gsc2.fire" in seat.option_types() and (seat.name, st["turn"]) not in fired:
            fired.add((seat.name, st["turn"]))
            ship, enemy = ("hood", "bismarck") if seat.name == "red" else ("bismarck", "hood")
            seat.select(ship)
            v = seat.target(enemy)
            spec_seat.sync(v)
            spec_seat.page.wait_for_selector("#board line.fx", state="attached")
            spec_seat.page.screenshot(path=str(ARTIFACTS / "gsc2-spectator-fire-390x844.png"))
        else:
            v = _end_or_first(seat, ("gsc2.start", "gsc2.choose_order", "gsc2.end_phase"))
        spec_seat.sync(v)
        spec.note()
        return v

    ARTIFACTS.mkdir(exist_ok=True)
    play_loop([red, blue], spec_seat, plan, max_actions=260)
    spec_seat.sync(red.version())
    assert red.state()["over"] and spec_seat.state()["over"]
    spec_seat.page.wait_for_selector(".badge.over")
    assert moves["blue"] >= 1 and dragged and 0 < dragged[0] and dragged[0] != 3
    assert "fire" in spec.effects  # the line of fire, on the spectator's map
    assert spec.versions == sorted(spec.versions)
    red.page.screenshot(path=str(ARTIFACTS / "gsc2-red-over-390x844.png"))
    blue.page.screenshot(path=str(ARTIFACTS / "gsc2-blue-over-1440x900.png"))
    assert console.unexpected() == [], console.unexpected()


def _mover(seat: Seat) -> str | None:
    """The first piece whose hex-path form offers a hex to tap on the map (selected)."""
    for piece in seat.page.eval_on_selector_all("section.form[data-command='asc.move'] .pc[data-piece]",
                                                "els => els.map((e) => e.dataset.piece)"):
        seat.select(piece)
        pc = f"section.form[data-command='asc.move'] .pc[data-piece='{piece}']"
        if seat.page.is_enabled(f"{pc} button:has-text('Clear path')"):
            seat.press(f"{pc} button:has-text('Clear path')")  # not the suggested path: our own
            seat.page.wait_for_selector(f"{pc} .path-text:has-text('Tap the hexes')")
        if seat.page.locator("#board .cell:visible").count() > 0:
            return piece
    return None


def test_asc_sensors_detection_and_moves_through_the_page(browser, server, contexts):
    """Sealed sensor commits from the form, detections tapped on the map, hex-path moves, while a spectator
    follows. (Bringing the ambush to a resolved shot through the page is not reached yet: issue 16's note.)"""
    desk, phone = contexts
    console = Console()
    created = _create(server, "asc", "frigate-screen")
    adv = _open(console, phone, server, created, "advantaged", created["seats"]["advantaged"], touch=True)
    dis = _open(console, desk, server, created, "disadvantaged", created["seats"]["disadvantaged"], touch=False)
    spec_seat = _open(console, desk, server, created, "spectator", None, touch=False)
    spec = Spectator(spec_seat)
    done: set[tuple] = set()
    log = spec_seat.page

    def plan(seat: Seat, st: dict) -> int:
        page = seat.page
        key = (seat.name, st["turn"], st["phase"])
        if seat.has("section.form[data-command='asc.commit_sensors']"):
            first = "section.form[data-command='asc.commit_sensors'] .pc select"
            if seat.name == "advantaged" and st["turn"] == 1 and page.query_selector(first):
                # one vessel goes active: detected at once, but it sees
                page.select_option(first, "1")
            v = seat.send_form("asc.commit_sensors")
        elif (close := page.query_selector(f"{TARGETED}[data-group='move']")) \
                and st["turn"] > 1 and (key, close.inner_text()) not in done:
            # after turn 1, close on a contact: tap the vessel, then the bogey on the map
            done.add((key, close.inner_text()))
            seat.select(close.get_attribute("data-piece"))
            v = seat.target(close.get_attribute("data-target"), choose=close.inner_text().split("(")[0].strip())
        elif seat.has("section.form[data-command='asc.move']") and key not in done and (piece := _mover(seat)):
            done.add(key)
            seat.press("#board .cell:visible")  # one hex at a time, the cost shown
            pc = f"section.form[data-command='asc.move'] .pc[data-piece='{piece}']"
            page.wait_for_selector(f"{pc} .path-text:has-text('cost')")
            v = seat.send_form("asc.move", piece)
        elif opts := next((o for g in ("detect", "fire", "lock")
                           for o in page.query_selector_all(f"{TARGETED}[data-group='{g}']")
                           if (key, o.inner_text()) not in done), None):
            done.add((key, opts.inner_text()))
            piece, target = opts.get_attribute("data-piece"), opts.get_attribute("data-target")
            seat.select(piece)  # tap our vessel, then the bogey or ship on the map
            v = seat.target(target, choose=opts.inner_text().split(":")[0])
        else:
            v = _end_or_first(seat, ("asc.end_phase",))
        if spec_seat.follow(v, hidden_ok=True):
            spec.note()
        return v

    def fought() -> bool:
        return log.evaluate("() => salvo.events.some((e) => e.type === 'asc.shot_resolved')")

    ARTIFACTS.mkdir(exist_ok=True)
    detected = "() => salvo.events.some((e) => e.type === 'asc.detection_attempted')"

    def detected_and_moved() -> bool:
        return fought() or (any(p.page.evaluate(detected) for p in (adv, dis))
                            and any("asc.move" in a for p in (adv, dis) for a in p.actions))

    play_loop([adv, dis], spec_seat, plan, max_actions=60, until=detected_and_moved, hidden=True)
    print("advantaged:", adv.actions, "\ndisadvantaged:", dis.actions)
    assert any(p.page.evaluate(detected) for p in (adv, dis)), "no detection was attempted"
    assert spec.versions, "the spectator followed no step"
    spec_seat.page.screenshot(path=str(ARTIFACTS / "asc-spectator-1440x900.png"))
    adv.page.screenshot(path=str(ARTIFACTS / "asc-advantaged-390x844.png"))
    assert console.unexpected() == [], console.unexpected()


@pytest.mark.parametrize("board", ["plane", "hex"])
def test_skirmish_contract_through_the_page(browser, server, contexts, board):
    desk, phone = contexts
    console = Console()
    created = _create(server, "skirmish", board)
    red = _open(console, phone, server, created, "red", created["seats"]["red"], touch=True)
    blue = _open(console, desk, server, created, "blue", created["seats"]["blue"], touch=False)
    spec_seat = _open(console, phone, server, created, "spectator", None, touch=True)
    spec = Spectator(spec_seat)
    fired: set[tuple] = set()

    def plan(seat: Seat, st: dict) -> int:
        page = seat.page
        if seat.has("section.form[data-command='skirmish.orders']"):
            pieces = page.eval_on_selector_all("section.form .pc[data-piece]", "els => els.map((e) => e.dataset.piece)")
            for piece in pieces:
                seat.press(f"section.form .pc[data-piece='{piece}'] button.show")  # "Map": select it
                if board == "plane":
                    seat.press(f"section.form .pc[data-piece='{piece}'] .add-leg")
                    page.fill(f".pc[data-piece='{piece}'] .leg[data-i='0'] .leg-distance", "4.5")
                    page.dispatch_event(f".pc[data-piece='{piece}'] .leg[data-i='0'] .leg-distance", "change")
                    page.wait_for_selector("#board .plan-mark text:has-text('4.5\"')", state="attached")  # the ruler
                else:
                    for _ in range(2):
                        seat.press("#board .cell:visible")
                    page.wait_for_selector(f".pc[data-piece='{piece}'] .path-text:has-text('cost 2 of 3')")
            v = seat.send_form("skirmish.orders")
        elif "skirmish.fire" in seat.option_types():
            btn = page.query_selector("#commands button.opt[data-type='skirmish.fire']")
            piece, target = btn.get_attribute("data-piece"), btn.get_attribute("data-target")
            fired.add((piece, target))
            seat.select(piece)
            v = seat.target(target)
        else:
            v = _end_or_first(seat, ("skirmish.end_phase",))
        spec_seat.sync(v)
        spec.note()
        return v

    ARTIFACTS.mkdir(exist_ok=True)
    play_loop([red, blue], spec_seat, plan, max_actions=120)
    assert spec_seat.state()["over"]
    assert {"fire", "hit", "damage", "destroyed"} <= spec.effects | {"miss"}, spec.effects
    assert spec_seat.page.query_selector("#board .piece.status-destroyed") is not None
    spec_seat.page.screenshot(path=str(ARTIFACTS / f"skirmish-{board}-spectator-390x844.png"))
    assert console.unexpected() == [], console.unexpected()


def test_token_links_keep_the_token_out_of_every_url(browser, server, contexts):
    """A seat link carries its token in the fragment (never sent to a server or in a Referer); an old
    ?token= link still opens the seat, and the page moves the token to the fragment at once."""
    desk, _ = contexts
    console = Console()
    created = _create(server, "gsc2", "duel")
    sent: list[str] = []
    page = console.watch(desk.new_page(), "blue")
    page.on("request", lambda r: sent.append(r.url))
    page.goto(_url(server, created, created["seats"]["blue"]))
    page.wait_for_selector("#conn[data-state=live]")
    assert page.inner_text("#viewer") == "seat:blue"
    assert token_free_query(page.url) and page.url.endswith(f"#token={created['seats']['blue']}"), page.url
    assert sent and all("token" not in u for u in sent), [u for u in sent if "token" in u]  # no request named it
    old = console.watch(desk.new_page(), "red (old link)")
    old.goto(f"{server.url}/?game={created['game_id']}&token={created['seats']['red']}")
    old.wait_for_selector("#conn[data-state=live]")
    assert old.inner_text("#viewer") == "seat:red"
    assert token_free_query(old.url) and old.url.endswith(f"#token={created['seats']['red']}"), old.url
    # rewritten in place: no more history entries than a page opened from a fragment link
    assert old.evaluate("() => history.length") == page.evaluate("() => history.length")
    assert console.unexpected() == [], console.unexpected()


def test_lobby_hands_a_seat_to_the_computer(browser, server, contexts):
    """Issue 12's lobby choice: "Computer" on a seat's row seats the rules-aware bot there."""
    desk, _ = contexts
    console = Console()
    page = console.watch(desk.new_page(), "lobby")
    page.goto(server.url + "/")
    page.wait_for_function("() => document.querySelector('#scenario')?.value === 'duel'")
    page.select_option("#ruleset", "gsc2")
    page.click("#create")
    page.wait_for_selector("#created .links")
    game = page.inner_text("#created h3").split()[1]
    page.click("#created button.bot[data-seat='blue']")
    page.wait_for_selector("#created button.bot[data-seat='blue']:has-text('Computer plays')")
    bots = httpx.get(f"{server.url}/v1/games/{game}/bots", timeout=30).json()["bots"]
    assert [b.get("seat") for b in bots] == ["blue"], bots
    assert console.unexpected() == [], console.unexpected()
