"""Games played through the page with the keyboard alone (issue 16: "every action reachable by keyboard,
map pieces and controls labelled"): Tab / Shift+Tab to move, Enter or Space to press, arrow keys on the
map's drag handle and in selects; no mouse, no click, no JSON box.

At every focus stop on the way the focused element must have an accessible name (aria-label, a label,
its text) and a visible focus mark (an outline on a control; the yellow ring, dot or knob on a map
element). After a key that re-renders the page (a leg added, a piece selected, an order sent) focus
must stay on the same control, or on its stand-in when that control is gone: a keyboard user is never
thrown back to the top of the page.

- GSC2 duel, one whole turn and into the next: the start, the move order, each ship's free-distance
  move composed in the legs editor (a typed distance, a turn chosen with the arrow keys, the drag
  handle on the map nudged with the arrow keys), a shot at the enemy chosen on the map.
- ASC frigate-screen: both sides' sealed sensor commits, the cruiser's active sensors set by keyboard.
"""

from __future__ import annotations

import httpx

from tests.web.driver import VERSION_JS, Seat
from tests.web.support import ARTIFACTS, Console, page_url

# What has focus, whether it has a name and a visible focus mark, and whether it matches `sel`.
FOCUS_JS = """(sel) => {
  const a = document.activeElement;
  if (!a || a === document.body) return null;
  const name = (a.getAttribute('aria-label') || (a.labels && a.labels.length ? a.labels[0].textContent : '')
    || a.textContent || a.getAttribute('title') || '').trim();
  let visible;
  if (a instanceof SVGElement) {  // map elements: the yellow focus ring (board.js; the old renderers' halo)
    const mark = a.querySelector(':scope > .ring, :scope > .dot, :scope > .knob, :scope > .halo');
    visible = !!mark && getComputedStyle(mark).stroke === 'rgb(255, 211, 61)';
  } else {
    const cs = getComputedStyle(a);
    visible = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0;
  }
  return { name, visible, matches: !!sel && a.matches(sel), html: a.outerHTML.slice(0, 200) };
}"""


class Keys:
    """One seat's page, driven by the keyboard alone."""

    def __init__(self, seat: Seat) -> None:
        self.seat = seat
        self.page = seat.page
        self.stops = 0  # focus stops checked (name and focus mark)

    def focused(self, sel: str | None = None) -> dict | None:
        return self.page.evaluate(FOCUS_JS, sel)

    def check(self, sel: str | None = None) -> dict:
        f = self.focused(sel)
        assert f is not None, f"{self.seat.name}: focus lost (on the page body)"
        assert f["name"], f"{self.seat.name}: a focused element has no accessible name: {f['html']}"
        assert f["visible"], f"{self.seat.name}: no visible focus mark on {f['html']}"
        self.stops += 1
        return f

    def tab_to(self, sel: str, back: bool = False, limit: int = 150) -> None:
        """Tab (or Shift+Tab) until the focused element matches ``sel``, checking every stop on the way."""
        self.page.bring_to_front()  # :focus only matches in the page that has the window's focus
        f = self.focused(sel)
        if f and f["matches"]:
            self.check(sel)
            return
        seen = []
        for _ in range(limit):
            self.page.keyboard.press("Shift+Tab" if back else "Tab")
            f = self.focused(sel)
            if f is None and seen and seen[-1] != "(out of the page)":  # past the last control: round again
                seen.append("(out of the page)")
                continue
            f = self.check(sel)
            if f["matches"]:
                return
            seen.append(f["name"][:40])
        raise AssertionError(f"{self.seat.name}: {limit} tabs and no {sel}; went through {seen}")

    def is_on(self, sel: str) -> bool:
        f = self.focused(sel)
        return bool(f and f["matches"])

    def stays_on(self, sel: str) -> None:
        """After a re-render focus is on ``sel`` (the same control, or its stand-in)."""
        try:
            self.page.wait_for_function(
                "(s) => document.activeElement && document.activeElement.matches(s)", arg=sel, polling=50, timeout=3000
            )
        except Exception:
            f = self.focused(sel)
            raise AssertionError(f"{self.seat.name}: focus left {sel}: now on {f and f['html']}") from None
        self.check(sel)

    def press(self, key: str, what: str) -> int:
        """A key that sends a command: wait for the next version (or the rejection)."""
        before = self.seat.version()
        self.page.keyboard.press(key)
        self.page.wait_for_function(
            f"() => ({VERSION_JS})() > {before} || !document.querySelector('#rejection').hidden", polling=50
        )
        assert self.page.is_hidden("#rejection"), f"{self.seat.name}: {what}: {self.page.inner_text('#rejection')}"
        self.seat.actions.append(what)
        return self.seat.version()


def _create(server, ruleset: str, scenario: str) -> dict:
    r = httpx.post(server.url + "/v1/games", json={"ruleset": ruleset, "scenario": scenario, "options": {}}, timeout=30)
    assert r.status_code == 201, r.text
    return r.json()


