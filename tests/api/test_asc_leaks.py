"""ASC-HID-1 / ASC-HID-2 through the real API: random legal games leak nothing to a side or a spectator.

Commands are drawn from each seat's GET /options (the umpire forces the phase on when nobody can act,
and now and then at random). After every command, for the spectator and each side, the state view, the
events (incrementally every command, from after=0 every few commands), the options, the current turn's
replay, the websocket frames received so far, the command response (for the actor) and, at each new
phase, the problem+json of commands naming a hidden vessel are checked against an oracle folded from
the umpire's event stream (see tests/api/asc_play.py). At the end: seat/spectator exports are redacted
exactly like their event streams, and only the umpire may fork.
"""

from __future__ import annotations

import json
import random
from contextlib import ExitStack
from typing import Any

import msgspec
import pytest

from service.api.app import create_app
from service.domain.asc import RULESET as R
from service.domain.core.choices import Form, compose
from service.events import ids
from service.settings import Settings
from service.testing.randomplay import random_pick
from tests.api.asc_play import (
    NO_SUCH,
    SIDES,
    VIEWERS,
    AscGame,
    assert_no_leak,
    check_envelope,
    check_options,
    check_view,
    label,
    pick,
)
from tests.support.direct import client_on_path
from tests.support.seeded import SeededSecrets

FULL_READ_EVERY = 12  # GET /events?after=0 (a full refold per viewer) every this many commands


@pytest.fixture
def client(request, sqlite_url):
    path = getattr(request, "param", "queued")  # "direct": the pre-framed fan-out path
    app = create_app(Settings(database_url=sqlite_url, snapshot_every=40, heartbeat_seconds=0.3))
    with client_on_path(app, path) as c:
        yield c


def _check_reads(g: AscGame, step: int, full: bool) -> dict[str, list[dict]]:
    """Every read path, for every non-umpire viewer, at the current version (the turn replay every
    other command, to keep the test fast)."""
    seq = g.truth.last
    options = {}
    replay_turn = g.truth.at(seq).turn
    for viewer in VIEWERS:
        where = f"step {step}"
        summary = g.get("", viewer)
        assert summary["version"] == seq and summary["viewer"] == label(viewer)
        check_view(summary["state"], g.truth, seq, viewer, f"{where} GET view")
        for env in g.new_events(viewer):
            check_envelope(env, g.truth, viewer, f"{where} GET /events")
        if full:
            everything = g.get("/events", viewer, after=0, limit=10000)["events"]
            assert everything == g.known[viewer], f"{viewer}: a later full read differs from the live reads"
        g.drain_socket(viewer, seq)
        offered = g.get("/options", viewer)
        opts = [o["command"] for o in offered["options"]]
        check_options(opts, g.truth, seq, viewer, offered["forms"])
        options[viewer] = opts + [composed(form, step) for form in offered["forms"]]
        if not (full or step % 2):
            continue
        replay = g.get(f"/turns/{replay_turn}", viewer)
        check_view(replay["before"], g.truth, replay["from_seq"] - 1, viewer, f"{where} replay before")
        check_view(replay["after"], g.truth, replay["to_seq"], viewer, f"{where} replay after")
        by_seq = {e["seq"]: e for e in g.known[viewer]}
        for step_ in replay["events"]:
            env = step_["event"]
            check_envelope(env, g.truth, viewer, f"{where} turn replay")
            assert_no_leak(
                step_["text"],
                g.truth.at(env["seq"]),
                g.truth.hidden(env["seq"], viewer),
                f"{where} replay text seq {env['seq']}",
            )
            # the replay never shows more of an event than the live stream did
            assert env == by_seq[env["seq"]], (viewer, env, by_seq.get(env["seq"]))
        if full:  # and its views are what the live view showed at those points
            at_before = g.get("", viewer, at=replay["from_seq"] - 1)["state"]
            assert replay["before"] == at_before
        assert replay["after"] == summary["state"] or replay["to_seq"] < seq
    return options


def composed(raw_form: dict, step: int) -> dict:
    """One composition of a form as the page would send it: each choice picked at random (by the step),
    the free move's path as offered (its default) with no extra final turn."""
    form = msgspec.convert(raw_form, Form)
    rng = random.Random(step)
    pick = random_pick(rng)

    def choose(field, index):  # type: ignore[no-untyped-def]
        if field.kind == "hexpath" or (field.key == "facing" and not field.required):
            return field.default
        return pick(field, index)

    return compose(form, choose)


