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
