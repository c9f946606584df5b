"""The web client plays Starfinder in a real browser (Playwright + system Chromium) against the real server.

Create a Starfinder duel in the lobby, open a crew seat's link, see the hex map with both ships (facings,
shield quadrants, hull bars, the seat's ship's weapon arcs) and the seat's option buttons, send an action;
then the umpire closes engineering and the pilot whose ship moves first clicks a highlighted destination hex
on a phone. Screenshots go to test-artifacts/ at 1440×900 and 390×844. A second test renders a made-up
Starfinder view with hexmap.js alone and checks each drawn detail.

Skips when Playwright or Chromium is missing, unless SALVO_REQUIRE_BROWSER=1 (then it fails), exactly as
tests/web/test_browser.py.
"""

from __future__ import annotations

import time

import httpx
import pytest

from tests.api.starfinder_play import path_end
from tests.web.support import ARTIFACTS, DESKTOP, PHONE, Console

DUEL_SEATS = {
    "sunrise/captain",
    "sunrise/pilot",
    "sunrise/engineer",
    "sunrise/gunner",
    "sunrise/science",
    "ashen/captain",
    "ashen/pilot",
    "ashen/engineer",
    "ashen/gunner",
    "ashen/gunner-2",
}


def _ships(page) -> dict[str, dict[str, str]]:
    return {g["id"]: g for g in page.eval_on_selector_all("#board g.ship", "els => els.map(e => ({...e.dataset}))")}


@pytest.mark.xfail(reason="written against the pre-contract renderer (selectors g.ship, canned move buttons); "
                          "the ruleset now has a drawing and is drawn by board.js: to be ported", strict=False)
