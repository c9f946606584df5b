"""Helpers for Full Thrust campaign (ftcampaign) games played through the real HTTP + websocket API.

The oracle is built from the UMPIRE's view of the truth: the umpire's event log (nothing redacted) is
decoded and folded with the ruleset, giving the true state after every seq. Alongside, a knowledge model
independent of service.domain.ftcampaign.visibility says what each player may know at every seq (FTC-R-7,
FTC-TG-3): another player's task group id only once it shared a hex with the player's forces (groups or
owned worlds), a ship id only once it fought the player (a battle) or assaulted the player's world; a
spectator knows neither. Economies, sealed orders, sealed choices, formations and other players' world
incomes/IDP never show. Every JSON document a non-umpire receives is checked against that model *at the seq
it describes*.
"""

from __future__ import annotations

import json
import random
import re
from contextlib import ExitStack
from typing import Any

import msgspec
from starlette.testclient import TestClient

from service.domain.core.hexgrid import Hex
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import events as E
from service.domain.ftcampaign.state import State, key
from service.events.head import codec_for
from service.events.replay import Folder
from tests.api.watched_game import WatchedGame
from tests.domain.ftcampaign.audience import audience, may_receive

_codec = codec_for(R)
_folder = Folder(R)


NO_SUCH = "zz-no-such-group"


def label(viewer: str) -> str:
    return viewer if viewer in ("spectator", "umpire") else f"seat:{viewer}"


# ------------------------------------------------------------------------------------------- oracle


class Knowledge:
    """What each player may know (ids of other players' groups and ships), cumulative over the log."""

    def __init__(self, state: State) -> None:
        self.groups: dict[str, set[str]] = {p: set() for p in state.order}
        self.ships: dict[str, set[str]] = {p: set() for p in state.order}
        self.every_group: set[str] = set()
        self.every_ship: set[str] = set()

    def update(self, state: State, event: Any) -> None:
        self.every_group |= set(state.groups)
        self.every_ship |= set(state.ships)
        for p in state.order:
            here = {key(g.hex) for g in state.groups.values() if g.owner == p and g.hex is not None}
            here |= {k for k, w in state.worlds.items() if w.owner == p}
            for g in state.groups.values():
                if g.owner == p or (g.hex is not None and key(g.hex) in here):
                    self.groups[p].add(g.id)
            self.ships[p] |= {s for s, v in state.ships.items() if v.owner == p}
        if isinstance(event, E.BattleStarted):  # contact: every ship on the field, hulks in tow included
            here = {
                s
                for g in state.groups.values()
                if g.hex is not None and tuple(g.hex) == tuple(event.battle.hex)
                for s in g.ships
            }
            for p in event.witnesses:
                self.ships[p] |= set(event.designs) | here
        if isinstance(event, E.BattleRecorded):  # who fought saw the field after the battle (captured hulks)
            for p in event.witnesses:
                self.groups[p] |= {
                    g.id for g in state.groups.values() if g.hex is not None and tuple(g.hex) == tuple(event.hex)
                }
        if isinstance(event, E.AssaultResolved):
            for p in event.witnesses:
                self.ships[p] |= set(event.ships)

    def hidden(self, viewer: str) -> frozenset[str]:
        if viewer == "spectator":
            return frozenset(self.every_group | self.every_ship)
        return frozenset((self.every_group - self.groups[viewer]) | (self.every_ship - self.ships[viewer]))


class Truth:
    """The true state after every seq, folded from the umpire's (unredacted) event stream, and what each
    non-umpire viewer may not know at that seq."""

    def __init__(self) -> None:
        self.states: dict[int, State] = {}
        self.hidden_at: dict[int, dict[str, frozenset[str]]] = {}
        self.last = 0
        self.state: State | None = None
        self.know: Knowledge | None = None
        self.envelopes: dict[int, dict[str, Any]] = {}

    def feed(self, envelopes: list[dict[str, Any]]) -> None:
        for env in envelopes:
            assert env["seq"] == self.last + 1, ("umpire stream not dense", env["seq"], self.last)
            event: Any = None
            if env["type"] == "game.created":
                self.state = R.initial_state(env["data"]["setup"])
                self.know = Knowledge(self.state)
                self.states[0] = self.state
                self.hidden_at[0] = self._hidden()
            else:
                event = _codec.decode(
                    env["type"], env["v"], json.dumps(env["data"]).encode(), json.dumps(env.get("rolls", [])).encode()
                )
                self.state = _folder.apply(self.state, event)
            assert self.know is not None and self.state is not None
            self.know.update(self.state, event)
            self.last = env["seq"]
            self.states[self.last] = self.state
            self.hidden_at[self.last] = self._hidden()
            self.envelopes[self.last] = env

    def _hidden(self) -> dict[str, frozenset[str]]:
        assert self.know is not None and self.state is not None
        return {v: self.know.hidden(v) for v in ("spectator", *self.state.order)}

    def at(self, seq: int) -> State:
        return self.states[seq]

    def hidden(self, seq: int, viewer: str) -> frozenset[str]:
        return self.hidden_at[seq][viewer]


