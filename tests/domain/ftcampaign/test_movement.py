"""FTC-MOV-* and FTC-TG-*: sealed simultaneous moves, jumps, charted routes, task groups and intelligence."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import UMPIRE, seat
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign import events as E
from service.domain.ftcampaign.state import State
from tests.support.decider import then_violation

from .builders import Camp, fold, of, when

RED, BLUE, GREEN = seat("red"), seat("blue"), seat("green")


def order(group: str, to: tuple[int, int], posture: str = "stand_off", route: bool = False) -> C.SubmitOrders:
    return C.SubmitOrders(orders=(C.Order(group=group, to=to, posture=posture, route=route),))


def rest_hold(st: State, dice: object = None) -> tuple[State, list]:  # type: ignore[type-arg]
    """Every player still to order holds; the last one's orders resolve the turn and roll the ``dice``."""
    evs: list = []
    missing = [p for p in st.order if p not in st.orders]
    for p in missing:
        if not st.over and st.phase == "orders":
            e = when(R, st, C.SubmitOrders(), seat(p), dice if p == missing[-1] else None)
            evs += e
            st = fold(st, e)
    return st, evs


def test_ftc_mov_1_orders_sealed_then_revealed_together() -> None:
    """FTC-MOV-1: outcome and rejection."""
    st = Camp().world((0, 0), "red").ship("red", "dd", (0, 0)).build()
    evs = when(R, st, order("red-0,0", (1, 0)), RED)
    assert R.redact(evs[0], BLUE, st).orders is None and R.redact(evs[0], RED, st) == evs[0]
    st = fold(st, evs)
    assert st.groups["red-0,0"].hex == (0, 0), "nothing moves until every order is in"
    assert [p["orders_sealed"] for p in R.view(st, BLUE)["players"]] == [True, False, False]
    assert "my_orders" not in R.view(st, BLUE)
    then_violation(R, st, order("red-0,0", (0, 1)), "FTC-MOV-1", RED)
    evs = when(R, st, C.CloseTurn(), UMPIRE)
    assert of(evs, E.OrdersRevealed)[0].missing == ("blue", "green")
    assert fold(st, evs).groups["red-0,0"].hex == (1, 0)


def test_ftc_mov_2_one_hex_or_two_between_worlds_across_an_empty_hex() -> None:
    """FTC-MOV-2: outcome and rejection (and ruling FTC-R-11)."""
    st = (
        Camp()
        .world((0, 0), "red")
        .world((-2, 0), None, None)
        .world((1, 1), None, None)
        .world((1, 0), None, None)
        .world((0, 1), None, None)
        .ship("red", "dd", (0, 0))
        .build()
    )
    assert of(when(R, st, order("red-0,0", (-2, 0)), RED), E.OrdersSubmitted)  # (-1,0) between is empty
    assert of(when(R, st, order("red-0,0", (1, 0)), RED), E.OrdersSubmitted)  # adjacent
    then_violation(R, st, order("red-0,0", (1, 1)), "FTC-MOV-2", RED)  # both hexes between hold worlds
    then_violation(R, st, order("red-0,0", (3, 0)), "FTC-MOV-2", RED)
    empty = Camp().world((0, 0), "red").ship("red", "dd", (1, 0)).build()
    then_violation(R, empty, order("red-1,0", (3, 0)), "FTC-MOV-2", RED)


def test_ftc_mov_2_three_hexes_between_worlds_is_too_far_not_a_blocked_two_hex_jump() -> None:
    """FTC-MOV-2 boundary: worlds three hexes apart across empty hexes are out of one jump's reach; the refusal
    says the jump is too long (not that the hex between is occupied), and the plain reach lists only the two-hex
    world."""
    from service.domain.ftcampaign.movement import plain_reach

    st = (
        Camp()
        .world((0, 0), "red")
        .world((3, 0), None, None)
        .world((2, 0), None, None)
        .ship("red", "dd", (0, 0))
        .build()
    )
    v = then_violation(R, st, order("red-0,0", (3, 0)), "FTC-MOV-2", RED)
    assert "one jump is one hex" in v.detail
    assert "empty hex between" not in v.detail
    assert (2, 0) in plain_reach(st, (0, 0)) and (3, 0) not in plain_reach(st, (0, 0))
    assert of(when(R, st, order("red-0,0", (2, 0)), RED), E.OrdersSubmitted)


