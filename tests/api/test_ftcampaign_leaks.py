"""FTC-R-7 through the real API: random legal campaigns leak nothing to a player or a spectator.

Commands are drawn from each player's GET /options (an aggressive picker that sends groups on attack
toward enemy worlds, so contacts and battles happen), and from the umpire's when nobody else can act, a
battle waits for its result, and now and then at random. At least one battle is recorded with the id of a
real GSC2 game created through the API (the linked tactical game). After every command, for the spectator
and every player, the state view, the new events (from after=0 every few commands), the options, the
current turn's replay, the websocket frames and the command response (for the actor) are checked against
an oracle folded from the umpire's event stream (tests/api/ftcampaign_play.py). At each new phase, a
command naming another player's group or ship is rejected exactly like one naming nothing at all. At the
end: players' and spectators' exports are redacted exactly like their event streams, and only the umpire
may fork.

The turn seeds and ids are drawn from a seeded generator so that a run is reproducible.
"""

from __future__ import annotations

import json
import random
from contextlib import ExitStack
from typing import Any

import pytest

from service.api.app import create_app
from service.events import ids
from service.settings import Settings
from tests.api.ftcampaign_play import (
    NO_SUCH,
    QUIET,
    CampaignGame,
    assert_no_leak,
    check_envelope,
    check_options,
    check_view,
    compose_orders,
    label,
    pick,
)
from tests.support.direct import client_on_path
from tests.support.seeded import SeededSecrets

FULL_READ_EVERY = 10


@pytest.fixture
def client(request, sqlite_url):
    path = getattr(request, "param", "queued")  # "direct": the pre-framed fan-out path
    app = create_app(Settings(database_url=sqlite_url, snapshot_every=40, heartbeat_seconds=0.3))
    with client_on_path(app, path) as c:
        yield c


def _check_reads(g: CampaignGame, step: int, full: bool) -> tuple[dict[str, list], dict[str, dict]]:
    seq = g.truth.last
    options: dict[str, list] = {}
    views: dict[str, dict] = {}
    where = f"step {step}"
    for viewer in g.viewers:
        summary = g.get("", viewer)
        assert summary["version"] == seq and summary["viewer"] == label(viewer)
        view = summary["state"]
        check_view(view, g.truth, seq, viewer, f"{where} GET view")
        views[viewer] = view
        for env in g.new_events(viewer):
            check_envelope(env, g.truth, viewer, f"{where} GET /events")
        if full:
            everything = g.get("/events", viewer, after=0, limit=10000)["events"]
            assert everything == g.known[viewer], f"{viewer}: a later full read differs from the live reads"
        g.drain_socket(viewer, seq)
        body = g.get("/options", viewer)
        opts = check_options(body, g.truth, seq, viewer)
        composer = random.Random(f"{seq}-{viewer}")
        options[viewer] = opts + [compose_orders(composer, view, viewer, f) for f in body["forms"]]
        if not (full or step % 2):
            continue
        replay = g.get(f"/turns/{summary['turn']}", viewer)
        check_view(replay["before"], g.truth, replay["from_seq"] - 1, viewer, f"{where} replay before")
        check_view(replay["after"], g.truth, replay["to_seq"], viewer, f"{where} replay after")
        by_seq = {e["seq"]: e for e in g.known[viewer]}
        for item in replay["events"]:
            env = item["event"]
            check_envelope(env, g.truth, viewer, f"{where} turn replay")
            assert_no_leak(item["text"], g.truth.hidden(env["seq"], viewer), f"{where} replay text {env['seq']}")
            assert env == by_seq[env["seq"]], (viewer, env, by_seq.get(env["seq"]))
        if full:
            assert replay["before"] == g.get("", viewer, at=replay["from_seq"] - 1)["state"]
        assert replay["after"] == view or replay["to_seq"] < seq
    return options, views


