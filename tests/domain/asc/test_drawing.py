"""The drawing contract for ASC (docs/view-contract.md): a hex board, pieces per viewer, what just happened
(effects with a folded counter), whose step it is in words, and the forms that compose sealed orders."""

from __future__ import annotations

import msgspec

from service.domain.asc.commands import CommitSensors, EndPhase, Fire, Move
from service.domain.core import SPECTATOR, UMPIRE
from service.domain.core.choices import compose, to_command

from .builders import ADV, DIS, R, duel, fire_phase, lock, phase, run, ship, state_of
from .play import start

OPTIONS_BUDGET = 64 * 1024


def test_board_pieces_and_bogeys_per_viewer() -> None:
    state = start("frigate-screen")
    mine = R.draw(state, ADV)
    assert (mine.board.kind, mine.board.orientation, mine.board.radius) == ("hex", "flat", 8)
    assert mine.board.facings == ("N", "NE", "SE", "S", "SW", "NW")
    ships = {p.id: p for p in mine.pieces if p.kind == "ship"}
    assert set(ships) == {"fs-aurore", "fs-belle-isle"} and all(p.mine for p in ships.values())
    assert ships["fs-aurore"].label == "FS Aurore" and ships["fs-aurore"].facing == 3
    assert [b.label for b in ships["fs-aurore"].bars] == ["hull", "power plant", "screen"]
    bogeys = [p for p in mine.pieces if p.kind == "bogey"]
    assert [(b.id, b.label, b.side, b.facing, (b.at.x, b.at.y)) for b in bogeys] == [
        ("bogey-1", "Bogey 1", None, None, (0.0, 4.0))
    ]
    # arcs: the viewer's own turrets (absolute hexsides x 60) and sensor ranges (detection needs < rating)
    fwd = next(a for a in mine.arcs if a.piece == "fs-aurore" and a.label.startswith("las-fwd"))
    assert (fwd.from_deg, fwd.to_deg, fwd.range) == (120.0, 240.0, 1)  # facing S (3): arcs 5,0,1 -> SE..SW
    sensor = next(a for a in mine.arcs if a.piece == "fs-aurore" and a.kind == "sensor")
    assert sensor.range == 4
    assert {a.piece for a in mine.arcs} == {"fs-aurore", "fs-belle-isle"}
    spectator = R.draw(state, SPECTATOR)
    assert all(p.kind == "bogey" and p.side is None for p in spectator.pieces) and not spectator.arcs
    umpire = R.draw(state, UMPIRE)
    assert {p.id for p in umpire.pieces} == {"fs-aurore", "fs-belle-isle", "sms-kaiser"}


def test_status_says_whose_step_it_is_and_that_commitments_are_sealed() -> None:
    state = start("frigate-screen")
    status = R.draw(state, ADV).status
    assert status.sealed and status.phase == "sensors" and status.phase_label == "Sensor commit (phase 1 of 6)"
    assert status.you is not None and status.you.must_act and status.you.why.startswith("your move: commit sensors")
    state, _ = run(state, CommitSensors(side="advantaged"), ADV)
    you = R.draw(state, ADV).status.you
    assert you is not None and not you.must_act and you.why == "committed; waiting for the German cruiser to commit"
    other = R.draw(state, DIS).status
    assert other.you is not None and other.you.must_act
    assert [s.must_act for s in other.seats] == [False, True]
    state, _ = run(state, CommitSensors(side="disadvantaged"), DIS)
    state, _ = run(state, EndPhase(side="advantaged"), ADV)
    state, _ = run(state, EndPhase(side="disadvantaged"), DIS)
    assert state.phase == "disadvantaged_movement"
    adv = R.draw(state, ADV).status
    assert adv.you is not None and not adv.you.must_act and adv.you.why == "waiting for the German cruiser to move"
    assert not adv.sealed


