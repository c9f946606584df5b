"""Starfinder's hex view drawn by hexmap.js from a made-up view, each drawn detail checked (the crew-seat
play-through is tests/web/test_play_starfinder.py).

Skips when Playwright or Chromium is missing, unless SALVO_REQUIRE_BROWSER=1 (then it fails), exactly as
tests/web/test_browser.py.
"""

from __future__ import annotations

from tests.web.support import evaluate_in_fresh_page

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


# The crew-seat play-through is tests/web/test_play_starfinder.py (every role acts, moves tapped on the map).


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
    got, console = evaluate_in_fresh_page(
        browser,
        server.url,
        "hexmap",
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
