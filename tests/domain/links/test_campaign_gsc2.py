"""A campaign battle as a GSC2 scenario and the GSC2 outcome back as a campaign result (FTC-ARR-8, -12)."""

from __future__ import annotations

import math

import pytest

from service.domain.core import UMPIRE, Dice, RuleViolation, find_ruleset
from service.domain.core.plane import Point
from service.domain.ftcampaign import commands as C
from service.domain.links.campaign_gsc2 import campaign_result, drop_of, tactical_scenario
from tests.domain.ftcampaign.test_arrival import arrive, battle_ready
from tests.support.decider import when

FTC = find_ruleset("ftcampaign")
GSC2 = find_ruleset("gsc2")


def _battle():
    st, _ = arrive("attack", "attack", [2, 3, 4])
    return battle_ready(st)


def test_ftc_arr_12_each_force_enters_from_its_hexside_facing_the_centre() -> None:
    st = _battle()
    b = st.battles[0]
    raw = tactical_scenario(st, b.id)
    setup = GSC2.parse_setup(raw)  # a valid GSC2 scenario
    assert list(setup.sides) == [f.player for f in b.forces]
    w, h = raw["table"]["width"], raw["table"]["height"]
    assert w == h == st.setup.table_length_feet * 12
    for ship in setup.ships:
        # facing the centre: the heading points from the ship toward (w/2, h/2), to the nearest 45°
        # (GSC2's plane: heading 0 is up the table, +y; the top edge is y = h, the map's north)
        to_centre = math.degrees(math.atan2(w / 2 - ship.x, h / 2 - ship.y)) % 360
        assert abs((ship.heading - to_centre + 180) % 360 - 180) <= 22.5 + 1e-6
    sides = {f.player: f.entry_side for f in b.forces}
    assert sides == {"red": "SE", "blue": None}  # red jumped in across the SE hexside; blue was at home
    for ship in setup.ships:  # red on the right edge's lower segment, blue (no hexside) opposite it
        assert (ship.x > w / 2 and ship.y < h / 2) if ship.side == "red" else (ship.x < w / 2 and ship.y > h / 2)
        # and a ship moving ahead closes on the centre
        ahead = Point(ship.x, ship.y).advanced(ship.heading, 6)
        assert ahead.distance_to(Point(w / 2, h / 2)) < Point(ship.x, ship.y).distance_to(Point(w / 2, h / 2)) - 4


