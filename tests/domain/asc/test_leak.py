"""ASC-HID-1 / ASC-HID-2: random legal games leak nothing to a side or a spectator, and fold exactly.

After every event, for each side and the spectator, the JSON of the state view, its drawing, the redacted
event (and its explanation), the options and forms, and the details of errors raised for that seat must not
contain the identity (id or name) of any vessel that viewer has not detected, bogeys carry only a token and a
hex, enemy screen settings never show, and an unrevealed sensor commitment shows no content.
"""

from __future__ import annotations

import json

import msgspec
import pytest

from service.domain.asc import RULESET as R
from service.domain.asc.commands import AllStop, Detect, Fire, LockOn, Move, Repair
from service.domain.asc.events import DetectionAttempted, SensorsCommitted, ShotResolved
from service.domain.asc.state import State
from service.domain.core import SPECTATOR, UMPIRE, Dice, NotYourPiece, RuleViolation, Viewer, seat
from service.domain.core.choices import compose, to_command
from tests.support.asc_sight import seen as sight_oracle

from .play import SIDES, command_decoder, event_decoder, random_game, start

VIEWERS = (seat("advantaged"), seat("disadvantaged"), SPECTATOR)


def seen(state: State, viewer: Viewer) -> set[str]:
    """Independent oracle (tests/support/asc_sight.py): what a viewer may identify."""
    return sight_oracle(state, viewer.seat if viewer.kind == "seat" else "spectator")


def assert_no_leak(text: str, state: State, hidden: set[str], where: str) -> None:
    for vid in hidden:
        assert f'"{vid}"' not in text and f"{vid}'" not in text and f" {vid}" not in text, (where, vid, text[:800])
        assert state.specs[vid].name not in text, (where, vid, text[:800])


def check_view(state: State, viewer: Viewer, hidden: set[str]) -> None:
    v = R.view(state, viewer)
    text = json.dumps(v)
    assert_no_leak(text, state, hidden, f"view for {viewer.label}")
    for b in v["bogeys"]:
        assert set(b) == {"bogey", "hex"}
    for vessel in v["vessels"]:
        if viewer.kind != "seat" or vessel["side"] != viewer.seat:
            assert "screen" not in vessel["status"], "screen setting of another side shown"
            assert "passive_signature" not in vessel["derived"]
    if viewer.kind == "seat":
        assert all(
            e["vessel"] in state.specs and state.specs[e["vessel"]].side == viewer.seat for e in v["my_commitment"]
        )
    assert "commitments" not in v and "fire_declarations" not in v
    check_drawing(state, viewer, hidden)


def check_drawing(state: State, viewer: Viewer, hidden: set[str]) -> None:
    """The drawing names nothing hidden: bogeys are "Bogey N" with no side or facing, and every piece,
    effect, track and marker refers only to vessels the viewer may see (or to bogey tokens)."""
    drawing = R.draw(state, viewer)
    assert_no_leak(msgspec.json.encode(drawing).decode(), state, hidden, f"draw for {viewer.label}")
    obs = viewer.seat if viewer.kind == "seat" else "spectator"
    tokens = {t: vid for vid, t in state.tokens.get(obs, {}).items()}
    ids = {p.id for p in drawing.pieces}
    for p in drawing.pieces:
        if p.kind == "bogey":
            assert p.id in tokens and p.side is None and p.facing is None and not p.bars and not p.mine
            assert p.label == "Bogey " + p.id.split("-")[1]
            assert (p.at.x, p.at.y) == (state.status[tokens[p.id]].hex.q, state.status[tokens[p.id]].hex.r)
        elif p.kind != "terrain":
            assert p.id in state.specs and p.id not in hidden
            assert p.mine == (state.specs[p.id].side == viewer.seat)
            if state.specs[p.id].side != viewer.seat:
                assert not any(b.label == "screen" for b in p.bars), "enemy screen setting drawn"
    refs = (
        [x for e in drawing.effects for x in (e.source, e.target)]
        + [t.piece for t in drawing.tracks]
        + [m.piece for m in drawing.markers]
        + [a.piece for a in drawing.arcs]
    )
    for r in refs:
        assert r is None or r in tokens or (r in state.specs and r not in hidden), (viewer.label, r)
    for a in drawing.arcs:
        assert a.piece in ids and state.specs[a.piece].side == viewer.seat, "arcs only of the viewer's own vessels"
    for t in drawing.tracks:
        if t.kind == "plan":
            assert t.piece is not None and state.specs[t.piece].side == viewer.seat, "a sealed declaration drawn"
    for e in drawing.effects:
        if e.kind == "undetected":
            assert e.source is not None and state.specs[e.source].side == viewer.seat, "another side's failure"
    you = drawing.status.you
    if viewer.kind == "seat" and not state.over:
        assert you is not None and you.seat == viewer.seat and you.why
    assert drawing.status.sealed == (state.phase in ("sensors", "fire"))


