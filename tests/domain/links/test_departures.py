"""FTC-R-LNK-6: ships that sailed off a linked GSC2 table come back to the campaign as survivors that departed.

A task group whose every ship still afloat left the table departs (FTC-ARR-9/10) toward the hexside
matching the edge it left by; it is not destroyed, keeps the damage it took, and its force is defeated.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec
import pytest
from msgspec.structs import replace

from service.domain.core import UMPIRE, Dice, find_ruleset
from service.domain.core.hexgrid import FACING_NAMES, Hex
from service.domain.core.plane import Point
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign import events as E
from service.domain.ftcampaign.state import State
from service.domain.gsc2.state import GameState
from service.domain.links.campaign_gsc2 import EDGE_BEARING, campaign_result, exit_hexside, tactical_scenario
from tests.domain.ftcampaign.builders import Camp
from tests.domain.ftcampaign.test_arrival import arrive, battle_ready
from tests.support.decider import when

FTC = find_ruleset("ftcampaign")
GSC2 = find_ruleset("gsc2")


def _battle(blue_ships: int = 1) -> State:
    camp = Camp().world((0, 0), "blue", 20).world((1, 0), "red").ship("red", "dd", (1, 0))
    for _ in range(blue_ships - 1):  # arrive() adds blue's first ship
        camp = camp.ship("blue", "dd", (0, 0))
    st, _ = arrive("attack", "attack", [2, 3, 4], camp=camp)
    return battle_ready(st)


def _tactical(st: State) -> GameState:
    return GSC2.initial_state(GSC2.parse_setup(tactical_scenario(st, st.battles[0].id)))


def _ship(t: GameState, ship_id: str, **changes: Any) -> GameState:
    return replace(t, ships={**t.ships, ship_id: replace(t.ships[ship_id], **changes)})


def _left(t: GameState, ship_id: str, x: float, y: float, **changes: Any) -> GameState:
    return _ship(t, ship_id, status="left", pos=Point(x, y), **changes)


def _record(st: State, body: dict[str, Any]) -> tuple[State, list[Any]]:
    events = when(FTC, st, msgspec.convert(body, C.RecordBattle), UMPIRE, Dice(b"k", "g", 1))
    for e in events:
        st = FTC.evolve(st, e)
    return st, events


def _sides(t: GameState, side: str) -> list[str]:
    return [s for s, ship in t.ships.items() if ship.side == side]


def test_ftc_r_lnk_6_the_exit_edge_is_the_hexside_the_setup_would_enter_by() -> None:
    """FTC-R-LNK-6 reads FTC-R-LNK-3 backwards: a ship leaving at each hexside's edge point maps to it."""
    t = _tactical(_battle())
    ship = next(iter(t.ships))
    w, h = t.table
    for side, bearing in EDGE_BEARING.items():
        a = math.radians(bearing)
        scale = min(w / 2 / max(abs(math.sin(a)), 1e-9), h / 2 / max(abs(math.cos(a)), 1e-9))
        at = _left(t, ship, w / 2 + math.sin(a) * scale, h / 2 + math.cos(a) * scale)
        assert exit_hexside(at, ship) == side, side
    assert exit_hexside(_left(t, ship, w / 2, h), ship) == "N"  # the top edge (y = h) is the map's north
    assert exit_hexside(_left(t, ship, w, h * 0.25), ship) == "SE"  # the right edge's lower part


def test_ftc_r_lnk_6_a_group_that_sailed_off_departs_as_survivors() -> None:
    """FTC-R-LNK-6, FTC-ARR-9/10: blue's ship left by the top edge, damaged; it departs north, not destroyed."""
    st = _battle()
    b = st.battles[0]
    t = _tactical(st)
    [blue] = _sides(t, "blue")
    t = _left(t, blue, t.table[0] / 2, t.table[1], hull=t.ships[blue].hull - 1)
    t = replace(t, over=True, winner="red")
    body = campaign_result(st, b.id, t, "g_tac")
    [gid] = b.forces[1].groups
    north = Hex(*b.hex).neighbour(FACING_NAMES.index("N"))
    assert body["left"] == [{"group": gid, "to": [north.q, north.r], "formation": "wedge", "speed": 4}]
    assert body["ships"] == [{"ship": blue, "destroyed": False, "hull_lost": 1, "damaged": []}]
    after, events = _record(st, body)
    [rec] = [e for e in events if isinstance(e, E.BattleRecorded)]
    assert rec.defeated == ("blue",) and rec.victor == "red"  # FTC-ARR-9: a fleet that leaves is defeated
    [dep] = [e for e in events if isinstance(e, E.Departed)]
    assert (dep.group, tuple(dep.to)) == (gid, (north.q, north.r))
    assert blue in after.ships and after.ships[blue].hull_lost == 1  # a survivor with its damage
    assert after.groups[gid].hex is None and after.groups[gid].ftl_to == (north.q, north.r)


