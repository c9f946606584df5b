"""Random legal campaigns (FTC-MOV-1, FTC-TG-3): no exceptions, fold(events) == live state after JSON round
trips, invariants hold, and no viewer ever sees another player's secrets.

Oracle (independent of the redaction code): a player may know another player's task group id only once that
group shared a hex with the player's forces (groups or worlds), and a ship id only once the ship fought that
player (a battle) or assaulted that player's world. Spectators know neither. Economies, sealed orders, sealed
choices and other players' world incomes never show.
"""

from __future__ import annotations

import json
import re

import msgspec
import pytest

from service.domain.core import SPECTATOR, UMPIRE, Dice, Event, NotYourPiece, RuleViolation, Viewer, seat
from service.domain.ftcampaign import RULESET as R
from service.domain.ftcampaign import commands as C
from service.domain.ftcampaign import events as E
from service.domain.ftcampaign.state import State, key

from .audience import AUDIENCE, audience, may_receive
from .play import command_decoder, event_decoder, random_game, start


class Oracle:
    def __init__(self, state: State) -> None:
        self.groups: dict[str, set[str]] = {p: set() for p in state.order}
        self.ships: dict[str, set[str]] = {p: set() for p in state.order}

    def update(self, state: State, event: object) -> None:
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
        if isinstance(event, E.AssaultResolved):
            for p in event.witnesses:
                self.ships[p] |= set(event.ships)
        if isinstance(event, E.BattleRecorded):  # who fought saw the field after the battle (captured hulks)
            for p in event.witnesses:
                self.groups[p] |= {
                    g.id for g in state.groups.values() if g.hex is not None and tuple(g.hex) == tuple(event.hex)
                }

    def hidden(self, state: State, viewer: Viewer, every_group: set[str], every_ship: set[str]) -> set[str]:
        if viewer.kind == "spectator":
            return every_group | every_ship
        p = viewer.seat or ""
        return (every_group - self.groups[p]) | (every_ship - self.ships[p])


def leaks(text: str, hidden: set[str]) -> list[str]:
    return [i for i in hidden if i in text and re.search(rf"(?<![\w-]){re.escape(i)}(?![\w-])", text)]


def check_view(state: State, viewer: Viewer, hidden: set[str]) -> None:
    v = R.view(state, viewer)
    text = json.dumps(v)
    assert not leaks(text, hidden), (viewer, leaks(text, hidden))
    assert "economies" not in v and "orders" not in v
    if viewer.kind == "seat":
        assert v["economy"] is not None and all(g["owner"] == viewer.seat for g in v["groups"])
        for w in v["map"]["worlds"]:
            truth = state.worlds[w["id"]]
            if "idp" in w:
                assert truth.owner == viewer.seat
            if "income" in w and truth.owner != viewer.seat:
                assert truth.owner is None and truth.scouted
        for s in v["steps"]:
            assert set(s) == {"id", "kind", "hex", "players", "awaiting", "my_choice"}
    else:
        assert v["groups"] == [] and v["sightings"] == [] and v["economy"] is None


def check_event(event: Event, state: State, viewer: Viewer, hidden: set[str]) -> None:
    """Audience from the hand-written table (audience.py), sealed content, and no unknown ids."""
    red = R.redact(event, viewer, state)
    tag = type(event).__struct_config__.tag
    data = msgspec.to_builtins(event)
    p = viewer.seat
    if not may_receive(tag, data, p):
        assert red is None, f"{tag} reached {viewer.label}, outside its audience ({audience(tag)})"
        return
    assert red is not None, f"{tag} withheld from {viewer.label}, who is in its audience"
    if audience(tag) == "public":
        assert red == event, f"public {tag} redacted for {viewer.label}"
    text = msgspec.json.encode(red).decode() + json.dumps(R.explain(red))
    assert not leaks(text, hidden), (tag, viewer, leaks(text, hidden))
    if isinstance(red, E.OrdersSubmitted) and red.player != p:
        assert red.orders is None
    if isinstance(red, E.ChoiceMade) and red.player != p:
        assert red.choice is None and red.to is None
    if isinstance(red, E.FormationDeclared) and red.player != p:
        assert red.formation is None


def test_the_audience_table_names_every_event() -> None:
    assert set(AUDIENCE) == {t.__struct_config__.tag for t in R.event_types}


