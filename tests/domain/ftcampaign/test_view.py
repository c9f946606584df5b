"""The drawing, the status in words, and the sealed-orders form (docs/view-contract.md; FTC-MOV-1, FTC-R-7,
rulings FTC-R-20 and FTC-R-21)."""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from service.domain.core import SPECTATOR, UMPIRE, seat
from service.domain.core.choices import compose, to_command
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign import events as E
from service.domain.ftcampaign.state import State
from tests.support.decider import then_violation

from .builders import Camp, fold, of, when

RED, BLUE, GREEN = seat("red"), seat("blue"), seat("green")


def _camp() -> State:
    return (
        Camp()
        .world((0, 0), "red")
        .world((2, 0), "blue")
        .world((-2, 0), None, None)
        .ship("red", "dd", (0, 0))
        .ship("red", "scout", (0, 0), group="red-b")
        .ship("blue", "dd", (2, 0))
        .build()
    )


def test_ftc_mov_1_orders_form_has_one_entry_per_group_with_labelled_choices() -> None:
    st = _camp()
    (form,) = R.forms(st, RED)
    assert form.command == "ftcampaign.submit_orders" and form.list_key == "orders" and form.optional_pieces
    assert [p.piece for p in form.pieces] == ["red-0,0", "red-b"]
    to = next(f for f in form.pieces[0].fields if f.key == "to")
    assert to.values[0].value == [0, 0] and to.values[0].label == "hold"
    labels = {tuple(v.value): v.label for v in to.values}
    assert labels[(-2, 0)] == "-2,0 neutral" and labels[(1, 0)] == "1,0 empty"  # a two-hex jump between worlds
    assert labels[(2, 0)] == "2,0 blue" and (3, 0) not in labels  # FTC-MOV-2: two hexes only between worlds
    assert all(v.piece == f"{v.value[0]},{v.value[1]}" for v in to.values)
    assert all("{" not in v.label for f in form.pieces[0].fields for v in f.values)
    # composed by the page and submitted once; decide validates it as any command
    body = compose(form, lambda f, i: [1, 0] if f.key == "to" and i == 0 else f.default)
    cmd = to_command(body, R.command_types)
    evs = when(R, st, cmd, RED)
    assert of(evs, E.OrdersSubmitted)[0].orders == (
        C.Order(group="red-0,0", to=(1, 0), posture="stand_off", route=False),
        C.Order(group="red-b", to=(0, 0), posture="stand_off", route=False),
    )
    st = fold(st, evs)
    assert R.forms(st, RED) == [], "sealed: no form until the next turn"
    assert R.forms(st, BLUE) and R.forms(st, SPECTATOR) == [] and R.forms(st, UMPIRE) == []


def test_ftc_mov_1_the_form_offers_blue_nothing_of_red() -> None:
    st = _camp()
    (form,) = R.forms(st, BLUE)
    text = msgspec.json.encode(form).decode()
    assert [p.piece for p in form.pieces] == ["blue-2,0"] and "red-" not in text


def test_options_stay_small_with_many_groups() -> None:
    camp = Camp().world((0, 0), "red").world((2, 0), "blue")
    for i in range(60):
        camp.ship("red", "scout", (0, 0), group=f"red-g{i}")
    st = camp.build()
    size = len(msgspec.json.encode({"options": R.options(st, RED), "forms": R.forms(st, RED)}))
    assert size <= 64 * 1024, size
    assert len(R.forms(st, RED)[0].pieces) == 60


def test_ftc_r_20_an_order_without_route_takes_the_charted_route_where_it_is_the_way() -> None:
    st = (
        Camp()
        .world((0, 0), "red", route=True)
        .world((3, 0), None, None, route=True)
        .route((0, 0), (3, 0))
        .ship("red", "dd", (0, 0))
        .build()
    )
    (form,) = R.forms(st, RED)
    to = {tuple(v.value): v.label for v in form.pieces[0].fields[0].values}
    assert to[(3, 0)] == "3,0 neutral by route"
    evs = when(R, st, C.SubmitOrders(orders=(C.Order(group="red-0,0", to=(3, 0)),)), RED)
    assert of(evs, E.OrdersSubmitted)[0].orders[0].route is True
    then_violation(R, st, C.SubmitOrders(orders=(C.Order(group="red-0,0", to=(3, 0), route=False),)), "FTC-MOV-2", RED)


def test_ftc_r_21_the_umpire_cannot_close_a_turn_nobody_has_ordered_in() -> None:
    st = _camp()
    assert not any(isinstance(o.command, C.CloseTurn) for o in R.options(st, UMPIRE))
    then_violation(R, st, C.CloseTurn(), "FTC-MOV-1", UMPIRE)
    # after the last player's orders resolve turn 1, turn 2 is not the umpire's to close before anyone orders
    for p in (RED, BLUE, GREEN):
        st = fold(st, when(R, st, C.SubmitOrders(), p))
    assert st.turn == 2 and st.phase == "orders"
    assert not any(isinstance(o.command, C.CloseTurn) for o in R.options(st, UMPIRE))
    then_violation(R, st, C.CloseTurn(), "FTC-MOV-1", UMPIRE)
    st = fold(st, when(R, st, C.SubmitOrders(), RED))
    close = next(o for o in R.options(st, UMPIRE) if isinstance(o.command, C.CloseTurn))
    assert close.label == "Close turn 2: blue, green hold"
    evs = when(R, st, close.command, UMPIRE)
    assert of(evs, E.OrdersRevealed)[0].missing == ("blue", "green")
    deploy = replace(st, phase="deployment")
    then_violation(R, deploy, C.CloseTurn(), "FTC-MOV-1", UMPIRE)