def _probe_errors(g: CampaignGame, rng: random.Random) -> int:
    """A command naming another player's group or ship (seen or not) is rejected exactly like one naming
    nothing at all, and appends nothing."""
    seq = g.truth.last
    state = g.truth.at(seq)
    if state.over or state.phase not in ("deployment", "orders"):
        return 0
    probes = 0
    for me in g.players:
        groups = sorted(gid for gid, x in state.groups.items() if x.owner != me)
        ships = sorted(sid for sid, x in state.ships.items() if x.owner != me)
        shapes: list[dict[str, Any]] = []
        if groups:
            gid = rng.choice(groups)
            shapes += [
                ({"type": "ftcampaign.split_group", "group": "?", "ships": ["x"]}, gid),
                ({"type": "ftcampaign.set_cloak", "group": "?", "on": True}, gid),
                ({"type": "ftcampaign.scout", "group": "?"}, gid),
            ]
        if ships:
            sid = rng.choice(ships)
            shapes += [
                ({"type": "ftcampaign.repair", "ship": "?", "hull": 1}, sid),
                ({"type": "ftcampaign.inspect_jury_rig", "ship": "?"}, sid),
            ]
        for shape, real in shapes:
            bodies = []
            for probe in (real, NO_SUCH):
                cmd = json.loads(json.dumps(shape).replace('"?"', json.dumps(probe)))
                r = g.post(me, cmd)
                assert r.status_code in (403, 422), (cmd, r.status_code, r.text)
                assert r.headers["content-type"] == "application/problem+json"
                body = r.json()
                assert_no_leak(body, g.truth.hidden(seq, me), f"error for {cmd}", allow=(probe,))
                bodies.append((r.status_code, json.dumps(body).replace(probe, "<probe>")))
                probes += 1
            assert bodies[0] == bodies[1], f"another player's id is rejected differently from an unknown one: {bodies}"
    assert g.sync() == seq, "a probe was accepted"
    return probes


def _umpire_command(
    g: CampaignGame, rng: random.Random, cands: list[dict[str, Any]], tactical_id: str, linked: int
) -> dict[str, Any] | None:
    battles = [o for o in cands if o["type"] == "ftcampaign.record_battle"]
    if battles:
        wanted = [o for o in battles if o.get("tactical_game_id")] if not linked else battles
        cmd = dict(rng.choice(wanted or battles))
        if cmd.get("tactical_game_id"):
            cmd["tactical_game_id"] = tactical_id  # the linked tactical game, created through the API
        return cmd
    return rng.choice(cands) if cands else None


# both campaigns over the queued send path; the pre-framed fan-out (direct) over the one with a linked battle
@pytest.mark.parametrize(
    ("client", "scenario", "seed", "max_turn"),
    [("queued", "intro-duel", 1, 8), ("queued", "three-powers", 2, 3), ("direct", "intro-duel", 1, 8)],
    indirect=["client"],
)
def test_random_campaigns_over_the_api_leak_nothing(client, monkeypatch, scenario, seed, max_turn):
    monkeypatch.setattr(ids, "secrets", SeededSecrets(f"{scenario}-{seed}"))
    rng = random.Random(f"{scenario}-{seed}")
    r = client.post("/v1/games", json={"ruleset": "gsc2", "scenario": "duel"})
    assert r.status_code == 201, r.text
    tactical_id = r.json()["game_id"]
    with ExitStack() as stack:
        g = CampaignGame(client, scenario, stack)
        options, views = _check_reads(g, 0, full=True)
        probed: set[tuple[int, str]] = set()
        probes = linked = 0
        for step in range(1, 400):
            state = g.truth.at(g.truth.last)
            battle_wanted = scenario == "intro-duel" and not linked and state.turn <= 14
            if state.over or (state.turn > max_turn and not battle_wanted):
                break
            if (state.turn, state.phase) not in probed:
                probed.add((state.turn, state.phase))
                probes += _probe_errors(g, rng)
            acting = [p for p in g.players if options[p]]
            umpire = [o["command"] for o in g.get("/options", "umpire")["options"] if o["command"]["type"] not in QUIET]
            must = any(o["type"] in ("ftcampaign.generate_map", "ftcampaign.record_battle") for o in umpire)
            if not acting or must or rng.random() < 0.04:
                actor, cmd = "umpire", _umpire_command(g, rng, umpire, tactical_id, linked)
                if cmd is None:
                    assert acting, f"nobody can act at step {step}"
                    continue
            else:
                actor = rng.choice(acting)
                cmd = pick(rng, views[actor], actor, options[actor])
            r = g.post(actor, cmd)
            assert r.status_code == 201, (actor, cmd, r.text)
            g.sync()
            if actor != "umpire":
                for env in r.json()["events"]:
                    check_envelope(env, g.truth, actor, f"step {step} command response")
            elif cmd.get("tactical_game_id") == tactical_id:
                linked += 1
            options, views = _check_reads(g, step, full=step % FULL_READ_EVERY == 0)
        assert probes > 0
        if scenario == "intro-duel":
            assert linked, "no battle was recorded with a linked tactical game"
            recorded = [
                e
                for e in g.get("/events", "umpire", limit=10000)["events"]
                if e["type"] == "ftcampaign.battle_recorded"
            ]
            assert any(e["data"]["tactical_game_id"] == tactical_id for e in recorded)
        g.finish_checks()


