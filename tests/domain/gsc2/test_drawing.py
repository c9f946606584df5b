"""The drawing contract for GSC2 (docs/view-contract.md): board, pieces, arcs, tracks, effects, status; labelled
options and the free-move form."""

from __future__ import annotations

import random

import msgspec

from service.domain.core import SPECTATOR, seat
from service.domain.core.choices import Option, compose, to_command
from service.domain.gsc2 import commands as C
from service.testing.randomplay import play

from .helpers import BLUE, RED, UMPIRE, R, apply, at_phase, beam, scenario, ship, started, when

OPTIONS_BUDGET = 64 * 1024


def _duel_at_beams():
    raw = scenario(
        ship("a", "red", x=10, y=10, beams=[beam(arc="F", weapons=2, damage=2)]),
        ship("b", "blue", x=10, y=20, heading=180, beams=[beam(arc="T")]),
    )
    return at_phase(started(raw, [9, 1]), "beams")


def test_board_and_pieces_are_drawn_in_page_coordinates() -> None:
    st = started(R.scenarios()["duel"], [9, 1])
    d = R.draw(st, RED)
    assert (d.board.kind, d.board.units, d.board.width, d.board.height) == ("plane", "inches", 48, 48)
    hood = next(p for p in d.pieces if p.id == "hood")
    bismarck = next(p for p in d.pieces if p.id == "bismarck")
    # the game's y runs up the table, the page's down: Hood (y 6, heading 0 = towards Bismarck) is drawn low
    assert (hood.at.x, hood.at.y, hood.facing) == (24, 42, 0) and (bismarck.at.y, bismarck.facing) == (6, 180)
    assert hood.mine and not bismarck.mine and hood.label == "Hood" and hood.side == "red"
    assert [(b.label, b.value, b.max) for b in hood.bars] == [("Hull", 24, 24), ("Shields", 3, 3), ("Crew", 40, 40)]
    assert d.sides == ("red", "blue")
    assert not any(p.mine for p in R.draw(st, SPECTATOR).pieces)
    rocks = R.draw(started(R.scenarios()["fleet-action"], [9, 1]), RED).pieces
    rock = next(p for p in rocks if p.id == "rock1")
    assert rock.kind == "terrain" and rock.side is None and rock.size == 2 and rock.label == "Asteroid rock1"


def test_arcs_are_the_viewers_batteries_with_their_normal_range() -> None:
    st = started(R.scenarios()["duel"], [9, 1])
    arcs = R.draw(st, RED).arcs
    assert {a.piece for a in arcs} == {"hood"}
    heavy = next(a for a in arcs if "heavy beam battery" in a.label)
    assert (heavy.from_deg, heavy.to_deg, heavy.range) == (-90, 90, 36)  # FS: forward 180°
    assert {a.piece for a in R.draw(st, UMPIRE).arcs} == {"hood", "bismarck"}
    assert R.draw(st, SPECTATOR).arcs == ()


def test_status_says_who_must_act_and_why_the_other_waits() -> None:
    st = started(R.scenarios()["duel"], [9, 1])  # red won the roll-off
    d = R.draw(st, BLUE).status
    assert d.you is not None and not d.you.must_act and "waiting for red" in d.you.why
    assert R.draw(st, RED).status.you.must_act and "second player" in R.draw(st, RED).status.you.why
    assert d.phase_label == "Movement (phase 1 of 5)" and d.turn == 1
    st = _duel_at_beams()
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED, []))
    red = R.draw(st, RED).status.you
    assert red is not None and not red.must_act and red.why == "red has ended the beams phase; waiting for blue"


def test_effects_show_fire_hits_and_damage_once_each_and_outlive_the_phase_change() -> None:
    """GSC2-BEAM-1/3, GSC2-DMG-1: the fire is drawn when rolled, damage when the phase resolves."""
    st = _duel_at_beams()
    st = apply(R, st, when(R, st, C.Fire(ship="a", battery="b1", target="b"), RED, [1]))
    fx = R.draw(st, SPECTATOR).effects
    assert [(e.kind, e.source, e.target) for e in fx] == [("fire", "a", "b"), ("hit", "a", "b")]
    assert fx[1].text.startswith("hit: rolled 1") and [e.n for e in fx] == [1, 2]
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED, []))
    # both weapons' 2 damage: shields 0 so each may roll an armor save (4 - 2 = 2): 9, 9 fail; chart 1, 1
    st = apply(R, st, when(R, st, C.EndPhase(side="blue"), BLUE, [9, 1, 9, 1]))
    assert st.phase == "boarding"
    fx = R.draw(st, BLUE).effects
    damage = next(e for e in fx if e.kind == "damage")
    assert damage.target == "b" and damage.amount == 4 and damage.text == "4 hull damage" and damage.n == 3
    assert [e.text for e in fx if e.kind == "system"] == ["drive damaged", "drive damaged"]
    st = apply(R, st, when(R, st, C.EndPhase(side="red"), RED, []))
    st = apply(R, st, when(R, st, C.EndPhase(side="blue"), BLUE, []))
    assert st.phase == "repairs" and R.draw(st, RED).effects == ()  # two phases later: gone


