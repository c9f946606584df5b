"""Per-seat verifiable dice during the game (docs/dice.md).

Random ASC and campaign games over the API. After every turn, each seat (and the spectator) verifies,
with the standalone verifier's code and only what it received, every roll it can see; and an oracle
holding the umpire's seeds confirms that nothing it received (events, view, options) contains the key
of a slot hidden from it or any seed, and that it cannot compute any hidden roll.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from starlette.testclient import TestClient

from clients.verify_dice import Dice
from service.api.app import create_app
from service.domain.core.merkle import slot_key
from service.settings import Settings
from tests.api import asc_play, ftcampaign_play
from tests.api.watched_game import auth


@pytest.fixture
def client(sqlite_url):
    app = create_app(Settings(database_url=sqlite_url, snapshot_every=40))
    with TestClient(app) as c:
        yield c


class Game:
    """A game driven over HTTP with the umpire's stream folded into a truth (no sockets)."""

    def __init__(self, client: TestClient, ruleset: str, scenario: str, truth: Any) -> None:
        self.client = client
        r = client.post("/v1/games", json={"ruleset": ruleset, "scenario": scenario})
        assert r.status_code == 201, r.text
        self.game = r.json()
        self.id = self.game["game_id"]
        self.players = list(self.game["seats"])
        self.tokens: dict[str, str | None] = {
            "spectator": None,
            "umpire": self.game["umpire_token"],
            **self.game["seats"],
        }
        self.truth = truth
        self.umpire_events: list[dict[str, Any]] = []
        self.sync()

    def get(self, path: str, viewer: str, **params: Any) -> Any:
        r = self.client.get(f"/v1/games/{self.id}{path}", headers=auth(self.tokens[viewer]), params=params)
        assert r.status_code == 200, (path, viewer, r.text)
        return r.json()

    def post(self, viewer: str, cmd: dict[str, Any]) -> Any:
        return self.client.post(
            f"/v1/games/{self.id}/commands",
            json={"command": cmd, "salt": f"{viewer}-salt"},
            headers=auth(self.tokens[viewer]),
        )

    def sync(self) -> None:
        new = self.get("/events", "umpire", after=self.truth.last, limit=10000)["events"]
        self.truth.feed(new)
        self.umpire_events += new


def check_openings(g: Game) -> tuple[int, int]:
    """The per-viewer check after a turn ended: (rolls the viewers verified by key, hidden rolls checked)."""
    seeds = {
        e["data"]["turn"]: bytes.fromhex(e["data"]["seed"]) for e in g.umpire_events if e["type"] == "dice.revealed"
    }
    all_slots: dict[int, set[int]] = {}
    for env in g.umpire_events:
        d = env.get("dice")
        if d and env.get("rolls") and d.get("slot") is not None and d["turn"] in seeds:
            all_slots.setdefault(d["turn"], set()).update(d["slot"] + r["i"] for r in env["rolls"])
    verified = hidden = 0
    for viewer in ("spectator", *g.players):
        events = g.get("/events", viewer, limit=10000)["events"]
        received = json.dumps([events, g.get("", viewer), g.get("/options", viewer)])
        dice = Dice()
        for env in events:
            assert dice.read(env) is None, (viewer, env["seq"])
        seen: dict[int, set[int]] = {}
        for env in events:
            d = env.get("dice")
            if not d or not env.get("rolls") or d["turn"] not in seeds:
                continue
            for roll in env["rolls"]:
                face, how = dice.face(g.id, d, roll)
                assert how == "key" and face == roll["value"], (viewer, env["seq"], roll, face, how)
                seen.setdefault(d["turn"], set()).add(d["slot"] + roll["i"])
                verified += 1
        given = {}
        for env in events:
            if env["type"] == "dice.revealed":
                assert env["data"]["seed"] == "", f"{viewer} was shown a seed"
                given[env["data"]["turn"]] = {k["slot"] for k in env["data"].get("keys", [])}
        for turn, slots in all_slots.items():
            assert given.get(turn, set()) == seen.get(turn, set()), (viewer, turn)  # keys: exactly its rolls
            assert seeds[turn].hex() not in received, f"{viewer} received the seed of turn {turn}"
            for slot in slots - seen.get(turn, set()):
                hidden += 1
                key = slot_key(seeds[turn], turn, slot)
                assert key.hex() not in received, f"{viewer} received the key of hidden slot {turn}:{slot}"
                assert (turn, slot) not in dice.keys
    return verified, hidden