def _die_sides(die: str) -> int:
    return int(die.lstrip("d") or 6)


def test_revealed_seeds_do_not_expose_hidden_rolls(client, monkeypatch):
    """FTC-R-7 secrets decided by dice (another player's world incomes, FTC-WLD-2/ECO rolls) must not be
    recomputable from what a player sees: the revealed seed of a finished turn, the game id and the seq and
    dice base of the events it was shown (hidden events only leave a gap in the seqs)."""
    from service.domain.core.dice import derive_face

    monkeypatch.setattr(ids, "secrets", SeededSecrets("seeds"))
    rng = random.Random("seeds")
    with ExitStack() as stack:
        g = CampaignGame(client, "intro-duel", stack)
        for _ in range(200):
            if g.truth.at(g.truth.last).turn >= 2:
                break
            options = {}
            for p in g.players:
                body = g.get("/options", p)
                options[p] = [o["command"] for o in body["options"]] + [
                    compose_orders(rng, g.get("", p)["state"], p, f) for f in body["forms"]
                ]
            umpire = [o["command"] for o in g.get("/options", "umpire")["options"] if o["command"]["type"] not in QUIET]
            acting = [p for p in g.players if options[p]]
            if not acting or any(o["type"] == "ftcampaign.generate_map" for o in umpire):
                actor, cmd = "umpire", umpire[0]
            else:
                actor = rng.choice(acting)
                cmd = pick(rng, g.get("", actor)["state"], actor, options[actor])
            assert g.post(actor, cmd).status_code == 201
            g.sync()
        umpire_seeds = _seeds(g.get("/events", "umpire", limit=10000)["events"])
        assert umpire_seeds, "no turn was finished: nothing to check"
        for p in g.players:
            mine = g.get("/events", p, limit=10000)["events"]
            reveals = [e for e in mine if e["type"] == "dice.revealed"]
            assert reveals and all(e["data"]["seed"] == "" for e in reveals)  # withheld until the game ends
            assert _seeds(mine) == {}
            shown = {e["seq"] for e in mine}
            # the check is live: with the finished turns' seeds a player could recompute its rivals' rolls
            assert _recomputable(g, umpire_seeds, shown, derive_face), f"{p}: no hidden roll to protect"
            assert not _recomputable(g, _seeds(mine), shown, derive_face)
        # the campaign ends: every seed is disclosed to everyone (the secrets no longer matter)
        assert g.post("umpire", {"type": "ftcampaign.end_campaign", "reason": "test over"}).status_code == 201
        g.sync()
        for p in g.players:
            mine = g.get("/events", p, limit=10000)["events"]
            disclosed = [e for e in mine if e["type"] == "dice.disclosed"]
            assert len(disclosed) == 1
            assert {int(t) for t in disclosed[0]["data"]["seeds"]} >= set(umpire_seeds)


def _seeds(envelopes: list[dict[str, Any]]) -> dict[int, bytes]:
    return {
        e["data"]["turn"]: bytes.fromhex(e["data"]["seed"])
        for e in envelopes
        if e["type"] == "dice.revealed" and e["data"]["seed"]
    }


def _recomputable(g: CampaignGame, seeds: dict[int, bytes], shown: set[int], derive_face: Any) -> list[int]:
    """Seqs of events hidden from the viewer whose rolls ``seeds`` reproduce."""
    from service.domain.core import seeded_face

    found = []
    for seq, env in g.truth.envelopes.items():
        dice = env.get("dice")
        if seq in shown or not env.get("rolls") or not dice or dice["turn"] not in seeds:
            continue
        salts = dice.get("salts") or []  # a roll's slot (docs/dice.md) and the salt of its first use
        faces = [
            seeded_face(
                seeds[dice["turn"]],
                g.id,
                dice["turn"],
                dice["base"],
                dice.get("slot"),
                r["i"],
                _die_sides(r["die"]),
                salts[r["i"]] if r["i"] < len(salts) else dice.get("salt", ""),
            )
            for r in env["rolls"]
        ]
        if faces == [r["value"] for r in env["rolls"]]:
            found.append(seq)
    return found