def test_tracks_show_this_turns_moves() -> None:
    st = started(scenario(ship("a", "red", x=10, y=10), ship("b", "blue", x=30, y=30)), [9, 1])
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    st = apply(R, st, when(R, st, C.Move(ship="a", legs=(C.Leg(distance=4), C.Leg(turn=45, distance=2))), RED))
    [track] = R.draw(st, BLUE).tracks
    assert track.kind == "move" and track.piece == "a" and track.label == 'A moved 6"'
    assert [(round(p.x, 3), round(p.y, 3)) for p in track.points] == [(10, 38), (10, 34), (11.414, 32.586)]


def test_free_move_form_builds_any_legal_leg_sequence() -> None:
    """GSC2-MOV-3 through a form: the page sends {"legs": [{"turn": 0, "distance": 5.5}]}."""
    st = started(scenario(ship("a", "red", x=10, y=10), ship("b", "blue", x=30, y=30)), [9, 1])
    st = apply(R, st, when(R, st, C.ChooseOrder(side="red", leader="red"), RED))
    assert R.forms(st, BLUE) == [] and R.forms(st, SPECTATOR) == [] and R.forms(st, UMPIRE) == []
    [form] = R.forms(st, RED)
    [legs] = form.pieces[0].fields
    assert legs.kind == "legs" and form.pieces[0].piece == "a"
    lim = legs.limits
    figures = (lim["max_distance_left"], lim["free_turn_after"], lim["paid_turn_cost"], lim["turn_degrees"])
    assert figures == (8, 4, 4, 45)
    assert lim["start"] == {"x": 10, "y": 38} and lim["edge_ahead"] == 38 and not lim["end_of_move_turn"]
    body = compose(form, lambda f, i: [{"turn": 0, "distance": 5.5}])
    assert body == {"type": "gsc2.move", "ship": "a", "legs": [{"turn": 0, "distance": 5.5}]}
    [ev, _] = when(R, st, to_command(body, R.command_types), RED)
    assert ev.distance == 5.5 and ev.path[-1].y == 15.5


def test_options_are_labelled_in_words_with_piece_target_group_and_rule() -> None:
    st = _duel_at_beams()
    [fire, end] = R.options(st, RED)
    assert isinstance(fire, Option) and fire.command == C.Fire(ship="a", battery="b1", target="b")
    # targeting 5, light beam at 10" (normal range), target did not move +2
    assert fire.label == 'A: b1 (2×2) at B, 10" (hits on ≤ 7)'
    assert (fire.piece, fire.target, fire.group, fire.rule) == ("a", "b", "fire", "GSC2-BEAM-3")
    assert end.label == "End the beams phase" and end.group == "phase"
    assert R.options(st, UMPIRE)[0].group == "umpire" and R.options(st, SPECTATOR) == []


def test_options_stay_small_in_every_state_of_random_fleet_actions() -> None:
    """Issue 16: /options ≤ 64 KiB for every seat at any state (fleet-action is the biggest sample)."""
    raw = R.scenarios()["fleet-action"]
    biggest = 0
    for s in range(3):
        game = play(R, raw, seed=s, max_steps=400)
        for step in game.steps:
            for viewer in (seat("red"), seat("blue"), UMPIRE):
                options, forms = R.options(step.state_after, viewer), R.forms(step.state_after, viewer)
                assert all("{" not in o.label for o in options)
                biggest = max(biggest, len(msgspec.json.encode({"options": options, "forms": forms})))
    assert 0 < biggest <= OPTIONS_BUDGET


def test_every_drawing_of_a_random_game_encodes() -> None:
    raw = R.scenarios()["boarding-action"]
    game = play(R, raw, seed=5, max_steps=300)
    rng = random.Random(1)
    for step in rng.sample(game.steps, min(30, len(game.steps))):
        for viewer in (RED, BLUE, UMPIRE, SPECTATOR):
            d = R.draw(step.state_after, viewer)
            assert len({p.id for p in d.pieces}) == len(d.pieces)
            msgspec.json.encode(d)