def leaks(text: str, hidden: frozenset[str] | set[str]) -> list[str]:
    return sorted(i for i in hidden if i in text and re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text))


def assert_no_leak(doc: Any, hidden: frozenset[str] | set[str], where: str, allow: tuple[str, ...] = ()) -> None:
    """No id of a group or ship the viewer may not know, anywhere in the JSON text of ``doc``."""
    text = doc if isinstance(doc, str) else json.dumps(doc)
    for a in allow:
        text = text.replace(a, "")
    found = leaks(text, hidden)
    assert not found, f"{where}: hidden ids {found} leaked: {_around(text, found[0])}"


def _around(text: str, needle: str) -> str:
    i = text.find(needle)
    return text[max(0, i - 300) : i + 300]


def check_envelope(env: dict[str, Any], truth: Truth, viewer: str, where: str) -> None:
    """Audience, sealed content and unknown ids, for one envelope as a non-umpire received it."""
    seq = env["seq"]
    assert_no_leak(env, truth.hidden(seq, viewer), f"{where} seq {seq} {env['type']} for {viewer}")
    t, d = env["type"], env["data"]
    me = None if viewer == "spectator" else viewer
    truth_env = truth.envelopes[seq]
    assert t == truth_env["type"] and env["turn"] == truth_env["turn"], (where, env, truth_env)
    if t == "dice.revealed":  # the seed is withheld from players until the game ends (dice.disclosed)
        # only the slot keys of the rolls this viewer saw come with it (tests/api/test_dice_openings.py)
        # the tree's size (``slots``) is public: every viewer is told the umpire's own figure
        shown = {k: v for k, v in d.items() if k not in ("keys", "proof")}
        public = {"turn": truth_env["data"]["turn"], "seed": ""}
        if "slots" in truth_env["data"]:
            public["slots"] = truth_env["data"]["slots"]
        assert shown == public, f"{where}: a turn seed shown to {viewer}: {d}"
        return
    kind = audience(t)  # the hand-written table (tests/domain/ftcampaign/audience.py), not the product's lists
    assert may_receive(t, truth_env["data"], me), f"{where}: {t} ({kind}) shown to {viewer}, outside its audience"
    if kind == "public":
        assert env == truth_env or t == "game.created", f"{where}: a public event differs from the truth: {env}"
    elif kind == "sealed":  # ftcampaign.orders_submitted: that a player sealed orders is public, never what
        if d["player"] != me:
            assert d.get("orders") is None, f"{where}: another player's sealed orders shown to {viewer}: {d}"
    elif kind == "witnesses":
        if t == "ftcampaign.choice_made" and d["player"] != me:
            assert d.get("choice") is None and d.get("to") is None, f"{where}: sealed choice shown: {d}"
        if t == "ftcampaign.formation_declared" and d["player"] != me:
            assert d.get("formation") is None, f"{where}: sealed formation shown: {d}"
        if t == "ftcampaign.step_opened":
            assert not d["step"].get("choices") and not d["step"].get("destinations"), (where, d)
        if t == "ftcampaign.battle_started":
            assert set(d["battle"].get("formations", {})) <= {me}, (where, d)
        if t == "ftcampaign.battle_recorded":
            assert set(d.get("ordnance", {})) <= {me}, f"{where}: another player's ordnance spend shown: {d}"


def check_view(view: dict[str, Any], truth: Truth, seq: int, viewer: str, where: str) -> None:
    state = truth.at(seq)
    assert_no_leak(view, truth.hidden(seq, viewer), f"{where} (seq {seq}) for {viewer}")
    me = None if viewer == "spectator" else viewer
    for k in ("economies", "orders"):
        assert k not in view, f"{where}: umpire-only {k!r} shown to {viewer}"
    assert view["turn"] == state.turn and view["phase"] == state.phase
    if me is None:
        assert view["groups"] == [] and view["sightings"] == [] and view["economy"] is None, (where, view)
        assert view["steps"] == [] and view["battles"] == [] and "my_orders" not in view
    else:
        economy = json.loads(msgspec.json.encode(state.economies[me]))
        assert view["economy"] == economy, f"{where}: {viewer}'s economy is wrong"
        assert all(g["owner"] == me for g in view["groups"]), f"{where}: another player's group in {viewer}'s view"
        assert {g["id"] for g in view["groups"]} == {g for g, v in state.groups.items() if v.owner == me}
        for s in view["sightings"]:
            assert s["turn"] <= state.turn, (where, s)
            for c in s["counters"]:
                assert c["owner"] != me and c.get("posture") in (None, "attack"), (where, c)
        for s in view["steps"]:
            assert me in s["players"] and set(s) == {"id", "kind", "hex", "players", "awaiting", "my_choice"}
        for b in view["battles"]:
            assert set(b.get("formations", {})) <= {me}, (where, b)
        if "my_orders" in view:
            assert me in state.orders
    for w in view["map"]["worlds"]:
        real = state.worlds[w["id"]]
        if "idp" in w or "closed" in w or "interdicted" in w:
            assert me is not None and real.owner == me, f"{where}: IDP of {w['id']} (owner {real.owner}) to {viewer}"
        if "income" in w and (me is None or real.owner != me):
            assert real.owner is None and real.scouted, f"{where}: income of {w['id']} shown to {viewer}"
        if w["owner"] not in (None, me):  # others' worlds: public claims, or what this player saw (as of then)
            seen = state.intel.get(me or "", {}).get(w["id"])
            assert w["owner"] in (real.setup_owner, seen.owner if seen else None), (where, w)
    sealed = {p["id"]: p["orders_sealed"] for p in view["players"]}
    assert sealed == {p: p in state.orders for p in state.order}, f"{where}: sealed-order status is wrong"


