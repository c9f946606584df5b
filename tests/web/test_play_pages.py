"""Games played through the page alone — taps on the map, clicks on labelled orders and composed forms,
never the JSON box — while a spectator's page follows every step. Screenshots go to test-artifacts/.

- GSC2 duel to its end: Bismarck makes free-distance moves (typed, and once dragged on the map), Hood
  turns about with paid turns and sails off the table (GSC2-R-18), shots are taken by tapping the
  target on the map; the spectator sees the line of fire.
- ASC frigate-screen through detection and fire: the cruiser's active sensors committed in the sealed
  form (detected at once, ASC-DET-2), hex-path moves tapped hex by hex, a close-on order and TTA locks
  tapped on the map, each weapon's target chosen by tapping it, the shots resolved, then a detection
  attempt tapped on a bogey; the spectator sees the fire on its map and follows the sealed steps too.
- A seat's and a spectator's page follow a sealed step of the other seat (no event, only a caught_up at
  the new head) without a reload: view, options and status are the server's at the new version.
- Page links: the token rides in the fragment, never the query; an old ?token= link is rewritten.
- The test ruleset `skirmish` (tests/web/skirmish.py) on a plane and a hex map: every part of the
  contract the real rulesets may not use (legs for two pieces in one order, hexpath, effects, destroyed).
"""

from __future__ import annotations

import httpx
import pytest

from tests.web.driver import Seat, play_loop
from tests.web.support import ARTIFACTS, DESKTOP, PHONE, Console, create_in_lobby, page_url, token_free_query

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
        kinds = self.seat.page.eval_on_selector_all(
            "#board .fx[data-kind], #board line.fx", "els => els.map((e) => e.dataset.kind || 'fire')"
        )
        self.effects.update(kinds)


def _two_seats_and_spectator(
    server, contexts, ruleset: str, scenario: str, on_phone: str, on_desk: str, spectator_on_phone: bool
) -> tuple[Console, dict, Seat, Seat, Spectator]:
    """A new game with one seat's page on the phone (tapped), the other's on the desktop (clicked), and a
    spectator's page on either; each open and live."""
    desk, phone = contexts
    console = Console()
    created = _create(server, ruleset, scenario)
    tapped = _open(console, phone, server, created, on_phone, created["seats"][on_phone], touch=True)
    clicked = _open(console, desk, server, created, on_desk, created["seats"][on_desk], touch=False)
    watcher = _open(
        console, phone if spectator_on_phone else desk, server, created, "spectator", None, touch=spectator_on_phone
    )
    return console, created, tapped, clicked, Spectator(watcher)


def _end_or_first(seat: Seat, prefer: tuple[str, ...]) -> int:
    types = seat.option_types()
    for t in prefer:
        if t in types:
            return seat.option(t)
    return seat.act("#commands button.opt:not(:disabled)", "first option")


def test_gsc2_duel_to_its_end_through_the_page(browser, server, contexts):
    console, created, red, blue, spec = _two_seats_and_spectator(
        server, contexts, "gsc2", "duel", "red", "blue", spectator_on_phone=True
    )
    spec_seat = spec.seat
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


ASC_MOVE = "section.form[data-command='asc.move']"
ASC_FIRE = "section.form[data-command='asc.fire']"
EVENT_JS = "(t) => salvo.events.some((e) => e.type === t)"


def _tap_path(seat: Seat, piece: str, hexes: list[tuple[int, int]]) -> int:
    """Our own hex path for a vessel, tapped on the map hex by hex (not the suggested one), then sent."""
    seat.select(piece)
    pc = f"{ASC_MOVE} .pc[data-piece='{piece}']"
    if seat.page.is_enabled(f"{pc} button:has-text('Clear path')"):
        seat.press(f"{pc} button:has-text('Clear path')")
        seat.page.wait_for_selector(f"{pc} .path-text:has-text('Tap the hexes')")
    for i, (q, r) in enumerate(hexes):
        assert seat.in_view(f"#board .cell[data-q='{q}'][data-r='{r}']")  # the page keeps the next hexes in view
        seat.press(f"#board .cell[data-q='{q}'][data-r='{r}']")
        seat.page.wait_for_selector(f"{pc} .path-text:has-text('{q},{r} · cost {i + 1}')")
    return seat.send_form("asc.move", piece)