def _disclosed(g: Game) -> bool:
    return any(e["type"] == "dice.disclosed" for e in g.umpire_events)


def _reveals(g: Game) -> int:
    return sum(e["type"] == "dice.revealed" for e in g.umpire_events)


def drive(g: Game, rng: random.Random, choose: Any, max_steps: int, max_turn: int) -> tuple[int, int, int]:
    """Random legal play; after every command that ended a turn, the openings check. Returns
    (turns checked, rolls verified by key, hidden rolls checked), summed over the checks."""
    checked = verified = hidden = 0
    for _step in range(max_steps):
        state = g.truth.at(g.truth.last)
        if state.over or _disclosed(g) or state.turn > max_turn:
            break
        actor, cmd = choose(g, rng, state)
        if cmd is None:
            break
        before = _reveals(g)
        r = g.post(actor, cmd)
        assert r.status_code == 201, (actor, cmd, r.text)
        g.sync()
        if _reveals(g) > before and not _disclosed(g):
            by_key, unseen = check_openings(g)
            verified, hidden, checked = verified + by_key, hidden + unseen, checked + 1
    return checked, verified, hidden


def choose_asc(g: Game, rng: random.Random, state: Any) -> tuple[str, dict[str, Any] | None]:
    options = {p: [o["command"] for o in g.get("/options", p)["options"]] for p in g.players}
    acting = [p for p in g.players if options[p]]
    if not acting or rng.random() < 0.03:
        return "umpire", {"type": "asc.force_phase"}
    actor = rng.choice(acting)
    return actor, asc_play.pick(rng, state, options[actor])


def choose_campaign(g: Game, rng: random.Random, state: Any) -> tuple[str, dict[str, Any] | None]:
    options = {p: [o["command"] for o in g.get("/options", p)["options"]] for p in g.players}
    umpire = [
        o["command"]
        for o in g.get("/options", "umpire")["options"]
        if o["command"]["type"] not in ftcampaign_play.QUIET
    ]
    acting = [p for p in g.players if options[p]]
    must = any(o["type"] in ("ftcampaign.generate_map", "ftcampaign.record_battle") for o in umpire)
    if not acting or must or rng.random() < 0.04:
        battles = [o for o in umpire if o["type"] == "ftcampaign.record_battle" and not o.get("tactical_game_id")]
        pool = battles or [o for o in umpire if not o.get("tactical_game_id")]
        return "umpire", (rng.choice(pool) if pool else None)
    actor = rng.choice(acting)
    return actor, ftcampaign_play.pick(rng, g.get("", actor)["state"], actor, options[actor])


@pytest.mark.parametrize(("scenario", "seed"), [("frigate-screen", 1), ("ambush", 2)])
def test_asc_seats_verify_their_rolls_after_every_turn_and_nothing_more(client, scenario, seed):
    g = Game(client, "asc", scenario, asc_play.Truth())
    checked, verified, hidden = drive(g, random.Random(f"{scenario}-{seed}"), choose_asc, max_steps=300, max_turn=4)
    print(f"asc {scenario}: {checked} turns checked, {verified} rolls verified by key, {hidden} hidden checked")
    assert checked >= 2 and verified > 0 and hidden > 0, (checked, verified, hidden)


@pytest.mark.parametrize(("scenario", "seed"), [("intro-duel", 1), ("three-powers", 2)])
def test_campaign_players_verify_their_rolls_after_every_turn_and_nothing_more(client, scenario, seed):
    g = Game(client, "ftcampaign", scenario, ftcampaign_play.Truth())
    checked, verified, hidden = drive(
        g, random.Random(f"{scenario}-{seed}"), choose_campaign, max_steps=300, max_turn=3
    )
    print(f"campaign {scenario}: {checked} turns checked, {verified} rolls verified by key, {hidden} hidden checked")
    assert checked >= 2 and verified > 0 and hidden > 0, (checked, verified, hidden)