def test_ftc_arr_7_the_drop_moves_the_leader_and_a_tie_gives_none() -> None:
    st = _battle()
    b = st.battles[0]
    leader, changes = drop_of(b)
    totals = {f.player: f.initiative + 1 + f.route for f in b.forces}  # both on attack posture
    if totals["red"] == totals["blue"]:
        assert (leader, changes) == (None, 0)
    else:
        assert leader == max(totals, key=totals.__getitem__)
        assert changes == min(2, abs(totals["red"] - totals["blue"]) // 2)


def test_ftc_arr_8_linked_game_refused_before_formations_or_with_three_forces() -> None:
    st, _ = arrive("attack", "attack", [2, 3, 4])
    with pytest.raises(RuleViolation) as info:
        tactical_scenario(st, st.battles[0].id)
    assert info.value.rule == "FTC-ARR-12"
    with pytest.raises(RuleViolation) as info:
        tactical_scenario(_battle(), "b99")
    assert info.value.rule == "FTC-ARR-8"


def test_ftc_r_lnk_ship_mapping_keeps_hull_beams_and_chart() -> None:
    st = _battle()
    raw = tactical_scenario(st, st.battles[0].id)
    for sheet in raw["ships"]:
        ship = st.ships[sheet["id"]]
        assert sheet["hull"] == ship.hull - ship.hull_lost
        assert sheet["speed"] == 2 * ship.thrust
        beams = [s for s in ship.systems if s.kind == "beam" and not s.damaged]
        assert [b["id"] for b in sheet["beams"]] == [s.id for s in beams]
        assert len(sheet["chart"]) == 10


def test_ftc_arr_8_outcome_of_the_tactical_game_is_a_valid_campaign_result() -> None:
    st = _battle()
    b = st.battles[0]
    setup = GSC2.parse_setup(tactical_scenario(st, b.id))
    tactical = GSC2.initial_state(setup)
    blue_ship = next(s for s in setup.ships if s.side == "blue").id
    red_ship = next(s for s in setup.ships if s.side == "red").id
    from msgspec.structs import replace

    ships = dict(tactical.ships)
    ships[blue_ship] = replace(ships[blue_ship], status="destroyed", hull=0)
    beam = next(iter(k for k, v in ships[red_ship].sys.items() if v.kind == "beam"))
    sys = dict(ships[red_ship].sys)
    sys[beam] = replace(sys[beam], level=0)
    ships[red_ship] = replace(ships[red_ship], hull=ships[red_ship].hull - 2, sys=sys)
    tactical = replace(tactical, ships=ships, over=True, winner="red")
    body = campaign_result(st, b.id, tactical, "g_tac")
    assert body["victor"] == "red" and body["tactical_game_id"] == "g_tac"
    results = {r["ship"]: r for r in body["ships"]}
    assert results[blue_ship]["destroyed"] and results[red_ship]["hull_lost"] == 2
    assert results[red_ship]["damaged"] == [beam]
    import msgspec

    cmd = msgspec.convert(body, C.RecordBattle)
    events = when(FTC, st, cmd, UMPIRE, Dice(b"k", "g", 1))
    after = st
    for e in events:
        after = FTC.evolve(after, e)
    assert blue_ship not in after.ships and after.ships[red_ship].hull_lost == 2


def test_ftc_arr_8_link_battle_records_the_game_once_for_the_umpire_only() -> None:
    from service.domain.core import seat
    from service.domain.ftcampaign import events as E
    from tests.support.decider import then_violation

    st = _battle()
    b = st.battles[0]
    link = C.LinkBattle(battle=b.id, tactical_game_id="g_tac")
    events = when(FTC, st, link, UMPIRE)
    assert [type(e) for e in events] == [E.BattleLinked]
    assert set(events[0].witnesses) == {f.player for f in b.forces}
    after = FTC.evolve(st, events[0])
    assert after.battles[0].tactical_game_id == "g_tac"
    then_violation(FTC, after, C.LinkBattle(battle=b.id, tactical_game_id="g_other"), "FTC-ARR-8")
    then_violation(FTC, st, link, "FTC-UMP-1", seat("red"))
    then_violation(FTC, st, C.LinkBattle(battle="b99", tactical_game_id="g"), "FTC-ARR-8")
    unready, _ = arrive("attack", "attack", [2, 3, 4])
    then_violation(FTC, unready, C.LinkBattle(battle=unready.battles[0].id, tactical_game_id="g"), "FTC-ARR-12")
    # once linked, only that game's result is accepted; a hand entry naming another game is refused
    then_violation(FTC, after, C.RecordBattle(battle=b.id, victor="red"), "FTC-ARR-8")


def _at_range(range_feet: int, initiative: tuple[int, int] = (3, 3), formation: str | None = None):
    """The battle with its range and both forces' natural initiative rolls set (both on attack posture)."""
    from msgspec.structs import replace

    st = _battle()
    b = st.battles[0]
    forces = tuple(replace(f, initiative=i, route=False) for f, i in zip(b.forces, initiative, strict=True))
    formations = (
        b.formations if formation is None else {p: replace(f, formation=formation) for p, f in b.formations.items()}
    )
    b = replace(b, range_feet=range_feet, forces=forces, formations=formations)
    return replace(st, battles=(b, *st.battles[1:])), b


def _gap(raw: dict) -> float:
    """The distance between the nearest ships of the two sides."""
    red = [s for s in raw["ships"] if s["side"] == "red"]
    blue = [s for s in raw["ships"] if s["side"] == "blue"]
    return min(math.dist((a["x"], a["y"]), (b["x"], b["y"])) for a in red for b in blue)


@pytest.mark.parametrize("range_feet", [7, 8, 10, 12])
def test_ftc_arr_6_and_ftc_r_lnk_3_forces_start_at_the_rolled_range_on_a_table_that_holds_them(range_feet) -> None:
    """FTC-ARR-6, FTC-R-LNK-3: with no drop and nobody late the two forces start exactly the rolled d6 + 6 feet
    apart (7 ft = 84", 10 ft = 120"), on a square table of whole feet, the campaign's 8 ft or larger, that holds
    every ship with a 2" margin; the table has no edge (GSC2-R-20)."""
    st, b = _at_range(range_feet)
    assert drop_of(b) == (None, 0)
    raw = tactical_scenario(st, b.id)
    assert _gap(raw) == pytest.approx(range_feet * 12, abs=0.05)
    w, h = raw["table"]["width"], raw["table"]["height"]
    assert w == h and w % 12 == 0 and w >= st.setup.table_length_feet * 12 and raw["table"]["edge"] is False
    assert all(2 - 1e-6 <= s["x"] <= w - 2 + 1e-6 and 2 - 1e-6 <= s["y"] <= h - 2 + 1e-6 for s in raw["ships"])
    reach = max(max(abs(s["x"] - w / 2), abs(s["y"] - h / 2)) for s in raw["ships"]) + 2
    assert w == max(96, math.ceil(2 * reach / 12 - 1e-9) * 12)  # the smallest whole-feet table that holds them
    setup = GSC2.parse_setup(raw)
    assert GSC2.initial_state(setup).open_table


def test_ftc_r_lnk_4_the_drop_closes_six_inches_a_change_and_a_late_force_starts_six_back() -> None:
    """FTC-R-LNK-4 on FTC-ARR-7: red rolls 6, blue 2 (both attack: 7 against 3) → red has the drop with
    min(2, 4 // 2) = 2 changes and, on attack, closes 2 × 6" = 12"; a natural 1 starts 6" further back."""
    st, b = _at_range(9, initiative=(6, 2))
    assert drop_of(b) == ("red", 2)
    assert _gap(tactical_scenario(st, b.id)) == pytest.approx(9 * 12 - 12, abs=0.05)
    st, b = _at_range(9, initiative=(3, 1))  # blue late: totals 4 and 2 → red 1 change, blue 6" back
    assert drop_of(b) == ("red", 1)
    assert _gap(tactical_scenario(st, b.id)) == pytest.approx(9 * 12 - 6 + 6, abs=0.05)


def test_ftc_r_lnk_1_a_thrust_0_ship_has_gsc2_speed_0() -> None:
    """FTC-R-LNK-1: 2" per thrust point, so thrust 0 → speed 0 (not 1"); the scenario is valid and the ship
    is immobilized but may make its end-of-move turn (GSC2-R-5)."""
    from msgspec.structs import replace

    st = _battle()
    sid = next(s for s in st.battles[0].forces[0].ships)
    st = replace(st, ships={**st.ships, sid: replace(st.ships[sid], thrust=0)})
    raw = tactical_scenario(st, st.battles[0].id)
    sheet = next(s for s in raw["ships"] if s["id"] == sid)
    assert sheet["speed"] == 0
    tactical = GSC2.initial_state(GSC2.parse_setup(raw))
    assert tactical.ships[sid].speed == 0 and tactical.ships[sid].immobilized
    others = [s for s in raw["ships"] if s["id"] != sid]
    assert all(s["speed"] == 2 * st.ships[s["id"]].thrust for s in others)


def test_ftc_r_lnk_3_twelve_feet_north_to_south_needs_a_thirteen_foot_table() -> None:
    """FTC-R-LNK-3 by hand: red entered across the N hexside, blue takes the far (S) side; 12 ft = 144" apart,
    one ship each at 72" from the centre, plus the 2" margin: 2 × 74 = 148" → 13 ft = 156" (not the 8 ft set)."""
    from msgspec.structs import replace

    st, b = _at_range(12)
    b = replace(b, forces=tuple(replace(f, entry_side="N" if f.player == "red" else None) for f in b.forces))
    st = replace(st, battles=(b,))
    raw = tactical_scenario(st, b.id)
    assert raw["table"]["width"] == raw["table"]["height"] == 156
    red = next(s for s in raw["ships"] if s["side"] == "red")
    blue = next(s for s in raw["ships"] if s["side"] == "blue")
    assert (red["x"], red["y"], red["heading"]) == (78, 150, 180)  # top of the table, facing south
    assert (blue["x"], blue["y"], blue["heading"]) == (78, 6, 0)


def _three_powers():
    """Red jumps in across the SE hexside, green across N, blue holds its home world: three forces, one battle;
    equal natural initiative rolls and no route bonus, so nobody has the drop (FTC-ARR-7)."""
    from msgspec.structs import replace

    st, _ = arrive("attack", "attack", [2, 3, 4, 5, 6, 1, 2, 3, 4, 5, 6], green="attack")
    st = battle_ready(st)
    b = st.battles[0]
    b = replace(b, range_feet=10, forces=tuple(replace(f, initiative=3, route=False) for f in b.forces))
    return replace(st, battles=(b,)), b


def test_ftc_r_lnk_5_three_powers_fight_one_linked_game_round_the_table() -> None:
    """FTC-R-LNK-5 with GSC2-R-21: three forces make one three-sided GSC2 scenario. Red takes its SE edge
    (bearing 120°), green its N edge (0°); blue, at home, takes the free edge farthest from both: SW (240°:
    120° from each, where NE/S/NW are 60° from one). The nearest forces are 120° apart, so each stands
    120" / (2 sin 60°) = 69.28" from the centre and every pair starts the rolled 10 ft = 120" apart."""
    st, b = _three_powers()
    assert [f.player for f in b.forces] == ["red", "blue", "green"] and drop_of(b) == (None, 0)
    raw = tactical_scenario(st, b.id)
    setup = GSC2.parse_setup(raw)  # a valid three-sided GSC2 scenario
    assert list(setup.sides) == ["red", "blue", "green"] and raw["table"]["edge"] is False
    w, h = raw["table"]["width"], raw["table"]["height"]
    at = {s["side"]: (s["x"] - w / 2, s["y"] - h / 2) for s in raw["ships"]}  # one ship each
    bearing = {k: round(math.degrees(math.atan2(x, y)) % 360) for k, (x, y) in at.items()}
    assert bearing == {"red": 120, "blue": 240, "green": 0}
    assert all(math.hypot(*p) == pytest.approx(120 / (2 * math.sin(math.radians(60))), abs=0.01) for p in at.values())
    for a, c in (("red", "blue"), ("blue", "green"), ("green", "red")):
        assert math.dist(at[a], at[c]) == pytest.approx(120, abs=0.05)
    assert GSC2.initial_state(setup).sides == ("red", "blue", "green")


class _Linked:
    """GSC2 with the linked scenario as its one sample (what the service creates the tactical game from)."""

    def __init__(self, raw: dict) -> None:
        self._raw = raw

    def __getattr__(self, name: str):
        return getattr(GSC2, name)

    def scenarios(self) -> dict:
        return {"linked": self._raw}


def test_ftc_r_lnk_5_a_three_force_linked_game_plays_out_and_records_in_the_campaign() -> None:
    """FTC-R-LNK-5, FTC-R-LNK-6: bots play the three-sided linked game to its end with no refused option;
    its outcome is a campaign result the campaign accepts (the victor, if any, one of the three)."""
    import msgspec

    from service.domain.core.bot import RandomBot
    from tests.clients.botplay import play

    st, b = _three_powers()
    raw = tactical_scenario(st, b.id)
    game = play(_Linked(raw), "linked", {p: RandomBot() for p in ("red", "blue", "green")}, seed=3)
    assert game.over and not game.stalled and not game.refused_options, game.refused_options[:3]
    body = campaign_result(st, b.id, game.state, "g_tac")
    assert body["victor"] in (None, "red", "blue", "green")
    events = when(FTC, st, msgspec.convert(body, C.RecordBattle), UMPIRE, Dice(b"k", "g", 1))
    assert events


def test_ftc_r_lnk_5_seven_forces_are_refused_and_lnk_2_charts_cycle_systems() -> None:
    """FTC-R-LNK-5: GSC2 seats two to six sides (GSC2-R-1); a battle of seven forces is recorded by hand
    (FTC-ARR-8). FTC-R-LNK-2: the 10-row chart cycles through the ship's systems three a row."""
    from msgspec.structs import replace

    from service.domain.links.campaign_gsc2 import damage_chart

    st = _battle()
    b = st.battles[0]
    more = tuple(replace(b.forces[0], player=f"p{i}") for i in range(5))
    seven = replace(st, battles=(replace(b, forces=(*b.forces, *more)),))
    with pytest.raises(RuleViolation) as info:
        tactical_scenario(seven, b.id)
    assert info.value.rule == "FTC-ARR-8" and "two to 6 forces" in info.value.detail
    sheet = {
        "beams": [{"id": "b1"}, {"id": "b2"}],
        "missiles": [],
        "shields": 0,
        "mds": 1,
        "repair": 1,
        "scanners": 1,
        "systems": [],
    }
    chart = damage_chart(sheet)
    assert chart[0] == ["b1", "b2", "drive"] and chart[1] == ["b2", "drive", "mds"] and len(chart) == 10