def _open(console: Console, ctx, server, created: dict, seat: str, token: str | None = None) -> Keys:
    """``seat``'s page (or, given its token, the umpire's), live."""
    page = console.watch(ctx.new_page(), seat)
    page.goto(page_url(server.url, created["game_id"], token or created["seats"][seat]))
    page.wait_for_selector("#conn[data-state=live]")
    page.wait_for_function("() => window.salvo && salvo.live")
    return Keys(Seat(page, seat))


MOVE = "section.form[data-command='gsc2.move']"


def _move(k: Keys, ship: str, turn: bool) -> int:
    """A free-distance move in the legs editor: add a leg, (turn it with the arrow keys,) type a distance,
    nudge the end of the move on the map with the arrow keys, send."""
    page, form = k.page, f"{MOVE}:has(.pc[data-piece='{ship}'])"
    k.tab_to(f"{form} .add-leg")
    page.keyboard.press("Enter")
    page.wait_for_selector(f"{form} .leg[data-i='0']")
    k.stays_on(f"{form} .add-leg")  # the pane was rebuilt: focus is on the new "Add a leg"
    if turn:
        k.tab_to(f"{form} .leg[data-i='0'] .leg-turn", back=True)
        page.keyboard.press("ArrowDown")  # straight on -> 45° right
        page.wait_for_selector(f"{form} .leg[data-i='0'] .leg-turn option[value='45']:checked", state="attached")
        k.stays_on(f"{form} .leg[data-i='0'] .leg-turn")
    dist = f"{form} .leg[data-i='0'] .leg-distance"
    k.tab_to(dist, back=not turn)
    left = float(page.get_attribute(f"{form} .leg[data-i='0'] .leg-slider", "max"))
    typed = round(left * 0.4, 1)  # a paid turn (GSC2-MOV-3) may cost half the move
    page.keyboard.press("Control+A")
    page.keyboard.type(str(typed))
    page.keyboard.press("Enter")  # commits the number (a change event), as a blur would
    page.wait_for_selector(f"#board .plan-mark text:has-text('{typed:g}\"')", state="attached")  # the ruler
    k.stays_on(dist)
    # the end of the move on the map: a slider, nudged with the arrow keys
    k.tab_to("#board .handle", back=True)
    page.keyboard.press("ArrowDown")
    page.wait_for_function(
        "([s, v]) => Math.abs(Number(document.querySelector(s).value) - v) < 1e-6",
        arg=[dist, round(typed - 0.5, 1)],
        polling=50,
    )
    k.stays_on("#board .handle")
    assert page.query_selector(f"{form} .ruler-text.bad") is None, page.inner_text(f"{form} .ruler-text")
    k.tab_to(f"{form} .send-form")
    return k.press("Enter", f'move {ship} {typed - 0.5:g}"')


def _fire(k: Keys, ship: str, enemy: str) -> int:
    """Our ship selected on the map by keyboard, then the enemy, then a shot from the tray."""
    page = k.page
    own = f"#board .piece[data-id='{ship}']"
    if not page.query_selector(f"{own}.selected"):
        k.tab_to(own)
        page.keyboard.press("Enter")
        page.wait_for_selector(f"{own}.selected", state="attached")
        k.stays_on(own)
    k.tab_to(f"#board .piece.target[data-id='{enemy}']")
    page.keyboard.press("Enter")
    page.wait_for_selector("#tray:not([hidden]) .tray-act")
    k.stays_on("#tray .tray-act")  # the tray opened: its first choice has the focus
    shot = k.press("Space", f"fire at {enemy}")
    k.stays_on("#board .piece.selected")  # the tray is gone: back on our ship
    return shot


def _option(k: Keys, types: tuple[str, ...]) -> int:
    have = k.page.eval_on_selector_all("#commands button.opt", "els => els.map((e) => e.dataset.type)")
    t = next((t for t in types if t in have), None)
    assert t, f"{k.seat.name}: none of {types} among {have}"
    k.tab_to(f"#commands button.opt[data-type='{t}']")
    return k.press("Enter", t)


def test_gsc2_duel_turn_by_keyboard_alone(browser, server, desk):
    console = Console()
    created = _create(server, "gsc2", "duel")
    seats = {s: _open(console, desk, server, created, s) for s in ("red", "blue")}
    ships = {"red": ("hood", "bismarck"), "blue": ("bismarck", "hood")}
    moved: list[str] = []
    fired: list[str] = []
    latest = 0
    for _ in range(40):
        for k in seats.values():
            k.seat.sync(latest)
        st = seats["red"].seat.state()
        if st["turn"] >= 2 and len(moved) >= 2 and fired:
            break
        k = next((k for k in seats.values() if (s := k.seat.state())["options"] or s["forms"]), None)
        assert k is not None, f"a stall at v{latest}"
        ship, enemy = ships[k.seat.name]
        if k.seat.has(f"{MOVE}:has(.pc[data-piece='{ship}'])"):
            latest = _move(k, ship, turn=not moved)
            moved.append(ship)
        elif (
            k.seat.has(f"#commands button.opt[data-type='gsc2.fire'][data-target='{enemy}']")
            and (k.seat.name, st["turn"]) not in fired
        ):
            fired.append((k.seat.name, st["turn"]))
            latest = _fire(k, ship, enemy)
        else:
            latest = _option(k, ("gsc2.start", "gsc2.choose_order", "gsc2.pass", "gsc2.end_phase"))
    else:
        raise AssertionError(f"no whole turn with moves and a shot: {[k.seat.actions for k in seats.values()]}")
    print({n: k.seat.actions for n, k in seats.items()}, "focus stops checked:", sum(k.stops for k in seats.values()))
    events = seats["red"].page.evaluate("() => salvo.events.map((e) => e.type)")
    assert events.count("gsc2.ship_moved") >= 2 and "gsc2.beam_fired" in events, events
    ARTIFACTS.mkdir(exist_ok=True)
    seats["red"].page.screenshot(path=str(ARTIFACTS / "keyboard-gsc2-red-1440x900.png"))
    assert console.unexpected() == [], console.unexpected()