def test_status_names_the_umpire_duty_at_turn_zero() -> None:
    st = R.initial_state(R.parse_setup(R.scenarios()["three-powers"]))
    for viewer in (seat("eddie"), SPECTATOR, UMPIRE):
        status = R.draw(st, viewer).status
        assert status.umpire == "generate the star map (the players wait for it)"
        assert all(not s.must_act and "umpire" in s.why for s in status.seats)
    you = R.draw(st, seat("eddie")).status.you
    assert you is not None and you.why == "waiting for the umpire to generate the star map"
    nodes = R.draw(st, UMPIRE).board.nodes
    assert len(nodes) == 91 and all(n.detail == "empty space" for n in nodes)  # map_side 6, not diced yet


def test_status_says_who_must_seal_orders() -> None:
    st = fold(_camp(), when(R, _camp(), C.SubmitOrders(), RED))
    status = R.draw(st, BLUE).status
    assert status.phase_label == "Sealed orders, strategic turn 1" and status.sealed
    by_seat = {s.seat: s for s in status.seats}
    assert not by_seat["red"].must_act and by_seat["red"].why == "orders sealed; waiting for blue, green"
    assert by_seat["blue"].must_act and status.you == by_seat["blue"] and status.umpire is None


def test_drawing_shows_own_groups_and_only_enemies_in_sight() -> None:
    st = _camp()
    red = R.draw(st, RED)
    assert red.board.kind == "starmap" and len(red.board.nodes) == 91
    assert {p.id for p in red.pieces} == {"red-0,0", "red-b"} and all(p.mine for p in red.pieces)
    node = next(n for n in red.board.nodes if n.id == "2,0")
    assert node.owner == "blue" and "income" not in (node.detail or ""), "blue's income is blue's secret"
    own = next(n for n in red.board.nodes if n.id == "0,0")
    assert "income 50" in (own.detail or "")
    assert R.draw(st, SPECTATOR).pieces == ()
    assert {p.id for p in R.draw(st, UMPIRE).pieces} == {"red-0,0", "red-b", "blue-2,0"}
    # red moves next to blue's world... and into it: blue's group is then in sight, as red's forces saw it
    st = fold(st, when(R, st, C.SubmitOrders(orders=(C.Order(group="red-0,0", to=(2, 0), posture="stand_off"),)), RED))
    marker = next(m for m in R.draw(st, RED).markers if m.kind == "destination")
    assert marker.piece == "red-0,0" and marker.label == "red-0,0 to 2,0 (stand off)"
    assert not any(m.kind == "destination" for m in R.draw(st, BLUE).markers), "red's sealed order is red's"
    for p in (BLUE, GREEN):
        st = fold(st, when(R, st, C.SubmitOrders(), p))
    assert st.phase == "contacts"  # a stand-off at blue's world
    seen = {p.id: p for p in R.draw(st, RED).pieces}
    assert seen["blue-2,0"].status == "sighted" and not seen["blue-2,0"].mine and seen["blue-2,0"].side == "blue"
    assert "red-0,0" in {p.id for p in R.draw(st, BLUE).pieces}
    assert {p.id for p in R.draw(st, GREEN).pieces} == set(), "green's forces are not there"
    assert any(m.kind == "decision" for m in R.draw(st, RED).markers)
    assert not R.draw(st, GREEN).markers


def test_effects_follow_their_events_audience() -> None:
    st = _camp()
    st = fold(st, when(R, st, C.SubmitOrders(orders=(C.Order(group="red-0,0", to=(1, 0)),)), RED))
    for p in (BLUE, GREEN):
        st = fold(st, when(R, st, C.SubmitOrders(), p))
    arrivals = [e for e in R.draw(st, RED).effects if e.kind == "arrival"]
    assert [(e.text, e.target) for e in arrivals] == [("red-0,0 arrives at 1,0", "red-0,0")]
    assert arrivals[0].n > 0 and arrivals[0].rule == "FTC-MOV-1"
    assert not [e for e in R.draw(st, BLUE).effects if e.kind == "arrival"]
    assert not R.draw(st, SPECTATOR).effects


def test_status_of_a_battle_waiting_for_its_result_hand_entered_or_linked() -> None:
    from .test_arrival import arrive, battle_ready

    st, _ = arrive("attack", "attack", [2, 3, 4])
    st = battle_ready(st)
    b = st.battles[0]
    assert R.draw(st, UMPIRE).status.umpire == f"record the result of battle {b.id} at 0,0"
    assert R.draw(st, RED).status.you.why == f"waiting for the umpire to record battle {b.id}"  # type: ignore[union-attr]
    assert R.draw(st, GREEN).status.umpire is None, "green is not in it: the battle is not green's to know"
    linked = fold(st, [E.BattleLinked(battle=b.id, hex=b.hex, tactical_game_id="g_t", witnesses=("red", "blue"))])
    assert R.draw(linked, UMPIRE).status.umpire is None  # its result comes from the tactical game
    assert "linked tactical game g_t" in R.draw(linked, RED).status.you.why  # type: ignore[union-attr]
    assert not any(isinstance(o.command, C.RecordBattle) for o in R.options(linked, UMPIRE))