def _route_camp() -> Camp:
    return (
        Camp()
        .world((0, 0), "red", route=True)
        .world((2, 0), "red", route=True)
        .world((4, 0), "blue", route=True)
        .world((4, 1), None, None, route=True)
        .route((0, 0), (2, 0))
        .route((2, 0), (4, 0))
        .route((4, 0), (4, 1))
        .ship("red", "dd", (0, 0))
    )


def test_ftc_mov_3_charted_route_in_a_week_unless_blocked() -> None:
    """FTC-MOV-3: outcome and rejection (and ruling FTC-R-10)."""
    st = _route_camp().build()
    st = fold(st, when(R, st, order("red-0,0", (4, 1), route=True), RED))
    st2, evs = rest_hold(st)
    assert st2.groups["red-0,0"].hex == (4, 1) and of(evs, E.GroupMoved)[0].route
    # blue closes the route at its world: red stops at the last friendly system before it
    st = _route_camp().build()
    st = fold(st, when(R, st, C.CloseRoute(world="4,0"), BLUE))
    st = fold(st, when(R, st, order("red-0,0", (4, 1), route=True), RED))
    st, evs = rest_hold(st)
    moved = of(evs, E.GroupMoved)[0]
    assert moved.to == (2, 0) and moved.stopped_short
    # an interdicted intermediate world blocks too
    st = _route_camp().build()
    st = replace(st, worlds={**st.worlds, "4,0": replace(st.worlds["4,0"], interdicted=True)})
    st = fold(st, when(R, st, order("red-0,0", (4, 1), route=True), RED))
    st, _ = rest_hold(st)
    assert st.groups["red-0,0"].hex == (2, 0)
    then_violation(R, st, C.CloseRoute(world="4,0"), "FTC-MOV-3", RED)


def test_ftc_mov_4_fleets_in_ftl_are_inaccessible() -> None:
    """FTC-MOV-4: outcome and rejection."""
    st = Camp().world((0, 0), "red").ship("red", "dd", (0, 0)).ship("blue", "dd", (1, 0)).build()
    st = fold(st, when(R, st, order("red-0,0", (1, 0), "attack"), RED))
    st = fold(st, when(R, st, order("blue-1,0", (0, 0), "attack"), BLUE))
    st, evs = rest_hold(st)
    assert not of(evs, E.BattleStarted) and not of(evs, E.StepOpened), "passing in FTL never meets"
    gone = fold(st, [E.Departed(player="red", group="red-0,0", to=(2, 0), reason="test")])
    then_violation(R, gone, order("red-0,0", (2, 0)), "FTC-ARR-10", RED)
    two = Camp().ship("red", "dd", (0, 0), "a").ship("red", "dd", (0, 0), "b").build()
    two = fold(two, [E.Departed(player="red", group="b", to=(1, 0), reason="test")])
    then_violation(R, two, C.MergeGroups(into="a", other="b"), "FTC-MOV-4", RED)


def test_ftc_mov_5_charted_route_arrival_gives_plus_one_initiative() -> None:
    """FTC-MOV-5: outcome and rejection."""
    st = (
        Camp()
        .world((0, 0), "red", route=True)
        .world((3, 0), "blue", route=True)
        .route((0, 0), (3, 0))
        .ship("red", "dd", (0, 0))
        .ship("blue", "dd", (3, 0), posture="attack")
        .build()
    )
    st = fold(st, when(R, st, order("red-0,0", (3, 0), "attack", route=True), RED))
    st, evs = rest_hold(st, [4, 3, 3])  # range 10 ft, red initiative 3, blue 3
    bs = of(evs, E.BattleStarted)[0]
    red_roll = [r for r in bs.rolls if r.purpose == "initiative of red"][0]
    assert {m.rule for m in red_roll.modifiers} == {"FTC-ARR-1", "FTC-MOV-5"}
    assert bs.drop == "red" and bs.drop_changes == 0
    then_violation(R, st, order("red-0,0", (0, 0)), "FTC-MOV-1", RED)


