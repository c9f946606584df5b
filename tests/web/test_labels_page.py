"""panel.js alone in a real browser: the Starfinder ship sheet for a made-up damaged ship (crew names and
roles, critical conditions, effects). Same skip/require semantics as tests/web/test_browser.py."""

from __future__ import annotations

from tests.web.support import ARTIFACTS, Console

SHEET = {
    "id": "a",
    "name": "Alpha",
    "side": "pact",
    "tier": 2,
    "size": "Small",
    "speed": 10,
    "maneuverability": "perfect",
    "hp": 40,
    "pcu": 90,
    "armor": 2,
    "countermeasures": 1,
    "shields": {"forward": 10, "starboard": 10, "aft": 10, "port": 10},
    "weapons": [
        {"id": "laser", "name": "light laser cannon", "arc": "port", "damage": "2d4", "range": "short"},
        {"id": "torp", "arc": "forward", "damage": "5d8", "range": "long", "kind": "tracking", "speed": 14},
    ],
    "crew": [
        {"id": "cap", "name": "Rell", "role": "captain", "diplomacy": 5},
        {"id": "gun", "name": "Tosk", "role": "gunner", "gunnery": 6},
    ],
}
VIEW = {
    "ruleset": "starfinder",
    "round": 2,
    "phase": "gunnery",
    "sides": ["pact", "corsairs"],
    "map": {"kind": "hex", "facings": ["N", "NE", "SE", "S", "SW", "NW"]},
    "acting_ship": "a",
    "awaiting": ["a/gun"],
    "ships": [
        {
            "id": "a",
            "name": "Alpha",
            "side": "pact",
            "hex": [0, 0],
            "facing": 1,
            "status": "active",
            "hull": 22,
            "max_hull": 40,
            "shields": {"forward": 12, "starboard": 0, "aft": 8, "port": 10},
            "max_shields": 40,
            "speed": 12,
            "ac": 15,
            "tl": 14,
            "dt": 0,
            "critical_threshold": 8,
            "battle_stations": True,
            "critical_damage": {"sensors": {"condition": "malfunctioning", "patched": 1, "counts_as": "glitching"}},
            "effects": {
                "defence": 0,
                "barrel_roll": False,
                "speed_bonus": 2,
                "flyby": None,
                "lock_on": ["b"],
                "countermeasures": [],
            },
            "fired": ["laser"],
            "arc_picks": {},
            "crew": [
                {"seat": "a/cap", "name": "Rell", "role": "captain", "next_role": None, "acted": True, "bonus": 0},
                {
                    "seat": "a/gun",
                    "name": "Tosk",
                    "role": "gunner",
                    "next_role": "science_officer",
                    "acted": False,
                    "bonus": 2,
                },
            ],
            "data_sheet": SHEET,
        },
        {
            "id": "b",
            "name": "Ashen Wake",
            "side": "corsairs",
            "hex": [2, -2],
            "facing": 4,
            "status": "active",
            "hull": 30,
            "max_hull": 30,
            "shields": {},
            "max_shields": 0,
            "crew": [],
            "data_sheet": {"weapons": []},
        },
    ],
}


def test_the_starfinder_ship_sheet(browser, server):
    ARTIFACTS.mkdir(exist_ok=True)
    console = Console()
    ctx = browser.new_context(viewport={"width": 420, "height": 1400})
    try:
        page = console.watch(ctx.new_page(), "labels")
        page.goto(server.url + "/")
        got = page.evaluate(
            """async ([view]) => {
            const p = await import('/static/panel.js');
            const root = document.createElement('section');
            root.id = 'sheet-under-test';
            document.body.replaceChildren(root);
            p.renderPanel(root, view, view.ships[0], [], () => {}, { viewer: 'seat:a/gun' });
            return {
                text: root.innerText,
                crew: [...root.querySelectorAll('table.sf-crew tr[data-seat]')]
                    .map((r) => [r.dataset.seat, r.className]),
                systems: [...root.querySelectorAll('table.sf-systems tr[data-system]')].map((r) => r.innerText),
                weapons: [...root.querySelectorAll('table.sf-weapons tr[data-weapon]')].map((r) => r.innerText),
            };
        }""",
            [VIEW],
        )
        page.screenshot(path=str(ARTIFACTS / "starfinder-sheet-420.png"), full_page=True)
    finally:
        ctx.close()
    text = got["text"]
    for bit in (
        "Alpha",
        "Rell",
        "Tosk (you)",
        "Captain",
        "Gunner",
        "Diplomacy +5",
        "Gunnery +6",
        "+2 encouraged",
        "science officer next round",
        "Shields 30 / 40",
        "Perfect",
        "12 hexes (sheet 10)",
        "locked on Ashen Wake",
    ):
        assert bit in text, (bit, text)
    assert "[object Object]" not in text
    assert got["crew"] == [["a/cap", ""], ["a/gun", "mine"]]
    assert len(got["systems"]) == 1 and "Sensors" in got["systems"][0] and "malfunctioning" in got["systems"][0]
    assert "fired" in got["weapons"][0] and "tracking, speed 14" in got["weapons"][1]
    assert console.unexpected() == []