def test_create_a_duel_and_play_a_crew_seat(browser, server):
    ARTIFACTS.mkdir(exist_ok=True)
    console = Console()
    started = time.monotonic()
    desk = phone = None
    try:
        desk = browser.new_context(viewport=DESKTOP)
        phone = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True, device_scale_factor=2)

        lobby = console.watch(desk.new_page(), "lobby")
        lobby.goto(server.url + "/")
        lobby.wait_for_function("() => document.querySelector('#scenario')?.value === 'duel'")
        lobby.select_option("#ruleset", "starfinder")
        lobby.wait_for_function(
            "() => [...document.querySelectorAll('#scenario option')].map(o => o.value).join() === 'duel,skirmish'"
        )
        assert lobby.input_value("#scenario") == "duel"
        lobby.click("#create")
        lobby.wait_for_selector("#created .links")
        links = {
            row.get_attribute("data-role"): row.query_selector("input").input_value()
            for row in lobby.query_selector_all("#created .link-row")
        }
        assert set(links) == {f"seat:{s}" for s in DUEL_SEATS} | {"umpire", "spectator"}
        game_id = links["spectator"].split("game=")[1].split("&")[0]
        umpire_token = links["umpire"].split("token=")[1]

        # the engineer of the Sunrise Maiden: the map, both ships, its own ship's arcs, its options
        eng = console.watch(desk.new_page(), "sunrise/engineer")
        eng.goto(links["seat:sunrise/engineer"])
        eng.wait_for_selector("#conn[data-state=live]")
        eng.wait_for_selector("#board[data-ruleset=starfinder] g.ship[data-id=ashen]")
        ships = _ships(eng)
        assert set(ships) == {"sunrise", "ashen"}
        assert (ships["sunrise"]["q"], ships["sunrise"]["r"], ships["sunrise"]["facing"]) == ("0", "4", "0")
        assert (ships["ashen"]["q"], ships["ashen"]["r"], ships["ashen"]["facing"]) == ("0", "-4", "3")
        assert ships["sunrise"]["side"] == "pact" and ships["ashen"]["side"] == "corsairs"
        colours = eng.eval_on_selector_all("#board g.ship path.hull", "els => els.map(e => e.getAttribute('fill'))")
        assert len(set(colours)) == 2  # one colour per side
        quadrants = eng.eval_on_selector_all(
            "#board g.ship[data-id=sunrise] path.shield", "els => els.map(e => [e.dataset.quadrant, +e.dataset.points])"
        )
        assert sorted(quadrants) == [["aft", 10], ["forward", 10], ["port", 10], ["starboard", 10]]
        assert eng.query_selector("#board g.ship[data-id=ashen] .hullbar rect.fill[data-hull='30']") is not None
        arcs = eng.eval_on_selector_all(
            "#board .arcs[data-ship=sunrise] [data-weapon]", "els => els.map(e => [e.dataset.weapon, e.dataset.arc])"
        )
        assert sorted(arcs) == [["coilgun", "turret"], ["laser", "forward"], ["missiles", "forward"]]
        assert eng.query_selector("#board .hex") is not None
        offered = eng.eval_on_selector_all("#commands button.cmd", "els => els.map(e => JSON.parse(e.dataset.cmd))")
        assert offered and {c["seat"] for c in offered} == {"sunrise/engineer"}
        assert {"starfinder.divert", "starfinder.pass"} <= {c["type"] for c in offered}
        # readable, grouped buttons (not "divert — seat: ...")
        labels = eng.eval_on_selector_all("#commands button.cmd", "els => els.map(e => e.textContent)")
        assert "Divert power to the engines (+2 speed)" in labels
        assert any(t.startswith("Divert power to the shields (+") for t in labels)
        assert not any("seat:" in t or "[object" in t for t in labels), labels
        groups = eng.eval_on_selector_all("#commands .cmd-group", "els => els.map(e => e.dataset.group)")
        assert "Engineering" in groups and "Phase" in groups
        assert eng.inner_text("#to-act") == "Your move"  # from the view's `awaiting`
        assert "Done this phase" not in eng.inner_text("#status-line")  # Starfinder views have no `done`
        eng.screenshot(path=str(ARTIFACTS / "starfinder-engineer-1440x900.png"))

        # the Ship tab shows the seat's own ship by default: crew by name and role, shields, weapons, systems
        eng.click("#tab-ship")
        eng.wait_for_selector("#pane-ship h3.sf-ship[data-ship=sunrise]")
        sheet = eng.inner_text("#pane-ship")
        for name in ("Keskodai", "Navasi", "Iseph (you)", "Obozaya", "Quig"):
            assert name in sheet, sheet
        assert "Science officer" in sheet and "[object Object]" not in sheet
        crew = eng.eval_on_selector_all("#pane-ship table.sf-crew tr[data-seat]", "els => els.map(e => e.dataset.seat)")
        assert crew == ["sunrise/captain", "sunrise/pilot", "sunrise/engineer", "sunrise/gunner", "sunrise/science"]
        assert sorted(
            eng.eval_on_selector_all(
                "#pane-ship .sf-shields [data-quadrant]", "els => els.map(e => [e.dataset.quadrant, +e.dataset.points])"
            )
        ) == [["aft", 10], ["forward", 10], ["port", 10], ["starboard", 10]]
        assert "light laser cannon" in eng.inner_text("#pane-ship table.sf-weapons tr[data-weapon=laser]")
        assert "Turret" in eng.inner_text("#pane-ship table.sf-weapons tr[data-weapon=coilgun]")
        assert "All systems nominal" in sheet and "Manoeuvrability" in sheet and "Good" in sheet
        eng.screenshot(path=str(ARTIFACTS / "starfinder-engineer-ship-1440x900.png"))
        eng.click("#pane-ship .piece-list button[data-id=ashen]")  # the enemy's sheet, its crew too
        eng.wait_for_selector("#pane-ship h3.sf-ship[data-ship=ashen]")
        assert "Kell" in eng.inner_text("#pane-ship table.sf-crew")
        eng.click("#pane-ship .piece-list button[data-id=sunrise]")
        eng.click("#tab-orders")

        # one action: divert power to the engines
        eng.click("#commands button.cmd[data-type='starfinder.divert'][data-cmd*='engines']")
        eng.wait_for_selector("#flash:has-text('✓')")
        eng.wait_for_selector("#log li[data-type='starfinder.engineering_declared']", state="attached")
        assert eng.query_selector("#commands button.cmd[data-type='starfinder.divert']") is None  # acted this round

        # the umpire closes engineering; the pilot of the ship first in the helm order moves on a phone
        with httpx.Client(base_url=server.url, timeout=10) as http:
            r = http.post(
                f"/v1/games/{game_id}/commands",
                json={"command": {"type": "starfinder.force_phase"}},
                headers={"Authorization": f"Bearer {umpire_token}"},
            )
            assert r.status_code == 201, r.text
            state = http.get(f"/v1/games/{game_id}").json()["state"]
            assert state["phase"] == "helm"
            acting = state["acting_ship"]
            token = links[f"seat:{acting}/pilot"].split("token=")[1]
            offered = http.get(f"/v1/games/{game_id}/options", headers={"Authorization": f"Bearer {token}"}).json()
            moves = [o["command"] for o in offered["options"]]
        ship = next(s for s in state["ships"] if s["id"] == acting)
        plain = {}  # destination -> the plain moves that reach it (a plain move has no check: it lands there)
        for c in moves:
            if c["type"] == "starfinder.move" and c["path"].count("F"):
                plain.setdefault(path_end(ship["hex"], ship["facing"], c["path"])[0], []).append(c)
        assert plain
        (q, r), _ = max(plain.items(), key=lambda kv: (len(kv[1][0]["path"]), kv[0]))

        pilot = console.watch(phone.new_page(), f"{acting}/pilot")
        pilot.goto(links[f"seat:{acting}/pilot"])
        pilot.wait_for_selector("#conn[data-state=live]")
        pilot.wait_for_selector(f"#board polygon.hex.move-target[data-q='{q}'][data-r='{r}']")
        assert len(pilot.query_selector_all("#board polygon.hex.move-target")) >= 5
        assert pilot.query_selector_all("#board .destinations path.dest-facing")
        assert pilot.query_selector(f"#board .arcs[data-ship={acting}]") is not None
        assert pilot.query_selector("#commands button.cmd[data-type='starfinder.move']") is not None
        assert pilot.inner_text("#to-act") == "Your move"
        helm = pilot.eval_on_selector_all(
            "#commands .cmd-group[data-group^=Helm] button.cmd", "els => els.map(e => e.textContent)"
        )
        assert "Move: hold position" in helm and any(t.startswith("Move: ahead ") for t in helm), helm
        assert any(t.startswith("Turn in place to face ") for t in helm) and any(
            t.startswith("Slide 1 hex to ") for t in helm
        )
        pilot.screenshot(path=str(ARTIFACTS / "starfinder-pilot-390x844.png"))
        pilot.click(f"#board polygon.hex.move-target[data-q='{q}'][data-r='{r}']")
        if pilot.query_selector("#chooser:not([hidden])"):  # several ways there: pick one
            pilot.click("#chooser button.cmd[data-type='starfinder.move']")
        pilot.wait_for_selector(f"#board g.ship[data-id={acting}][data-q='{q}'][data-r='{r}']")
        pilot.wait_for_selector("#log li[data-type='starfinder.ship_moved']", state="attached")
        eng.wait_for_selector(f"#board g.ship[data-id={acting}][data-q='{q}'][data-r='{r}']")  # live elsewhere too
        pilot.screenshot(path=str(ARTIFACTS / "starfinder-pilot-moved-390x844.png"), full_page=True)
        eng.screenshot(path=str(ARTIFACTS / "starfinder-engineer-moved-1440x900.png"))
    finally:
        for ctx in (desk, phone):
            if ctx is not None:
                ctx.close()
    assert console.unexpected() == [], console.unexpected()
    assert time.monotonic() - started < 60