def test_status_says_why_ending_the_phase_is_all_a_seat_can_do() -> None:
    """ASC-FIRE-2/4: with no locked enemy in reach, the fire phase asks only for the phase to be ended."""
    far = state_of(duel(bravo={"hex": [0, 4]}), phase("fire"))
    you = R.draw(far, ADV).status.you
    assert you is not None and you.must_act
    assert you.why == "your move: end the phase (no weapon bears on a detected, locked enemy within one hex)"
    near = state_of(duel(), lock("alpha", "bravo"), phase("fire"))
    you = R.draw(near, ADV).status.you
    assert you is not None and you.why.startswith("your move: declare fire")


def test_effects_show_fire_hits_and_damage_once_each_with_a_counter() -> None:
    """ASC-FIRE-1: shots resolve together; the drawing shows each shot, its hit and the damage taken, to
    each viewer as far as it may see them (ASC-R-18: the struck side sees an unseen firer as a bogey)."""
    state = fire_phase(duel(), lock("alpha", "bravo"))
    state, _ = run(state, Fire(vessel="alpha", weapon="las", target="bravo"), ADV)
    plan = [t for t in R.draw(state, ADV).tracks if t.kind == "plan"]
    assert len(plan) == 1 and plan[0].piece == "alpha"  # the declaring side sees its sealed declaration
    assert not [t for t in R.draw(state, DIS).tracks if t.kind == "plan"]  # the other side does not
    state, _ = run(state, EndPhase(side="advantaged"), ADV)
    state, _ = run(state, EndPhase(side="disadvantaged"), DIS, dice=[8, 1])  # to hit 8, location 1 = hull

    def shown(viewer):  # type: ignore[no-untyped-def]
        return [(e.kind, e.source, e.target, e.amount) for e in R.draw(state, viewer).effects if e.kind != "lock"]

    assert shown(ADV) == [("fire", "alpha", "bravo", None), ("hit", "alpha", "bravo", 1), ("damage", None, "bravo", 1)]
    token = state.tokens["disadvantaged"]["alpha"]
    assert shown(DIS) == [("fire", token, "bravo", None), ("hit", token, "bravo", 1), ("damage", None, "bravo", 1)]
    spectator_token = state.tokens["spectator"]["alpha"]
    assert shown(SPECTATOR)[0] == ("fire", spectator_token, "bravo", None)
    effects = [e for e in R.draw(state, ADV).effects if e.kind != "lock"]
    assert [e.n for e in effects] == sorted({e.n for e in effects}) and effects[1].text == "hit: 1 damage"
    # two phases on, the shots are gone from the drawing
    state, _ = run(state, EndPhase(side="advantaged"), ADV)
    state, _ = run(state, EndPhase(side="disadvantaged"), DIS)
    state, _ = run(state, CommitSensors(side="advantaged"), ADV)
    state, _ = run(state, CommitSensors(side="disadvantaged"), DIS)
    assert R.draw(state, DIS).effects == ()


def test_moves_are_tracked_and_a_bogey_shows_only_where_it_went() -> None:
    state = state_of(duel(alpha={"hex": [0, 3]}, bravo={"hex": [0, -3]}), phase("advantaged_movement"))
    state, _ = run(state, Move(vessel="alpha", path=("F", "F")), ADV)
    own = R.draw(state, ADV).tracks
    assert [(t.piece, [(p.x, p.y) for p in t.points]) for t in own] == [("alpha", [(0.0, 3.0), (0.0, 2.0), (0.0, 1.0)])]
    other = R.draw(state, DIS).tracks
    token = state.tokens["disadvantaged"]["alpha"]
    assert [(t.piece, [(p.x, p.y) for p in t.points], t.label) for t in other] == [
        (token, [(0.0, 3.0), (0.0, 1.0)], f"Bogey {token.split('-')[1]} moved")
    ]


