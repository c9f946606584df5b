"""The drawing contract for Starfinder (docs/view-contract.md): pieces, arcs, tracks, effects, and who must act
and why in words; labelled options and the helm and gunnery forms."""

from __future__ import annotations

import msgspec

from service.domain.core import SPECTATOR, RuleViolation
from service.domain.core.choices import compose, to_command
from service.domain.core.drawing import Drawing

from .helpers import UMPIRE, A, B, C, E, R, apply, at, duel, of, then_violation, when

OFF = {"battle_stations": False}


def _status(drawing: Drawing, seat_id: str) -> tuple[bool, str]:
    [s] = [s for s in drawing.status.seats if s.seat == seat_id]
    return s.must_act, s.why


def test_gunners_are_told_why_they_wait_for_battle_stations() -> None:
    """SF-R-13, SF-ROLE-5: a gunner whose ship has not declared battle stations hears why it waits."""
    st = at(duel(OFF, OFF), "helm")
    must, why = _status(R.draw(st, A["gunner"]), "a/gunner")
    assert not must
    assert why.startswith("battle stations have not been declared: gunners act in the gunnery phase once a is at")
    # its turn in gunnery: it must act, is told to declare, and is offered battle stations and pass, no shot yet
    g = at(duel(OFF, OFF), "gunnery")
    drawing = R.draw(g, A["gunner"])
    assert drawing.status.you is not None and drawing.status.you.must_act
    assert "battle stations have not been declared: declare them, then fire" in drawing.status.you.why
    groups = [o.group for o in R.options(g, A["gunner"])]
    assert "crew" in groups and "phase" in groups and "fire" not in groups
    assert R.forms(g, A["gunner"]) == []
    g = apply(R, g, when(R, g, C.BattleStations(seat="a/gunner"), A["gunner"]))
    shots = [o for o in R.options(g, A["gunner"]) if o.group == "fire"]
    [laser] = shots
    assert laser.piece == "a" and laser.target == "b" and laser.rule == "SF-GUN-6"
    # d20 + 4 (gunner) vs AC 12 (10 + 2 pilot ranks): a roll of 8 or more hits
    assert laser.label == "Fire laser at b (forward arc, range 4; AC 12, hit on a d20 roll of 8+; 2d4)"


def test_the_header_names_the_ship_and_role_that_must_act() -> None:
    """SF-R-3: the phase label names who the game waits for; every seat has a status."""
    st = at(duel(), "helm", order=("b", "a"))
    drawing = R.draw(st, SPECTATOR)
    assert drawing.status.phase_label == (
        "Round 1 · Helm (phase 2 of 3) · b's turn · waiting for b's captain, b's pilot, b's science officer"
    )
    assert drawing.status.you is None and drawing.status.umpire is None
    assert {s.seat for s in drawing.status.seats} == set(R.seats(R.parse_setup(_raw())))
    assert _status(drawing, "a/pilot") == (
        False,
        "waiting for b's turn in the helm order; a's turn comes later (SF-HELM-4)",
    )
    assert _status(drawing, "a/engineer")[1] == (
        "the engineer acts in the engineering phase (next round); now: helm (SF-ROLE-2)"
    )
    assert _status(drawing, "b/pilot")[0]


def _raw() -> dict:
    from .helpers import scenario, ship

    return scenario(ship("a", "pact"), ship("b", "corsairs", hex=(0, -4), facing=3))


def test_pieces_bars_arcs_and_mine() -> None:
    st = duel()
    mine = R.draw(st, A["pilot"])
    [a, b] = mine.pieces
    assert (a.id, a.kind, a.side, a.facing, a.mine, b.mine) == ("a", "ship", "pact", 0, True, False)
    assert (a.at.x, a.at.y, b.at.x, b.at.y) == (0, 0, 0, -4)
    assert [(x.label, x.value, x.max) for x in a.bars][:2] == [("hull", 30, 30), ("forward shields", 5, 5)]
    assert mine.board.kind == "hex" and mine.board.orientation == "flat" and mine.board.facings[0] == "N"
    # the viewer's weapons only: the forward laser of a ship facing N spans -60..60 degrees, short range 5
    assert [(x.piece, x.from_deg, x.to_deg, x.range) for x in mine.arcs] == [("a", -60, 60, 5)]
    # b faces S (facing 3): its forward arc is 120..240 degrees
    assert [(x.piece, x.from_deg, x.to_deg) for x in R.draw(st, UMPIRE).arcs] == [("a", -60, 60), ("b", 120, 240)]
    assert not any(p.mine for p in R.draw(st, SPECTATOR).pieces)