def _tap_option(seat: Seat, option) -> int:  # noqa: ANN001 - a Playwright element handle
    """An order that names a target, given on the map: tap our vessel, then the target, then the order."""
    seat.select(option.get_attribute("data-piece"))
    return seat.target(option.get_attribute("data-target"), choose=option.inner_text().split("(")[0].strip())


def _declare_fire(seat: Seat, piece: str, target: str) -> int:
    """Choose a weapon's target by tapping it on the map (the tray sets the fire form's target), then send
    that weapon's form: the declaration is sealed (ASC-R-4) until both sides end the fire phase."""
    page = seat.page
    label = page.inner_text(f"{ASC_FIRE}:has(.pc[data-piece='{piece}']) h4")  # "FS Aurore: fire with the laser …"
    form = f"{ASC_FIRE}:has(h4:text-is('{label}'))"
    seat.select(piece)
    seat.see(f"#board .target[data-id='{target}'] > .hit")
    seat.press(f"#board .target[data-id='{target}'] > .hit")
    if page.is_visible("#tray"):  # more than one thing to do with it: the tray asks which
        seat.press(f"#tray .tray-act:has-text('{label} — ')")
    name = page.evaluate("(t) => salvo.live.state.draw.pieces.find((p) => p.id === t).label", target)
    chosen = page.inner_text(f"{form} select[data-key='target'] option:checked")
    assert chosen.startswith(name), (chosen, name)  # the form's target is the one tapped
    return seat.act(f"{form} button.send-form", label)