OWN_FIELDS = ("group", "into", "other", "ship", "donor")


def check_options(body: dict[str, Any], truth: Truth, seq: int, viewer: str) -> list[dict[str, Any]]:
    """Options and forms as a viewer received them: no hidden id, nothing of another player's; returns the
    option commands."""
    state = truth.at(seq)
    assert_no_leak(body, truth.hidden(seq, viewer), f"options (seq {seq}) for {viewer}")
    commands = [o["command"] for o in body["options"]]
    if viewer == "spectator":
        assert commands == [] and body["forms"] == []
        return commands
    for o in body["options"]:
        assert o["label"] and "{" not in o["label"], o
    for form in body["forms"]:
        for pc in form["pieces"]:
            assert state.groups[pc["piece"]].owner == viewer, (viewer, pc["piece"])
    for c in commands:
        assert c["type"] not in UMPIRE_TYPES, f"umpire command offered to {viewer}: {c}"
        for f in OWN_FIELDS:
            v = c.get(f)
            if v is None:
                continue
            owner = state.groups[v].owner if v in state.groups else state.ships[v].owner
            assert owner == viewer, (viewer, c)
        if c.get("world") is not None:
            assert state.worlds[c["world"]].owner == viewer, (viewer, c)
        for o in c.get("orders", []):
            assert state.groups[o["group"]].owner == viewer, (viewer, c)
    return commands


UMPIRE_TYPES = {
    "ftcampaign.generate_map",
    "ftcampaign.approve_technology",
    "ftcampaign.approve_standard_navy",
    "ftcampaign.record_ruling",
    "ftcampaign.close_turn",
    "ftcampaign.record_battle",
    "ftcampaign.resolve_disengagement",
    "ftcampaign.end_campaign",
}


# --------------------------------------------------------------------------------------------- play


class CampaignGame(WatchedGame):
    """One campaign driven over HTTP, with one live websocket per non-umpire viewer."""

    ruleset = "ftcampaign"

    def __init__(self, client: TestClient, scenario: str, stack: ExitStack) -> None:
        super().__init__(client, scenario, stack, Truth())

    def check_envelope(self, env: dict[str, Any], viewer: str, where: str) -> None:
        check_envelope(env, self.truth, viewer, where)


def _dist(a: list[int], b: list[int]) -> int:
    return Hex(a[0], a[1]).distance_to(Hex(b[0], b[1]))


QUIET = {
    "ftcampaign.end_campaign",
    "ftcampaign.record_ruling",
    "ftcampaign.set_maintenance",
    "ftcampaign.close_route",
    "ftcampaign.set_cloak",
    "ftcampaign.approve_standard_navy",
}


def compose_orders(rng: random.Random, view: dict[str, Any], me: str, form: dict[str, Any]) -> dict[str, Any]:
    """An aggressive player's sealed orders from the orders form: each group on attack toward the nearest
    enemy world it can step closer to (else anywhere), now and then holding."""
    targets = [w["hex"] for w in view["map"]["worlds"] if w["owner"] not in (None, me)]
    entries = []
    for pc in form["pieces"]:
        fields = {f["key"]: f for f in pc["fields"]}
        values = [v["value"] for v in fields["to"]["values"]]
        if targets and rng.random() < 0.8:
            to = min(values, key=lambda h: (min(_dist(h, t) for t in targets), rng.random()))
        else:
            to = rng.choice(values)
        posture = "attack" if rng.random() < 0.8 else rng.choice([v["value"] for v in fields["posture"]["values"]])
        entries.append({form["piece_key"]: pc["piece"], "to": to, "posture": posture})
    return {"type": form["command"], **form["fixed"], form["list_key"]: entries}


def pick(rng: random.Random, view: dict[str, Any], me: str, options: list[dict[str, Any]]) -> dict[str, Any]:
    """An aggressive player: buys ships at set-up, then sends its groups on attack toward enemy worlds
    (``options`` holds the option commands and, composed, the orders form)."""
    useful = [o for o in options if o["type"] not in QUIET] or options
    by = lambda t: [o for o in useful if o["type"] == t]  # noqa: E731
    buys, orders, ready = by("ftcampaign.buy_ship"), by("ftcampaign.submit_orders"), by("ftcampaign.ready")
    composed = [o for o in orders if o.get("orders")]
    if view["phase"] == "deployment":
        if buys and rng.random() < 0.85:
            return rng.choice(buys)
        if ready and rng.random() < 0.7:
            return ready[0]
    if orders and rng.random() < 0.7:
        return composed[0] if composed and rng.random() < 0.9 else orders[0]
    return rng.choice(useful)