def test_asc_sensor_commit_by_keyboard_alone(browser, server, desk):
    console = Console()
    created = _create(server, "asc", "frigate-screen")
    form = "section.form[data-command='asc.commit_sensors']"
    dis = _open(console, desk, server, created, "disadvantaged")
    adv = _open(console, desk, server, created, "advantaged")
    active = f"{form} .pc[data-piece='sms-kaiser'] select[data-key='active']"
    dis.tab_to(active)
    dis.page.keyboard.press("ArrowDown")  # the cruiser's active sensors on
    dis.page.wait_for_function("(s) => document.querySelector(s).value === '1'", arg=active, polling=50)
    dis.stays_on(active)
    dis.tab_to(f"{form} .send-form")
    v = dis.press("Enter", "commit sensors")
    adv.seat.sync(v)
    adv.tab_to(f"{form} .send-form")
    v = adv.press("Space", "commit sensors")
    dis.seat.sync(v)
    adv.seat.sync(v)
    assert adv.seat.state()["phase"] == "detection"  # both sealed commits in: revealed, the turn goes on
    revealed = adv.page.evaluate(
        "() => salvo.events.filter((e) => e.type === 'asc.sensors_revealed').flatMap((e) => e.data.entries)"
    )
    assert any(e["vessel"] == "sms-kaiser" and e["active"] for e in revealed), revealed  # as set by keyboard
    # the cruiser radiates, so the frigates see it by name at once (ASC-DET-2), on the map and to a screen reader
    kaiser = adv.page.get_attribute("#board .piece[data-id='sms-kaiser']", "aria-label")
    assert "SMS Kaiser Wilhelm" in kaiser and "active sensors on" in kaiser, kaiser
    assert console.unexpected() == [], console.unexpected()


DIRS = ((0, -1), (1, -1), (1, 0), (0, 1), (-1, 1), (-1, 0))  # axial step through hexside k (0 = N)


def test_starfinder_pilot_moves_hex_by_hex_by_keyboard_alone(browser, server, desk):
    """The pilot picks its ship from the Move form ("Map"), then adds the two hexes ahead on the map with
    Enter (focus staying among the hexes to add as the path grows), and sends the Move (SF-MOV-1)."""
    console = Console()
    created = _create(server, "starfinder", "duel")
    gid = created["game_id"]
    r = httpx.post(
        f"{server.url}/v1/games/{gid}/commands",
        json={"command": {"type": "starfinder.force_phase"}},
        headers={"Authorization": f"Bearer {created['umpire_token']}"},
        timeout=30,
    )  # set-up: the helm phase
    assert r.status_code == 201, r.text
    acting = httpx.get(f"{server.url}/v1/games/{gid}", timeout=30).json()["state"]["acting_ship"]
    pilot = _open(console, desk, server, created, f"{acting}/pilot")
    form = "section.form[data-command='starfinder.move']"
    move_form = "salvo.forms.find((f) => f.command === 'starfinder.move')"
    lim = pilot.page.evaluate(f"() => {move_form}.pieces[0].fields[0].limits")
    (q, r0), (dq, dr) = lim["start"], DIRS[lim["facing"]]
    pilot.tab_to(f"{form} .pc button.show")
    pilot.page.keyboard.press("Enter")
    pilot.page.wait_for_selector("#board .cell", state="attached")
    pilot.stays_on(f"{form} .pc button.show")
    ahead = [[q + n * dq, r0 + n * dr] for n in (1, 2)]
    for hx in ahead:
        pilot.tab_to(f"#board .cell[aria-label^='Add hex {hx[0]}, {hx[1]} ']", back=True)
        pilot.page.keyboard.press("Enter")
        pilot.page.wait_for_selector(f"{form} .path-text:has-text('{hx[0]},{hx[1]} ·')")
        pilot.stays_on("#board .cell")  # the hex is in the path: focus on one of the next hexes to add
    composed = pilot.page.evaluate(f"() => salvo.drafts.compose({move_form})")
    assert composed.get("hexes") == ahead, composed
    pilot.tab_to(f"{form} .send-form")
    pilot.press("Enter", "move")
    assert pilot.page.evaluate("() => salvo.events.some((e) => e.type === 'starfinder.ship_moved')")
    assert console.unexpected() == [], console.unexpected()
