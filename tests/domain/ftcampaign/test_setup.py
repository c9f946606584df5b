"""FTC-MAP-* and FTC-WLD-*: the dice map, starting worlds, expansion, incomes and neutral worlds."""

from __future__ import annotations

from service.domain.core import UMPIRE, Dice, seat
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign import events as E
from service.domain.ftcampaign.starmap import hexes
from tests.support.decider import given, then_violation

from .builders import SETUP, Camp, fold, of, when

SMALL = {**SETUP, "map_side": 3, "players": SETUP["players"][:2]}
H = hexes(2)  # 19 hexes, sorted


def faces_for(worlds: dict[tuple[int, int], int]) -> list[int]:
    """Planet faces for the 19 hexes of a side-3 map: 4 (empty) unless given."""
    return [worlds.get(h, 4) for h in H]


def test_ftc_map_1_hexagon_of_91_hexes_and_off_map_orders_rejected() -> None:
    """FTC-MAP-1: outcome and rejection."""
    st = given(R, SETUP)
    evs = when(R, st, C.GenerateMap(), UMPIRE, Dice(b"map", "g", 1))
    mg = of(evs, E.MapGenerated)[0]
    planet_rolls = [r for r in mg.rolls if r.rule == "FTC-MAP-2"]
    assert len(planet_rolls) == 91 and mg.radius == 5
    assert all(max(abs(w.hex[0]), abs(w.hex[1]), abs(w.hex[0] + w.hex[1])) <= 5 for w in mg.worlds)
    # FTC-MAP-1 rejection: a move off the map
    st = Camp().world((5, 0), "red").ship("red", "dd", (5, 0)).build()
    then_violation(R, st, C.SubmitOrders(orders=(C.Order(group="red-5,0", to=(6, 0)),)), "FTC-MAP-1", seat("red"))


def test_ftc_map_2_world_on_1_to_3() -> None:
    """FTC-MAP-2: outcome and rejection."""
    st = given(R, SMALL)
    faces = faces_for({(0, 0): 2, (1, 0): 3, (-1, 0): 5})
    evs = when(R, st, C.GenerateMap(), UMPIRE, faces)
    mg = of(evs, E.MapGenerated)[0]
    assert sorted(w.hex for w in mg.worlds) == [(0, 0), (1, 0)]
    assert not any(w.route for w in mg.worlds)
    # rejection: an empty hex holds no world to buy at
    st = Camp().world((0, 0), "red").at(7).build()
    then_violation(R, st, C.LayKeel(design="dd", world="1,1"), "FTC-MAP-2", seat("red"))


def test_ftc_map_3_charted_route_stub_links_nearest_world_with_rerolls() -> None:
    """FTC-MAP-3: outcome and rejection."""
    st = given(R, SMALL)
    # (0,0) is a route world (1); (0,-2) a world two hexes north. Hexside faces: 4 (S: nothing) then 1 (N).
    faces = faces_for({(0, 0): 1, (0, -2): 2}) + [4, 1]
    evs = when(R, st, C.GenerateMap(), UMPIRE, faces)
    mg = of(evs, E.MapGenerated)[0]
    assert mg.routes == (((0, -2), (0, 0)),)
    route_rolls = [r for r in mg.rolls if r.rule == "FTC-MAP-3"]
    assert [r.outcome for r in route_rolls] == ["no world within 4 hexes", "towards 0,-2"]
    # ruling: at most 6 re-rolls, then no stub
    evs = when(R, st, C.GenerateMap(), UMPIRE, faces_for({(0, 0): 1, (0, -2): 2}) + [4] * 7)  # all 7 rolled
    capped = of(evs, E.MapGenerated)[0]
    assert capped.routes == () and len([r for r in capped.rolls if r.rule == "FTC-MAP-3"]) == 7
    # rejection: route travel between worlds not on one charted route (FTC-MOV-3)
    st = Camp().world((0, 0), "red").world((3, 0), "red").ship("red", "dd", (0, 0)).build()
    then_violation(
        R, st, C.SubmitOrders(orders=(C.Order(group="red-0,0", to=(3, 0), route=True),)), "FTC-MOV-3", seat("red")
    )


def test_ftc_map_4_same_seed_same_map_recorded_once() -> None:
    """FTC-MAP-4: outcome and rejection."""
    st = given(R, SETUP)
    a = when(R, st, C.GenerateMap(), UMPIRE, Dice(b"s", "g", 1))
    b = when(R, st, C.GenerateMap(), UMPIRE, Dice(b"s", "g", 1))
    assert a == b and a[0].rolls
    then_violation(R, fold(st, a), C.GenerateMap(), "FTC-MAP-4")
    then_violation(R, st, C.GenerateMap(), "FTC-UMP-1", seat("red"))