def test_forms_compose_the_sealed_commit_per_vessel() -> None:
    """ASC-SEQ-2: each vessel's sensors and screen in one composed commitment (no combinations listed)."""
    state = start("frigate-screen")
    (form,) = R.forms(state, ADV)
    assert form.command == "asc.commit_sensors" and form.list_key == "vessels" and form.fixed == {"side": "advantaged"}
    assert [pc.piece for pc in form.pieces] == ["fs-aurore", "fs-belle-isle"]
    fields = {f.key: f for f in form.pieces[0].fields}
    assert [v.value for v in fields["active"].values] == [False, True]
    assert [v.value for v in fields["screen"].values] == [0, 1, 2]

    def pick(field, index):  # type: ignore[no-untyped-def]
        return {"active": index == 0, "screen": 2 if index == 1 else 0}[field.key]

    body = compose(form, pick)
    assert body == {
        "type": "asc.commit_sensors",
        "side": "advantaged",
        "vessels": [
            {"vessel": "fs-aurore", "active": True, "screen": 0},
            {"vessel": "fs-belle-isle", "active": False, "screen": 2},
        ],
    }
    state, events = run(state, to_command(body, R.command_types), ADV)
    assert [(e.vessel, e.active, e.screen) for e in state.commits["advantaged"]] == [
        ("fs-aurore", True, 0),
        ("fs-belle-isle", False, 2),
    ]
    assert R.forms(state, ADV) == [] and all(
        o.command != CommitSensors(side="advantaged") for o in R.options(state, ADV)
    )


def test_a_free_move_is_a_hex_path_within_the_allowance() -> None:
    """ASC-MOV-2: the move form is a hex path from the vessel's hex, costed by the allowance and class."""
    state = state_of(duel(alpha={"hex": [0, 3]}, bravo={"hex": [0, -3]}), phase("advantaged_movement"))
    move = next(f for f in R.forms(state, ADV) if f.command == "asc.move")
    (path, facing) = move.pieces[0].fields
    assert path.kind == "hexpath" and path.limits["start"] == [0, 3] and path.limits["max_cost"] == 3
    assert path.limits["turn_cost"] == 1.0 and path.limits["facing"] == 0
    body = {"type": "asc.move", "vessel": "alpha", "hexes": [[0, 2], [1, 1]]}  # forward, turn NE (1 point), forward
    state2, events = run(state, to_command(body, R.command_types), ADV)
    assert events[0].path == ("F", "R", "F") and state2.status["alpha"].hex.q == 1
    too_far = {"type": "asc.move", "vessel": "alpha", "hexes": [[0, 2], [1, 1], [2, 0]]}
    from tests.support.decider import then_violation

    err = then_violation(R, state, to_command(too_far, R.command_types), "ASC-MOV-2", ADV)
    assert "costs 4" in err.detail
    gap = {"type": "asc.move", "vessel": "alpha", "hexes": [[0, 1]]}
    err = then_violation(R, state, to_command(gap, R.command_types), "ASC-MOV-2", ADV)
    assert "not adjacent" in err.detail
    assert facing.required is False and facing.values[0].value is None


def test_fire_forms_offer_each_weapon_its_targets_with_the_odds() -> None:
    three = ship("charlie", "disadvantaged", hex=[0, -1])
    state = fire_phase(duel(extra=[three]), lock("alpha", "bravo"), lock("alpha", "charlie"))
    forms = R.forms(state, ADV)
    (las,) = [f for f in forms if f.pieces[0].fixed == {"weapon": "las"}]
    values = las.pieces[0].fields[0].values
    assert [(v.value, v.label) for v in values] == [
        ("bravo", "The Bravo: hit on 7+ (40%)"),
        ("charlie", "The Charlie: hit on 9+ (20%)"),
    ]
    assert all(
        len(msgspec.json.encode({"options": R.options(state, v), "forms": R.forms(state, v)})) < OPTIONS_BUDGET
        for v in (ADV, DIS, SPECTATOR, UMPIRE)
    )