def test_asc_detection_moves_and_fire_through_the_page(browser, server, contexts):
    """frigate-screen through detection and fire, by taps and clicks alone: the cruiser commits its active
    sensors in the sealed form (so the frigates detect it at once, ASC-DET-2), moves along a hex path
    tapped hex by hex; a frigate closes on it by tapping it on the map, the other taps its own path; they
    lock TTAs and choose their weapons' targets on the map; the shots resolve; next turn the cruiser's
    detection attempt on a bogey is tapped on the map. A spectator follows every step, sealed ones too,
    and sees the fire on its map."""
    console, created, adv, dis, spec = _two_seats_and_spectator(
        server, contexts, "asc", "frigate-screen", "advantaged", "disadvantaged", spectator_on_phone=False
    )
    spec_seat = spec.seat
    done: set[tuple] = set()
    paths = {"sms-kaiser": [(0, 3), (0, 2), (0, 1)], "fs-belle-isle": [(1, -3), (1, -2), (1, -1), (1, 0)]}
    shot_seen: list[int] = []

    def plan(seat: Seat, st: dict) -> int:
        page = seat.page
        key = (seat.name, st["turn"], st["phase"])
        targeted = [o for g in ("detect", "lock") for o in page.query_selector_all(f"{TARGETED}[data-group='{g}']")]
        fresh = [o for o in targeted if (key, o.get_attribute("data-piece"), o.get_attribute("data-group")) not in done]
        armed = page.eval_on_selector_all(f"{ASC_FIRE} .pc[data-piece]", "els => els.map((e) => e.dataset.piece)")
        fire_at = [p for p in armed if (key, p, "fire") not in done]
        if seat.has("section.form[data-command='asc.commit_sensors']"):
            if seat.name == "disadvantaged" and st["turn"] == 1:  # the cruiser radiates: seen at once, but it sees
                page.select_option(
                    "section.form[data-command='asc.commit_sensors'] .pc[data-piece='sms-kaiser'] "
                    "select[data-key='active']",
                    "1",
                )
            v = seat.send_form("asc.commit_sensors")
        elif fresh:  # one detection attempt or lock per vessel and phase, tapped on the map
            o = fresh[0]
            done.add((key, o.get_attribute("data-piece"), o.get_attribute("data-group")))
            v = _tap_option(seat, o)
        elif fire_at:
            done.add((key, fire_at[0], "fire"))
            v = _declare_fire(seat, fire_at[0], "sms-kaiser")
        elif (close := page.query_selector(f"{TARGETED}[data-group='move'][data-piece='fs-aurore']")) and (
            key,
            "close",
        ) not in done:
            done.add((key, "close"))
            v = _tap_option(seat, close)  # Aurore closes on the cruiser: tap Aurore, the cruiser, "close on"
        elif mover := next(
            (p for p in paths if seat.has(f"{ASC_MOVE} .pc[data-piece='{p}']") and (key, p) not in done), None
        ):
            done.add((key, mover))
            v = _tap_path(seat, mover, paths[mover])
        else:
            v = _end_or_first(seat, ("asc.end_phase",))
        spec_seat.sync(v)  # every step, sealed ones too: the spectator is sent a caught_up for those
        spec.note()
        if not shot_seen and spec_seat.page.evaluate(EVENT_JS, "asc.shot_resolved"):
            shot_seen.append(v)
            spec_seat.page.screenshot(path=str(ARTIFACTS / "asc-spectator-fire-1440x900.png"))
        return v

    def fought_and_searched() -> bool:
        return spec_seat.page.evaluate(EVENT_JS, "asc.shot_resolved") and dis.page.evaluate(
            EVENT_JS, "asc.detection_attempted"
        )

    ARTIFACTS.mkdir(exist_ok=True)
    play_loop([adv, dis], spec_seat, plan, max_actions=60, until=fought_and_searched)
    print("advantaged:", adv.actions, "\ndisadvantaged:", dis.actions)
    # detection: the radiating cruiser was seen by name, locked on, and searched for the frigates itself
    assert adv.page.evaluate(EVENT_JS, "asc.lock_taken")
    assert dis.page.evaluate(EVENT_JS, "asc.detection_attempted")
    # fire: declared from the map, resolved, seen by the side fired on and on the spectator's map
    shots = spec_seat.page.evaluate(
        "() => salvo.events.filter((e) => e.type === 'asc.shot_resolved').map((e) => e.data.outcome)"
    )
    assert shots and set(shots) <= {"hit", "miss", "direct"}, shots
    assert dis.page.evaluate(EVENT_JS, "asc.shot_resolved")
    assert any(": fire with " in a for a in adv.actions) and any("asc.move" in a for a in dis.actions)
    assert spec.effects & {"fire", "hit", "miss"}, spec.effects
    print("the spectator's map showed:", sorted(spec.effects))
    assert spec.versions == sorted(spec.versions) and spec.versions[-1] == adv.version()
    spec_seat.page.screenshot(path=str(ARTIFACTS / "asc-spectator-1440x900.png"))
    adv.page.screenshot(path=str(ARTIFACTS / "asc-advantaged-390x844.png"))
    assert console.unexpected() == [], console.unexpected()