def _small_map() -> object:
    st = given(R, SMALL)
    faces = faces_for({(0, 0): 2, (1, 0): 2, (-1, 0): 2, (0, -1): 2, (0, 1): 3, (2, 0): 3})
    return fold(st, when(R, st, C.GenerateMap(), UMPIRE, faces))


def test_ftc_wld_1_players_dice_for_starting_worlds_in_turn() -> None:
    """FTC-WLD-1: outcome and rejection."""
    st = _small_map()
    unowned = sorted(w.hex for w in st.worlds.values())
    evs = when(R, st, C.ClaimHomeworld(), seat("red"), [3, 1])  # d6 among 6 worlds, then d3
    hw = of(evs, E.HomeworldClaimed)[0]
    assert hw.world == f"{unowned[2][0]},{unowned[2][1]}" and hw.rolls[0].rule == "FTC-WLD-1"
    assert st.current == "red" and fold(st, evs).current == "blue"
    then_violation(R, st, C.ClaimHomeworld(), "FTC-WLD-1", seat("blue"))


def test_ftc_wld_2_additional_worlds_by_direction_in_rounds() -> None:
    """FTC-WLD-2: outcome and rejection."""
    st = _small_map()
    st = fold(st, when(R, st, C.ClaimHomeworld(), seat("red"), [3, 2]))  # red: (0,0); extra 2+4
    st = fold(st, when(R, st, C.ClaimHomeworld(), seat("blue"), [5, 1]))  # blue: 5th of the rest
    assert st.economies["red"].picks_left == 6 and st.phase == "expansion" and st.current == "red"
    # red picks (0,0) and rolls hexside 3 (SE: (1,0) is the nearest unowned there)
    evs = when(R, st, C.Expand(world="0,0"), seat("red"), [3])
    claimed = of(evs, E.WorldClaimed)[0]
    assert claimed.world == "1,0" and fold(st, evs).current == "blue"
    # six failed directions: the pick is not used up
    empty_map = Camp(map_side=3).world((0, 0), "red").world((0, 2), None, None).build()
    from msgspec.structs import replace

    empty_map = replace(
        empty_map,
        phase="expansion",
        current="red",
        economies={**empty_map.economies, "red": replace(empty_map.economies["red"], picks_left=1)},
    )
    evs = when(R, empty_map, C.Expand(world="0,0"), seat("red"), [1, 2, 3, 5, 6, 1])
    assert of(evs, E.ExpansionFailed) and fold(empty_map, evs).economies["red"].picks_left == 1
    then_violation(R, st, C.Expand(world="1,0"), "FTC-WLD-2", seat("red"))  # not an owned world
    then_violation(R, st, C.Expand(world="0,0"), "FTC-WLD-2", seat("blue"))  # not blue's pick


def test_ftc_wld_3_leftover_worlds_are_neutral_and_forfeit_when_none_left() -> None:
    """FTC-WLD-3: outcome and rejection."""
    st = _small_map()
    st = fold(st, when(R, st, C.ClaimHomeworld(), seat("red"), [4, 3]))
    st = fold(st, when(R, st, C.ClaimHomeworld(), seat("blue"), [1, 3]))
    for _ in range(10):
        if st.phase != "expansion":
            break
        p = st.current
        mine = sorted(k for k, w in st.worlds.items() if w.owner == p)
        st = fold(st, when(R, st, C.Expand(world=mine[0]), seat(p), Dice(b"x", "g", len(mine))))
    assert st.phase == "deployment"
    assert all(w.owner in ("red", "blue", None) for w in st.worlds.values())
    # 6 worlds, 2 homeworlds and 14 picks: every world taken, the rest forfeited (no neutral left here)
    assert all(w.owner is not None for w in st.worlds.values())
    neutral = Camp().world((0, 0), "red").world((2, 0), None, None).build()
    assert neutral.worlds["2,0"].owner is None and R.view(neutral, seat("red"))["map"]["worlds"][1]["owner"] is None
    then_violation(R, neutral, C.Expand(world="2,0"), "FTC-WLD-2", seat("red"))


