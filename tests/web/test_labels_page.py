"""commands.js and panel.js alone in a real browser: readable labels and groups for Starfinder and campaign
commands, and the Starfinder ship sheet for a made-up damaged ship (crew names and roles, critical conditions,
effects). Same skip/require semantics as tests/web/test_browser.py."""

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
SF = [
    (
        {"type": "starfinder.fire", "seat": "a/gun", "weapon": "laser", "target": "b", "arc": "port"},
        "Fire light laser cannon at Ashen Wake (port arc)",
        "Gunnery",
    ),
    (
        {"type": "starfinder.fire", "seat": "a/gun", "weapon": "torp", "target": "b", "quadrant": "aft", "flyby": True},
        "Fire torp at Ashen Wake (at its aft shields, on the flyby)",
        "Gunnery",
    ),
    ({"type": "starfinder.encourage", "seat": "a/cap", "crew": "a/gun"}, "Encourage Tosk (gunner)", "Captain"),
    ({"type": "starfinder.lock_on", "seat": "a/sci", "target": "b"}, "Lock on to Ashen Wake", "Science"),
    ({"type": "starfinder.patch", "seat": "a/eng", "system": "life_support"}, "Patch the life support", "Engineering"),
    (
        {"type": "starfinder.divert", "seat": "a/eng", "to": "shields", "shields": {"aft": 4}},
        "Divert power to the shields (+4 aft)",
        "Engineering",
    ),
    (
        {"type": "starfinder.move", "seat": "a/pilot", "path": "FFRF"},
        "Move: ahead 2, turn to starboard, ahead 1",
        "Helm",
    ),
    (
        {"type": "starfinder.flyby", "seat": "a/pilot", "path": "FFF", "enemy": "b"},
        "Flyby past Ashen Wake (ahead 3)",
        "Helm stunts",
    ),
    ({"type": "starfinder.turn_in_place", "seat": "a/pilot", "facing": 3}, "Turn in place to face S", "Helm stunts"),
    (
        {"type": "starfinder.change_role", "seat": "a/gun", "role": "science_officer"},
        "Take the science officer role (from next round)",
        "Crew",
    ),
    ({"type": "starfinder.pass", "seat": "a/gun"}, "Pass (done with the gunnery phase)", "Phase"),
]
CAMPAIGN = {
    "map": {"worlds": [{"id": "w1", "hex": [1, 2], "owner": "nac"}], "routes": []},
    "players": [{"id": "nac", "name": "New Anglian Confederation"}, {"id": "fsr", "name": "FSR"}],
    "phase": "orders",
    "turn": 3,
}
FTC = [
    (
        {"type": "ftcampaign.submit_orders", "orders": [{"group": "tg1", "to": [1, 2], "posture": "stand_off"}]},
        "Orders: tg1 → w1 (1,2) (stand off)",
        "Orders",
    ),
    ({"type": "ftcampaign.submit_orders", "orders": []}, "Submit orders: every group holds", "Orders"),
    ({"type": "ftcampaign.buy_ship", "design": "light_cruiser", "world": "w1"}, "Buy a light cruiser at w1", "Economy"),
    ({"type": "ftcampaign.choose_posture", "step": "s1", "posture": "withdraw"}, "Posture: withdraw (s1)", "Contacts"),
    (
        {"type": "ftcampaign.approve_technology", "player": "nac", "design": "x1"},
        "Approve New Anglian Confederation's x1 design",
        "Set-up",
    ),
    (
        {
            "type": "ftcampaign.record_battle",
            "battle": "b1",
            "victor": "fsr",
            "ships": [{"ship": "s1", "destroyed": True}],
        },
        "Record b1: FSR wins — s1 destroyed",
        "Umpire",
    ),
]


def test_readable_labels_and_the_starfinder_sheet(browser, server):
    ARTIFACTS.mkdir(exist_ok=True)
    console = Console()
    ctx = browser.new_context(viewport={"width": 420, "height": 1400})
    try:
        page = console.watch(ctx.new_page(), "labels")
        page.goto(server.url + "/")
        got = page.evaluate(
            """async ([view, sf, campaign, ftc]) => {
            const c = await import('/static/commands.js');
            const p = await import('/static/panel.js');
            const s = await import('/static/starfinder-ui.js');
            const root = document.createElement('section');
            root.id = 'sheet-under-test';
            document.body.replaceChildren(root);
            p.renderPanel(root, view, view.ships[0], [], () => {}, { viewer: 'seat:a/gun' });
            return {
                sf: sf.map(([cmd]) => [c.labelCommand(cmd, view), c.groupOf(cmd)]),
                ftc: ftc.map(([cmd]) => [c.labelCommand(cmd, campaign), c.groupOf(cmd)]),
                toAct: [s.starfinderToAct(view, 'seat:a/gun'), s.starfinderToAct(view, 'seat:b/pilot'),
                        s.starfinderToAct({ ...view, acting_ship: null, awaiting: ['a/gun', 'b/eng'] }, 'spectator')],
                text: root.innerText,
                crew: [...root.querySelectorAll('table.sf-crew tr[data-seat]')]
                    .map((r) => [r.dataset.seat, r.className]),
                systems: [...root.querySelectorAll('table.sf-systems tr[data-system]')].map((r) => r.innerText),
                weapons: [...root.querySelectorAll('table.sf-weapons tr[data-weapon]')].map((r) => r.innerText),
            };
        }""",
            [VIEW, [list(x) for x in SF], CAMPAIGN, [list(x) for x in FTC]],
        )
        page.screenshot(path=str(ARTIFACTS / "starfinder-sheet-420.png"), full_page=True)
    finally:
        ctx.close()
    assert got["sf"] == [[label, group] for _, label, group in SF]
    assert got["ftc"] == [[label, group] for _, label, group in FTC]
    assert got["toAct"] == [
        {"text": "Your move", "mine": True},
        {"text": "Alpha to act", "mine": False},
        {"text": "Alpha, Ashen Wake to act", "mine": False},
    ]
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