def test_a_seat_follows_the_other_seats_sealed_step_without_a_reload(browser, server, contexts):
    """A fire declaration is sealed (ASC-R-4): the other seat and a spectator are sent no event for it,
    only a caught_up at the new head, and their pages refresh the view, options and status at once."""
    desk, phone = contexts
    console = Console()
    created = _create(server, "asc", "frigate-screen")
    game, seats = created["game_id"], created["seats"]

    def post(side: str, cmd: dict) -> int:  # set-up over HTTP: the pages under test only watch
        r = httpx.post(
            f"{server.url}/v1/games/{game}/commands",
            json={"command": cmd},
            timeout=30,
            headers={"Authorization": f"Bearer {seats[side]}"},
        )
        assert r.status_code == 201, r.text
        return r.json()["version"]

    adv, dis = "advantaged", "disadvantaged"
    post(dis, {"type": "asc.commit_sensors", "side": dis, "vessels": [{"vessel": "sms-kaiser", "active": True}]})
    post(adv, {"type": "asc.commit_sensors", "side": adv})
    for side in (adv, dis):
        post(side, {"type": "asc.end_phase", "side": side})
    post(dis, {"type": "asc.move", "vessel": "sms-kaiser", "path": ["F", "F", "F"]})
    post(dis, {"type": "asc.end_phase", "side": dis})
    post(adv, {"type": "asc.move", "vessel": "fs-aurore", "path": ["F"] * 5})
    before = post(adv, {"type": "asc.end_phase", "side": adv})  # the fire phase
    pages = [
        _open(console, desk, server, created, dis, seats[dis], touch=False),
        _open(console, phone, server, created, "spectator", None, touch=True),
    ]
    for p in pages:
        p.sync(before)
        p.page.evaluate("() => { window.notReloaded = true; }")
    declared = post(adv, {"type": "asc.fire", "vessel": "fs-aurore", "weapon": "las-fwd", "target": "sms-kaiser"})
    for p in pages:
        p.sync(declared)  # no event reached it, yet it is at the new head
        assert p.page.evaluate("() => window.notReloaded === true")
        assert not p.page.evaluate(EVENT_JS, "asc.fire_declared")  # the declaration itself stays sealed
        p.page.wait_for_selector(f"#timeline .seq:has-text('seq {declared} / {declared}')", state="attached")
    # the cruiser's status box, "why" included, is the server's at the new version, not the one before it
    r = httpx.get(f"{server.url}/v1/games/{game}", headers={"Authorization": f"Bearer {seats[dis]}"}, timeout=30)
    assert r.json()["version"] == declared
    why = r.json()["state"]["draw"]["status"]["you"]["why"]
    assert why.lower().replace("your move: ", "") in pages[0].page.inner_text("#turn-status").lower(), why
    options = httpx.get(
        f"{server.url}/v1/games/{game}/options", headers={"Authorization": f"Bearer {seats[dis]}"}, timeout=30
    ).json()
    labels = pages[0].page.evaluate("() => salvo.labelled.map((o) => o.label)")
    assert labels == [o["label"] for o in options["options"]], labels
    assert console.unexpected() == [], console.unexpected()


@pytest.mark.parametrize("board", ["plane", "hex"])
def test_skirmish_contract_through_the_page(browser, server, contexts, board):
    console, created, red, blue, spec = _two_seats_and_spectator(
        server, contexts, "skirmish", board, "red", "blue", spectator_on_phone=True
    )
    spec_seat = spec.seat
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
    assert page.get_attribute("#viewer", "data-viewer") == "seat:blue"
    assert token_free_query(page.url) and page.url.endswith(f"#token={created['seats']['blue']}"), page.url
    assert sent and all("token" not in u for u in sent), [u for u in sent if "token" in u]  # no request named it
    old = console.watch(desk.new_page(), "red (old link)")
    old.goto(f"{server.url}/?game={created['game_id']}&token={created['seats']['red']}")
    old.wait_for_selector("#conn[data-state=live]")
    assert old.get_attribute("#viewer", "data-viewer") == "seat:red"
    assert token_free_query(old.url) and old.url.endswith(f"#token={created['seats']['red']}"), old.url
    # rewritten in place: no more history entries than a page opened from a fragment link
    assert old.evaluate("() => history.length") == page.evaluate("() => history.length")
    assert console.unexpected() == [], console.unexpected()


def test_lobby_hands_a_seat_to_the_computer(browser, server, contexts):
    """Issue 12's lobby choice: "Computer" on a seat's row seats the rules-aware bot there."""
    desk, _ = contexts
    console = Console()
    page = console.watch(desk.new_page(), "lobby")
    create_in_lobby(page, server.url, "gsc2", "duel")
    game = page.inner_text("#created h3").split()[1]
    page.click("#created button.bot[data-seat='blue']")
    page.wait_for_selector("#created button.bot[data-seat='blue']:has-text('Computer plays')")
    bots = httpx.get(f"{server.url}/v1/games/{game}/bots", timeout=30).json()["bots"]
    assert [b.get("seat") for b in bots] == ["blue"], bots
    assert console.unexpected() == [], console.unexpected()