def test_ftc_wld_4_income_3d5x10_rolled_once_and_idp_separate() -> None:
    """FTC-WLD-4: outcome and rejection."""
    st = _small_map()
    st = fold(st, when(R, st, C.ClaimHomeworld(), seat("red"), [3, 3]))
    st = fold(st, when(R, st, C.ClaimHomeworld(), seat("blue"), [1, 3]))
    from msgspec.structs import replace

    st = replace(
        st, economies={p: replace(e, picks_left=0) for p, e in st.economies.items()}, phase="expansion", current="red"
    )
    # the last pick triggers the incomes: one pick left for red only
    st = replace(st, economies={**st.economies, "red": replace(st.economies["red"], picks_left=1)})
    evs = when(R, st, C.Expand(world="0,0"), seat("red"), [3, 1, 2, 3, 5, 5, 5, 2, 2, 2])
    inc = {e.player: e for e in of(evs, E.IncomesRolled)}
    assert inc["red"].incomes == {"0,0": 60, "1,0": 150} and inc["red"].capital == 2100
    assert inc["blue"].incomes == {"-1,0": 60}
    st = fold(st, evs)
    assert st.worlds["0,0"].idp == 60 and st.phase == "deployment"
    st = fold(st, when(R, st, C.BuyDefences(world="0,0", points=40), seat("red")))
    assert st.worlds["0,0"].idp == 100 and st.worlds["0,0"].income == 60
    then_violation(
        R, Camp().world((0, 0), "red").build(), C.BuyDefences(world="0,0", points=5), "FTC-ECO-1", seat("red")
    )


def test_ftc_wld_5_neutral_income_on_scouting_revealed_to_all() -> None:
    """FTC-WLD-5: outcome and rejection (and ruling FTC-R-13)."""
    st = Camp().world((0, 0), "red").world((1, 0), None, None).ship("red", "scout", (1, 0)).build()
    evs = when(R, st, C.Scout(group="red-1,0"), seat("red"), [4, 3, 5])  # 3–4: 2d6 × 10
    ws = of(evs, E.WorldScouted)[0]
    assert ws.income == 80 and R.redact(ws, seat("blue"), st) == ws
    after = fold(st, evs)
    assert [w for w in R.view(after, seat("blue"))["map"]["worlds"] if w["id"] == "1,0"][0]["income"] == 80
    # unsettled (1–2): an attack takes it without a roll
    st = Camp().world((0, 0), "red").world((1, 0), None, None).ship("red", "dd", (1, 0), posture="attack").build()
    st = fold(
        st, when(R, st, C.SubmitOrders(orders=(C.Order(group="red-1,0", to=(1, 0), posture="attack"),)), seat("red"))
    )
    st = fold(st, when(R, st, C.SubmitOrders(), seat("blue")))
    evs = when(R, st, C.SubmitOrders(), seat("green"), [2])
    assert of(evs, E.WorldScouted)[0].income == 0 and of(evs, E.WorldTaken)[0].player == "red"
    # rejection: only a single light element scouts without risk
    st = (
        Camp()
        .world((0, 0), "red")
        .world((1, 0), None, None)
        .ship("red", "dd", (1, 0))
        .ship("red", "dd", (1, 0))
        .build()
    )
    then_violation(R, st, C.Scout(group="red-1,0"), "FTC-WLD-5", seat("red"))


def test_the_decide_skeleton_types_each_refusal() -> None:
    """core.decider: unknown command, the umpire's piece, the wrong phase, each typed; a player's command
    sent by the umpire is the handler's refusal (FTC-UMP-1)."""
    import pytest

    from service.domain.core import Command, NotYourPiece, UnknownCommand, WrongPhase

    class Warp(Command, frozen=True, tag="ftcampaign.warp"):
        pass

    st = given(R, SETUP)
    with pytest.raises(UnknownCommand) as unknown:
        when(R, st, Warp(), seat("red"), Dice(b"s", "g", 1))
    assert unknown.value.rule == "UNKNOWN-COMMAND"
    with pytest.raises(NotYourPiece) as umpires:
        when(R, st, C.CloseTurn(), seat("red"), Dice(b"s", "g", 1))
    assert umpires.value.rule == "FTC-UMP-1" and umpires.value.code == "not-your-piece"
    with pytest.raises(WrongPhase) as phase:
        when(R, st, C.ClaimHomeworld(), seat("red"), Dice(b"s", "g", 1))
    assert phase.value.rule == "FTC-WLD-1" and "map" in phase.value.detail
    st = fold(st, when(R, st, C.GenerateMap(), UMPIRE, Dice(b"s", "g", 1)))
    then_violation(R, st, C.ClaimHomeworld(), "FTC-UMP-1", UMPIRE)