def test_ftc_mov_6_cloaked_fleet_cannot_jump() -> None:
    """FTC-MOV-6: outcome and rejection."""
    st = Camp().world((0, 0), "red").ship("red", "dd", (0, 0)).ship("red", "scout", (1, 0)).build()
    st = fold(st, when(R, st, C.SetCloak(group="red-0,0", on=True), RED))
    then_violation(R, st, order("red-0,0", (0, 1)), "FTC-MOV-6", RED)
    assert of(when(R, st, order("red-0,0", (0, 0), "attack"), RED), E.OrdersSubmitted)  # may hold
    then_violation(R, st, C.SetCloak(group="red-1,0", on=True), "FTC-MOV-6", RED)  # the scout has no cloak


def test_ftc_tg_1_groups_split_and_merge_in_one_place() -> None:
    """FTC-TG-1: outcome and rejection."""
    st = Camp().ship("red", "dd", (0, 0)).ship("red", "dd", (0, 0)).ship("red", "dd", (1, 0)).build()
    ships = st.groups["red-0,0"].ships
    evs = when(R, st, C.SplitGroup(group="red-0,0", ships=ships[:1]), RED)
    split = of(evs, E.GroupSplit)[0]
    st = fold(st, evs)
    assert st.groups[split.new_group].ships == ships[:1] and st.groups["red-0,0"].ships == ships[1:]
    st = fold(st, when(R, st, C.MergeGroups(into="red-0,0", other=split.new_group), RED))
    assert st.groups["red-0,0"].ships == (*ships[1:], *ships[:1])
    then_violation(R, st, C.MergeGroups(into="red-0,0", other="red-1,0"), "FTC-TG-1", RED)


def test_ftc_tg_2_one_dummy_per_capital_unit_revealed_on_contact() -> None:
    """FTC-TG-2: outcome and rejection."""
    st = Camp().world((0, 0), "red").ship("red", "bb", (0, 0)).ship("blue", "dd", (1, 0)).build()
    evs = when(R, st, C.PlaceDummy(world="0,0"), RED)
    st = fold(st, evs)
    dummy = of(evs, E.DummyPlaced)[0].group
    then_violation(R, st, C.PlaceDummy(world="0,0"), "FTC-TG-2", RED)
    then_violation(R, st, C.SplitGroup(group="red-0,0", ships=st.groups["red-0,0"].ships), "FTC-TG-2", RED)
    st = fold(st, when(R, st, order(dummy, (1, 0)), RED))
    st, evs = rest_hold(st)
    assert of(evs, E.DummiesRevealed)[0].groups == (dummy,) and dummy not in st.groups


def test_ftc_tg_3_opponents_see_counters_then_compositions_after_contact() -> None:
    """FTC-TG-3: outcome and rejection."""
    st = Camp().world((0, 0), "blue").ship("red", "dd", (1, 0)).ship("blue", "dd", (0, 0)).build()
    st = fold(st, when(R, st, order("red-1,0", (0, 0)), RED))
    st, evs = rest_hold(st, [])  # a stand-off: no die until someone attacks
    seen = R.view(st, BLUE)["sightings"]
    counters = [c for s in seen for c in s["counters"]]
    assert counters and counters[0]["group"] == "red-1,0" and counters[0]["ships"] is None
    red_ship = st.groups["red-1,0"].ships[0]
    assert red_ship not in str(R.view(st, BLUE)) and red_ship not in str(R.view(st, GREEN))
    # contact: a battle reveals compositions to the participants, as of that turn
    st = fold(st, when(R, st, C.ChoosePosture(step=st.steps[0].id, posture="attack"), RED))
    st = fold(st, when(R, st, C.ChoosePosture(step=st.steps[0].id, posture="stand_off"), BLUE))
    st = fold(st, when(R, st, C.Engage(step=st.steps[0].id, stay=True), BLUE, [1, 4, 4]))
    seen = R.view(st, BLUE)["sightings"]
    assert any(c["ships"] and c["ships"][0].startswith(red_ship) for s in seen for c in s["counters"])
    assert red_ship not in str(R.view(st, GREEN))
    then_violation(R, st, C.SplitGroup(group="red-1,0", ships=(red_ship,)), "FTC-TG-1", BLUE)