def check_errors(state: State, viewer: Viewer, hidden: set[str]) -> None:
    """An error for a hidden group reads exactly like one for a group that does not exist."""
    if viewer.kind != "seat" or state.phase not in ("orders", "deployment"):
        return
    for gid in sorted(i for i in hidden if i in state.groups)[:2]:
        details = []
        for probe in (gid, "zz-no-such-group"):
            with pytest.raises(NotYourPiece) as info:
                R.decide(state, C.SplitGroup(group=probe, ships=("x",)), viewer, Dice(b"x", "g", 1))
            details.append(info.value.detail.replace(probe, "?"))
        assert details[0] == details[1]


def invariants(state: State) -> None:
    placed = [s for g in state.groups.values() for s in g.ships]
    assert sorted(placed) == sorted(state.ships), "every ship is in exactly one task group"
    for g in state.groups.values():
        assert g.dummy or g.ships, g
        assert (g.hex is None) == (g.ftl_to is not None) or g.hex is not None
        if g.hex is not None:
            assert max(abs(g.hex[0]), abs(g.hex[1]), abs(g.hex[0] + g.hex[1])) <= state.radius
        assert all(state.ships[s].owner == g.owner for s in g.ships)
    for e in state.economies.values():
        assert e.cash >= 0
    for w in state.worlds.values():
        assert w.owner in (None, *state.order) and w.idp >= 0
    for s in state.steps:
        assert set(s.awaiting) <= set(s.players)
    assert state.phase != "contacts" or state.steps or state.battles or state.over


@pytest.mark.parametrize(
    ("scenario", "seed", "turns"),
    [
        ("intro-duel", 0, 12),
        ("intro-duel", 3, 12),
        ("intro-duel", 4, 12),
        ("three-powers", 3, 8),
    ],
)
def test_random_campaigns_fold_and_leak_nothing(scenario: str, seed: int, turns: int) -> None:
    state = start(scenario)
    viewers = [*(seat(p) for p in state.order), SPECTATOR]
    oracle = Oracle(state)
    enc = msgspec.json.Encoder()
    cmd_dec, ev_dec = command_decoder(), event_decoder()
    log = []
    every_group: set[str] = set()
    every_ship: set[str] = set()
    n = 0
    for live, cmd, _actor, events in random_game(scenario, seed, max_turn=turns):
        n += 1
        assert cmd_dec.decode(enc.encode(cmd)) == cmd
        for e in events:
            state = R.evolve(state, ev_dec.decode(enc.encode(e)))  # folded from the wire form, apart from live
            log.append(e)
            oracle.update(state, e)
            every_group |= set(state.groups)
            every_ship |= set(state.ships)
            for viewer in viewers:
                hidden = oracle.hidden(state, viewer, every_group, every_ship)
                check_event(e, state, viewer, hidden)
        assert state == live
        invariants(state)
        for viewer in viewers:
            hidden = oracle.hidden(state, viewer, every_group, every_ship)
            check_view(state, viewer, hidden)
            drawing = enc.encode(R.draw(state, viewer)).decode()
            assert not leaks(drawing, hidden), (viewer, leaks(drawing, hidden))
            if n % 5 == 0:
                opts = enc.encode({"options": R.options(state, viewer), "forms": R.forms(state, viewer)}).decode()
                assert not leaks(opts, hidden), (viewer, leaks(opts, hidden))
                check_errors(state, viewer, hidden)
        assert R.options(state, SPECTATOR) == [] and R.forms(state, SPECTATOR) == []
    assert R.is_over(state) or state.turn >= turns
    assert msgspec.json.decode(enc.encode(state), type=State) == state
    assert R.view(state, UMPIRE)["turn"] == state.turn


def test_every_option_is_accepted_on_a_sample() -> None:
    """options() offers only commands decide() accepts (and complete ones: they round-trip as JSON)."""
    checked = 0
    dec = command_decoder()
    for i, (state, _, _, _) in enumerate(random_game("intro-duel", 5, max_turn=4)):
        if i % 3:
            continue
        for viewer in [*(seat(p) for p in state.order), UMPIRE]:
            for option in R.options(state, viewer)[:30]:
                cmd = option.command
                assert option.label and "{" not in option.label
                assert dec.decode(msgspec.json.encode(cmd)) == cmd
                try:
                    R.decide(state, cmd, viewer, Dice(b"opt", "g", 7))
                except RuleViolation as exc:  # pragma: no cover - the assertion message is the point
                    raise AssertionError(f"option refused: {cmd} ({exc})") from exc
                checked += 1
    assert checked > 100