def test_hexmap_draws_a_starfinder_view(browser, server):
    """hexmap.js alone: shields and hull, disabled ships, barrel-rolled arcs, projectiles, destinations reached
    by several helm options (a chooser), and an enemy the gunner may fire at (a chooser of weapons)."""
    sheet = {
        "shields": {"forward": 10, "starboard": 10, "aft": 10, "port": 10},
        "weapons": [
            {"id": "laser", "arc": "forward", "damage": "2d4", "range": "short"},
            {"id": "gyro", "arc": "port", "damage": "1d8", "range": "short"},
            {"id": "coil", "arc": "turret", "damage": "4d4", "range": "long"},
        ],
    }
    view = {
        "ruleset": "starfinder",
        "round": 2,
        "phase": "helm",
        "sides": ["pact", "corsairs"],
        "map": {"kind": "hex"},
        "ships": [
            {
                "id": "a",
                "name": "Alpha",
                "side": "pact",
                "hex": [0, 0],
                "facing": 1,
                "status": "active",
                "hull": 20,
                "max_hull": 35,
                "shields": {"forward": 10, "starboard": 0, "aft": 5, "port": 10},
                "max_shields": 40,
                "data_sheet": sheet,
                "fired": ["laser"],
                "effects": {"barrel_roll": True},
            },
            {
                "id": "b",
                "name": "Bravo",
                "side": "corsairs",
                "hex": [3, -3],
                "facing": 4,
                "status": "disabled",
                "hull": -2,
                "max_hull": 30,
                "shields": {},
                "max_shields": 0,
                "data_sheet": {"weapons": []},
            },
        ],
        "projectiles": [{"id": "p1", "ship": "a", "weapon": "coil", "target": "b", "hex": [1, -1]}],
    }
    options = [
        {"type": "starfinder.move", "seat": "a/pilot", "path": "FF"},
        {"type": "starfinder.evade", "seat": "a/pilot", "path": "FF"},
        {"type": "starfinder.move", "seat": "a/pilot", "path": "FRF"},
        {"type": "starfinder.slide", "seat": "a/pilot", "hexes": 1, "side": "port"},
        {"type": "starfinder.back_off", "seat": "a/pilot", "hexes": 2},
        {"type": "starfinder.turn_in_place", "seat": "a/pilot", "facing": 3},
        {"type": "starfinder.move", "seat": "a/pilot", "path": ""},
        {"type": "starfinder.fire", "seat": "a/gunner", "weapon": "coil", "target": "b", "arc": "forward"},
        {"type": "starfinder.fire", "seat": "a/gunner", "weapon": "laser", "target": "b"},
    ]
    console = Console()
    ctx = browser.new_context()
    try:
        page = console.watch(ctx.new_page(), "hexmap")
        page.goto(server.url + "/")
        got = page.evaluate(
            """async ([view, options]) => {
            const h = await import('/static/hexmap.js');
            const root = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
            document.body.append(root);
            const sent = [], chosen = [];
            const ctx = { selected: null, options, onSelect() {}, onCommand: (c) => sent.push(c),
                          onChoose: (cmds, title) => chosen.push([title, cmds]), label: (c) => c.type };
            h.renderHex(root, view, ctx);
            const targets = Object.fromEntries([...root.querySelectorAll('.hex.move-target')]
                .map((p) => [`${p.dataset.q},${p.dataset.r}`, +p.dataset.moves]));
            const click = (sel) => root.querySelector(sel).dispatchEvent(new MouseEvent('click', { bubbles: true }));
            click(".hex.move-target[data-q='2'][data-r='-2']");
            click(".hex.move-target[data-q='2'][data-r='-1']");
            click('g.ship.target[data-id=b]');
            return {
                targets, sent, chosen,
                ships: [...root.querySelectorAll('g.ship')]
                    .map((g) => ({ ...g.dataset, cls: g.getAttribute('class') })),
                shields: [...root.querySelectorAll('g.ship[data-id=a] path.shield')]
                    .map((p) => [p.dataset.quadrant, p.getAttribute('class')]),
                rot: root.querySelector('g.ship[data-id=a] > g').getAttribute('transform'),
                arcs: [...root.querySelectorAll('.arcs[data-ship=a] [data-weapon]')]
                    .map((e) => [e.dataset.weapon, e.dataset.arc, e.getAttribute('class'), e.tagName]),
                projectiles: [...root.querySelectorAll('.projectile')]
                    .map((p) => [p.dataset.id, p.dataset.q, p.dataset.r]),
                ticks: root.querySelectorAll('.destinations .dest-facing').length,
                pieces: h.hexPieces(view),
                ends: [3, 4, 5].map((i) => h.helmEnd({ hex: [0, 0], facing: 1 }, options[i])),
            };
        }""",
            [view, options],
        )
    finally:
        ctx.close()
    # facing 1 (NE): FF ends at [2,-2] (move and evade), FRF at [2,-1]; slide to port goes N; back off goes SW
    assert got["targets"] == {"2,-2": 2, "2,-1": 1, "0,-1": 1, "-2,2": 1}
    assert got["ends"] == [{"hex": [0, -1], "facing": 1}, {"hex": [-2, 2], "facing": 1}, None]
    assert got["sent"] == [options[2]]  # one way to [2,-1]: sent at once
    assert got["chosen"][0] == ["Move to 2,-2", options[:2]]  # two ways to [2,-2]: the seat chooses
    assert got["chosen"][1] == ["Fire at Bravo", options[7:9]]  # tap the enemy: choose the weapon
    assert got["ticks"] == 4
    ships = {s["id"]: s for s in got["ships"]}
    assert set(ships) == {"a", "b"}  # the projectile is drawn as a projectile, not a ship
    assert "mine" in ships["a"]["cls"] and "focus" in ships["a"]["cls"]
    assert "disabled" in ships["b"]["cls"] and "target" in ships["b"]["cls"] and ships["b"]["status"] == "disabled"
    assert got["rot"] == "rotate(60)"
    assert sorted(got["shields"]) == [
        ["aft", "shield"],
        ["forward", "shield"],
        ["port", "shield"],
        ["starboard", "shield down"],
    ]
    # the barrel roll swaps port and starboard; the fired laser is dashed; the turret is a circle
    assert sorted(got["arcs"]) == [
        ["coil", "turret", "arc", "circle"],
        ["gyro", "starboard", "arc", "path"],
        ["laser", "forward", "arc used", "path"],
    ]
    assert got["projectiles"] == [["p1", "1", "-1"]]
    assert got["pieces"] == [
        {"id": "a", "name": "Alpha", "side": "pact", "status": ""},
        {"id": "b", "name": "Bravo", "side": "corsairs", "status": "disabled"},
    ]
    assert console.unexpected() == []