def test_ftc_r_lnk_6_no_departure_while_a_ship_of_the_group_stays_or_none_left() -> None:
    """FTC-R-LNK-6, negative: a group with a ship still on the table stays (the ship that left rejoins
    it); a group destroyed outright does not depart; nothing left means no ``left`` at all."""
    st = _battle(blue_ships=2)
    b = st.battles[0]
    t = _tactical(st)
    first, second = _sides(t, "blue")
    stays = replace(_left(t, first, 0, t.table[1] / 2), over=True)
    assert "left" not in campaign_result(st, b.id, stays, "g_tac")
    sunk = _ship(_ship(t, first, status="destroyed", hull=0), second, status="destroyed", hull=0)
    assert "left" not in campaign_result(st, b.id, replace(sunk, over=True, winner="red"), "g_tac")
    # one sunk, the other sailed off by the left edge's upper part: the group departs (NW)
    mixed = _left(_ship(t, first, status="destroyed", hull=0), second, 0, t.table[1] * 0.75)
    body = campaign_result(st, b.id, replace(mixed, over=True, winner="red"), "g_tac")
    nw = Hex(*b.hex).neighbour(FACING_NAMES.index("NW"))
    assert [d["to"] for d in body["left"]] == [[nw.q, nw.r]]
    after, _ = _record(st, body)
    assert first not in after.ships and second in after.ships


def test_ftc_r_lnk_6_a_cloaked_group_cannot_depart() -> None:
    """FTC-ARR-10: cloaked ships cannot depart, so a cloaked group that left the table stays."""
    st = _battle()
    b = st.battles[0]
    gid = b.forces[1].groups[0]
    st = replace(st, groups={**st.groups, gid: replace(st.groups[gid], cloaked=True)})
    t = _tactical(st)
    [blue] = _sides(t, "blue")
    body = campaign_result(st, b.id, replace(_left(t, blue, 0, 0), over=True, winner="red"), "g_tac")
    assert "left" not in body


@pytest.mark.parametrize("radius", [0, 1])
def test_ftc_r_lnk_6_a_departure_off_the_map_goes_to_a_legal_hex(radius: int) -> None:
    """FTC-R-LNK-6, FTC-MAP-1: a departure across a hexside off the map goes to a legal hex instead (the
    hex it came from, else the battle's own), never one record_battle would refuse."""
    st = replace(_battle(), radius=radius)
    b = st.battles[0]
    t = _tactical(st)
    [red] = _sides(t, "red")
    t = replace(_left(t, red, t.table[0] / 2, 0), over=True, winner="blue")  # the bottom edge: S
    body = campaign_result(st, b.id, t, "g_tac")
    [d] = body["left"]
    south = Hex(*b.hex).neighbour(FACING_NAMES.index("S"))
    # on a one-hex map (radius 0) the hex across, and the one red came from, are off the map
    assert tuple(d["to"]) == ((south.q, south.r) if radius else tuple(b.hex))
    _record(st, body)  # accepted


def test_ftc_r_lnk_6_revised_past_the_drawn_table_is_still_in_the_battle_until_it_disengages() -> None:
    """FTC-R-LNK-6 (revised) with FTC-ARR-11: a linked table has no edge. Blue's ship 100" past the top of the
    drawn table is still in the battle (no departure, its force not defeated by leaving); only once it has
    disengaged there (status left, GSC2-R-20) does its group depart north."""
    st = _battle()
    b = st.battles[0]
    t = _tactical(st)
    assert t.open_table
    [blue] = _sides(t, "blue")
    far = _ship(t, blue, pos=Point(t.table[0] / 2, t.table[1] + 100))
    body = campaign_result(st, b.id, replace(far, over=True, winner=None), "g_tac")
    assert "left" not in body and body["ships"] == []
    gone = _left(t, blue, t.table[0] / 2, t.table[1] + 100)
    body = campaign_result(st, b.id, replace(gone, over=True, winner="red"), "g_tac")
    north = Hex(*b.hex).neighbour(FACING_NAMES.index("N"))
    assert [d["to"] for d in body["left"]] == [[north.q, north.r]]