def _probe_errors(g: AscGame, rng: random.Random) -> None:
    """A command naming a hidden vessel is rejected exactly like one naming no vessel at all.

    Only commands that the current phase would get past the phase check are probed (elsewhere both are
    rejected for the phase, which proves nothing)."""
    seq = g.truth.last
    state = g.truth.at(seq)
    if state.over:
        return
    for side in SIDES:
        hidden = sorted(g.truth.hidden(seq, side))
        mine = [v for v in state.specs if state.specs[v].side == side and not state.status[v].destroyed]
        if not hidden or not mine:
            continue
        vid = rng.choice(hidden)
        v = rng.choice(mine)
        spec = state.specs[v]
        weapons = [t.id for t in spec.turrets] + [lnch.id for lnch in spec.launchers]
        shapes: list[dict] = []  # "?" stands for the probed name
        if state.phase.endswith("movement"):
            shapes += [
                {"type": "asc.move", "vessel": "?", "path": ["F"]},
                {"type": "asc.all_stop", "vessel": "?", "facing": 0},
            ]
        if state.phase == "sensors":
            shapes.append({"type": "asc.commit_sensors", "side": side, "vessels": [{"vessel": "?", "active": True}]})
        if state.phase in ("detection", "fire"):
            shapes.append({"type": "asc.lock", "vessel": v, "target": "?"})
        if state.phase == "detection" and spec.sensors:
            shapes.append({"type": "asc.detect", "vessel": v, "sensor": rng.choice(spec.sensors).id, "target": "?"})
        if state.phase == "fire" and weapons:
            shapes.append({"type": "asc.fire", "vessel": v, "weapon": rng.choice(weapons), "target": "?"})
        if state.phase == "damage_control":
            shapes.append({"type": "asc.repair", "vessel": "?", "locations": ["drive"]})
        for shape in shapes:
            bodies = []
            for probe in (vid, NO_SUCH):
                cmd = json.loads(json.dumps(shape).replace('"?"', json.dumps(probe)))
                r = g.post(side, cmd)
                assert r.status_code in (403, 422), (cmd, r.status_code, r.text)
                assert r.headers["content-type"] == "application/problem+json"
                body = r.json()
                bodies.append((r.status_code, json.dumps(body).replace(probe, "<probe>")))
                assert_no_leak(body, state, set(hidden), f"error for {cmd}", allow=(probe,))
            assert bodies[0] == bodies[1], f"a hidden id is rejected differently from an unknown one: {bodies}"
    assert g.sync() == seq, "a probe was accepted"


def _export_header(g: AscGame) -> Any:
    def check(header: dict[str, Any], everything: list[dict[str, Any]], viewer: str) -> None:
        assert header["setup"] == everything[0]["data"]["setup"]
        assert_no_leak(
            {k: v for k, v in header.items() if k != "digests"},
            g.truth.at(1),
            g.truth.hidden(1, viewer),
            f"export header for {viewer}",
        )

    return check


EVERY_EVENT = frozenset(t.__struct_config__.tag for t in R.event_types)
# Seeded games (choices, ids and dice: the same game every run), chosen so that together they hold every ASC
# event type; each names what it must hold, so a change that stops a game reaching an event fails here
# instead of leaving that event's frames and views unchecked.
CRAFT = frozenset({"asc.launched", "asc.recovered"})  # small craft fly only in the carrier scenario
GAMES = {
    ("ambush", 1): EVERY_EVENT - CRAFT - {"asc.backup_took_over", "asc.continuing_damage"},
    ("frigate-screen", 1): EVERY_EVENT - CRAFT - {"asc.continuing_damage", "asc.locks_lost"},
    ("frigate-screen", 2): EVERY_EVENT - CRAFT - {"asc.backup_took_over", "asc.locks_lost"},
    ("carrier-strike", 1): CRAFT | {"asc.moved", "asc.shot_resolved", "asc.vessel_destroyed"},
}


def test_the_games_hold_every_event_type():
    assert frozenset().union(*GAMES.values()) == EVERY_EVENT


# every game over the queued send path; the pre-framed fan-out (direct) is covered by the campaign leak test's
# direct case (hidden information per audience), tests/api/test_direct_server.py and tests/api/test_fanout.py
CASES = [("queued", *game) for game in sorted(GAMES)]


@pytest.mark.parametrize(("client", "scenario", "seed"), CASES, indirect=["client"])
def test_random_games_over_the_api_leak_nothing(client, monkeypatch, scenario, seed):
    monkeypatch.setattr(ids, "secrets", SeededSecrets(f"{scenario}-{seed}"))  # the same dice every run
    rng = random.Random(f"{scenario}-{seed}")
    with ExitStack() as stack:
        g = AscGame(client, scenario, stack)
        options = _check_reads(g, 0, full=True)
        probed: set[tuple[int, str]] = set()
        for step in range(1, 400):
            state = g.truth.at(g.truth.last)
            if state.over:
                break
            if (state.turn, state.phase) not in probed:
                probed.add((state.turn, state.phase))
                _probe_errors(g, rng)
            acting = [s for s in SIDES if options[s]]
            if not acting or rng.random() < 0.03:
                actor, cmd = "umpire", {"type": "asc.force_phase"}
            else:
                actor = rng.choice(acting)
                cmd = pick(rng, state, options[actor])
            r = g.post(actor, cmd)
            assert r.status_code == 201, (cmd, r.text)
            g.sync()
            if actor != "umpire":  # what the actor is told in the command response
                for env in r.json()["events"]:
                    check_envelope(env, g.truth, actor, f"step {step} command response")
            options = _check_reads(g, step, full=step % FULL_READ_EVERY == 0)
        assert g.truth.at(g.truth.last).over, "random game did not finish"
        held = {e["type"] for e in g.get("/events", "umpire", limit=10000)["events"]}
        assert GAMES[scenario, seed] <= held, f"the game no longer holds {sorted(GAMES[scenario, seed] - held)}"
        g.finish_checks(_export_header(g))