def test_shots_hits_damage_and_shields_are_effects_counted_once() -> None:
    """Effects: the shot, the hit and, at the end of the gunnery phase, shield and hull damage (SF-GUN-1)."""
    st = at(duel(), "gunnery")
    st = apply(R, st, when(R, st, C.Fire(seat="a/gunner", weapon="laser", target="b"), A["gunner"], [15, 4, 4]))
    effects = R.draw(st, SPECTATOR).effects
    assert [(e.kind, e.source, e.target) for e in effects] == [("fire", "a", "b"), ("hit", "a", "b")]
    assert effects[1].amount == 8 and [e.n for e in effects] == [1, 2]
    st = apply(R, st, when(R, st, C.Pass(seat="a/captain"), A["captain"]))
    st = apply(R, st, when(R, st, C.Fire(seat="b/gunner", weapon="laser", target="a"), B["gunner"], [2]))
    evs = when(R, st, C.Pass(seat="b/captain"), B["captain"])
    st = apply(R, st, evs)
    assert of(evs, E.RoundStarted)  # the round ended: damage applied, engineering again
    kinds = [(e.n, e.kind, e.target, e.amount) for e in R.draw(st, A["pilot"]).effects]
    assert kinds == [
        (1, "fire", "b", None),
        (2, "hit", "b", 8),
        (3, "fire", "a", None),
        (4, "miss", "a", None),
        (5, "shields", "b", -5),
        (6, "damage", "b", 3),
    ]
    assert st.ships["b"].hull == 27


def test_helm_moves_are_tracks_for_the_round() -> None:
    st = at(duel(b_hex=(6, 0)), "helm")
    st = apply(R, st, when(R, st, C.Move(seat="a/pilot", path="FFRF"), A["pilot"]))
    [track] = R.draw(st, SPECTATOR).tracks
    assert track.kind == "move" and track.piece == "a"
    assert [(p.x, p.y) for p in track.points] == [(0, 0), (0, -1), (0, -2), (1, -3)]


def test_the_helm_form_composes_a_move_hex_by_hex() -> None:
    """SF-MOV-1/2: a move named by the hexes entered; decide checks it like any path."""
    st = at(duel(b_hex=(6, 0)), "helm")
    forms = {f.command: f for f in R.forms(st, A["pilot"])}
    move = forms["starfinder.move"]
    [piece] = move.pieces
    assert piece.piece == "a/pilot" and move.piece_key == "seat"
    hexes = piece.fields[0]
    assert hexes.kind == "hexpath" and hexes.limits["start"] == [0, 0] and hexes.limits["max_cost"] == 8

    def pick(field, _i):
        return [[0, -1], [0, -2], [1, -3]] if field.key == "hexes" else None  # no turn after the last hex

    body = compose(move, pick)
    assert body == {"type": "starfinder.move", "seat": "a/pilot", "hexes": [[0, -1], [0, -2], [1, -3]]}
    cmd = to_command(body, R.command_types)
    [m] = of(when(R, st, cmd, A["pilot"]), E.ShipMoved)
    assert (m.path[-1].q, m.path[-1].r, m.facing, m.turns) == (1, -3, 1, 1)
    # a final facing is the turns after the last hex: one more turn right after a turn is too soon
    then_violation(R, st, C.Move(seat="a/pilot", hexes=((0, -1), (0, -2), (1, -3)), facing=2), "SF-MOV-2", A["pilot"])
    # a hex that is not next to the last one, and a turn too soon for average manoeuvrability
    then_violation(R, st, C.Move(seat="a/pilot", hexes=((0, -2),)), "SF-MOV-1", A["pilot"])
    then_violation(R, st, C.Move(seat="a/pilot", hexes=((0, -1), (1, -2))), "SF-MOV-2", A["pilot"])
    then_violation(R, st, C.Move(seat="a/pilot", path="F", hexes=((0, -1),)), "SF-MOV-1", A["pilot"])
    assert set(forms) >= {"starfinder.evade", "starfinder.slide", "starfinder.turn_in_place", "starfinder.flyby"}


def test_the_fire_form_and_every_option_are_accepted_and_small() -> None:
    st = at(duel(), "gunnery")
    [form] = R.forms(st, A["gunner"])
    body = compose(form)
    assert body == {"type": "starfinder.fire", "seat": "a/gunner", "weapon": "laser", "target": "b"}
    assert of(when(R, st, to_command(body, R.command_types), A["gunner"], [1]), E.Attacked)
    for viewer in (UMPIRE, *A.values(), *B.values()):
        options = R.options(st, viewer)
        assert len(msgspec.json.encode({"options": options, "forms": R.forms(st, viewer)})) < 64 * 1024
        for o in options:
            assert o.label and "{" not in o.label
            try:
                R.decide(st, o.command, viewer if viewer.kind == "seat" else UMPIRE, _dice())
            except RuleViolation as exc:  # pragma: no cover - the assertion names the refused option
                raise AssertionError(f"{o.label}: {exc.rule} {exc.detail}") from exc


def _dice():
    from service.domain.core import Dice

    return Dice(b"drawing", "g_test", 1)