def check_event(event, state: State, viewer: Viewer, hidden: set[str]) -> None:  # type: ignore[no-untyped-def]
    red = R.redact(event, viewer, state)
    if red is None:
        return
    text = msgspec.json.encode(red).decode()
    assert_no_leak(text, state, hidden, f"event {type(event).__name__} for {viewer.label}")
    assert_no_leak(json.dumps(R.explain(red)), state, hidden, f"explain {type(event).__name__}")
    if isinstance(red, SensorsCommitted) and red.side != viewer.seat:
        assert red.entries is None, "unrevealed commitment leaked"
    if isinstance(red, DetectionAttempted) and event.vessel in hidden:
        assert red.rolls == () and red.sensor is None and red.rating == 0
    if isinstance(red, ShotResolved) and event.vessel in hidden:
        assert not any(r.rule.startswith("ASC-FIRE") for r in red.rolls) and red.weapon is None
    if isinstance(red, ShotResolved) and event.target and state.specs[event.target].side != viewer.seat:
        assert red.screen_after is None
        assert all(r.target is None for r in red.rolls if r.rule.startswith("ASC-SCR"))


# commands naming a vessel as the piece they act for, in every phase (the whose-piece refusal comes first)
PROBES = (
    lambda v: Move(vessel=v, path=("F",)),
    lambda v: AllStop(vessel=v, facing=0),
    lambda v: Detect(vessel=v, sensor="x", target="bogey-1"),
    lambda v: LockOn(vessel=v, target="x"),
    lambda v: Fire(vessel=v, weapon="x", target="x"),
    lambda v: Repair(vessel=v, locations=("drive",)),
)


def check_errors(state: State, viewer: Viewer, hidden: set[str]) -> None:
    """Errors for a hidden id read exactly like errors for an unknown id."""
    if viewer.kind != "seat" or state.over:
        return
    mine = [v for v in state.specs if state.specs[v].side == viewer.seat and not state.status[v].destroyed]
    for vid in sorted(hidden)[:3]:
        for shape in PROBES:
            refusals = []
            for probe in (vid, "zz-no-such-vessel"):
                with pytest.raises(NotYourPiece) as info:
                    R.decide(state, shape(probe), viewer, Dice(b"x", "g", 1))
                exc = info.value
                refusals.append((exc.rule, exc.code, exc.status, exc.detail))
            assert refusals[0] == refusals[1], f"a hidden id is refused differently from an unknown one: {refusals}"
            assert vid not in refusals[0][3]
        if mine and state.specs[mine[0]].turrets:
            details = []
            for probe in (vid, "zz-no-such-vessel"):
                cmd = Fire(vessel=mine[0], weapon=state.specs[mine[0]].turrets[0].id, target=probe)
                try:
                    R.decide(state, cmd, viewer, Dice(b"x", "g", 1))
                except RuleViolation as exc:
                    details.append((exc.rule, exc.detail.replace(probe, "?"), type(exc)))
                    assert_no_leak(json.dumps(exc.detail.replace(repr(probe), "")), state, hidden, "error")
            assert len(details) == 2 and details[0] == details[1], details


@pytest.mark.parametrize("scenario", ["frigate-screen", "ambush", "carrier-strike"])
@pytest.mark.parametrize("seed", range(3))
def test_random_games_leak_nothing_and_fold(scenario: str, seed: int) -> None:
    state = start(scenario)
    log = []
    enc = msgspec.json.Encoder()
    cmd_dec, ev_dec = command_decoder(), event_decoder()
    for live, cmd, _actor, events in random_game(scenario, seed):
        assert cmd_dec.decode(enc.encode(cmd)) == cmd
        for e in events:
            state = R.evolve(state, e)
            log.append(e)
            for viewer in VIEWERS:
                hidden = set(state.specs) - seen(state, viewer)
                check_event(e, state, viewer, hidden)
                check_view(state, viewer, hidden)
        assert state == live
        for viewer in VIEWERS:
            hidden = set(state.specs) - seen(state, viewer)
            opts, forms = R.options(state, viewer), R.forms(state, viewer)
            assert_no_leak(enc.encode(opts).decode(), state, hidden, f"options for {viewer.label}")
            assert_no_leak(enc.encode(forms).decode(), state, hidden, f"forms for {viewer.label}")
            for form in forms:
                for pc in form.pieces:
                    assert state.specs[pc.piece].side == viewer.seat, "a form for a vessel not the seat's own"
                    for fld in pc.fields:
                        assert all(v.piece is None or v.piece not in hidden for v in fld.values)
            check_errors(state, viewer, hidden)
        assert R.options(state, SPECTATOR) == [] and R.forms(state, SPECTATOR) == []
    assert R.is_over(state), "random game did not finish"
    # replay: decode the stored JSON and fold again; the state survives a JSON snapshot round trip
    replayed = start(scenario)
    for raw in (enc.encode(e) for e in log):
        replayed = R.evolve(replayed, ev_dec.decode(raw))
    assert replayed == state
    assert msgspec.json.decode(enc.encode(state), type=State) == state
    assert R.view(state, UMPIRE)["over"] is True


def test_options_are_all_accepted_on_a_sample() -> None:
    """Every option offered (not only the one chosen), and every form filled with its defaults, is
    accepted by decide() (ASC-SEQ-1)."""
    checked = composed = 0
    for state, _, _, _ in random_game("ambush", 11, max_commands=120):
        for side in SIDES:
            for option in R.options(state, seat(side))[:25]:
                R.decide(state, option.command, seat(side), Dice(b"opt", "g", 1))
                checked += 1
            for form in R.forms(state, seat(side)):
                R.decide(state, to_command(compose(form), R.command_types), seat(side), Dice(b"opt", "g", 1))
                composed += 1
    assert checked > 200 and composed > 50
