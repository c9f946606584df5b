"""Shared rule helpers: the event accumulator, actor checks, lookups and geometry."""

from __future__ import annotations

import msgspec
from msgspec.structs import replace

from service.domain.core import Actor, NotYourPiece, RuleViolation
from service.domain.core.acc import Acc
from service.domain.core.hexgrid import FACING_NAMES, Hex, arcs_containing

from . import events as E
from .evolve import evolve
from .state import Counter, Economy, Group, HexT, Ship, Sighting, State, World, key, unkey

LIGHT_MASS = 20  # a "light element" is one ship of at most this mass (FTC-R-4)


def accumulator(state: State) -> Acc[State]:
    """The one accumulator (core.acc): events decided so far, folded as they are added."""
    return Acc(state, evolve)


def player_of(state: State, actor: Actor) -> str:
    if actor.kind != "seat" or actor.seat not in state.economies:
        raise RuleViolation("FTC-UMP-1", "this command is a player's; the umpire acts through umpire commands")
    return actor.seat


def phase(state: State, *phases: str, rule: str = "FTC-TIME-1") -> None:
    if state.phase not in phases:
        raise RuleViolation(rule, f"not now: the campaign is in the {state.phase} phase")


def econ(state: State, player: str) -> Economy:
    return state.economies.get(player, Economy())


def own_group(state: State, player: str, gid: str) -> Group:
    g = state.groups.get(gid)
    if g is None or g.owner != player:
        raise NotYourPiece("FTC-TG-1", f"task group {gid!r} is not one of yours")
    return g


def own_ship(state: State, player: str, sid: str) -> Ship:
    s = state.ships.get(sid)
    if s is None or s.owner != player:
        raise NotYourPiece("FTC-TG-1", f"ship {sid!r} is not one of yours")
    return s


def group_of(state: State, sid: str) -> Group | None:
    return next((g for g in state.groups.values() if sid in g.ships), None)


def own_world(state: State, player: str, wid: str, rule: str) -> World:
    w = state.worlds.get(wid)
    if w is None:
        raise RuleViolation("FTC-MAP-2", f"there is no world at {wid}")
    if w.owner != player:
        raise RuleViolation(rule, f"{wid} is not your world")
    return w


def on_map(state: State, h: HexT) -> bool:
    return Hex(0, 0).distance_to(Hex(h[0], h[1])) <= state.radius


def dist(a: HexT, b: HexT) -> int:
    return Hex(a[0], a[1]).distance_to(Hex(b[0], b[1]))


def in_direction(origin: HexT, target: HexT, side: int) -> bool:
    """Inside the 60° wedge centred on hexside ``side`` (general ruling; boundary hexes count)."""
    return side in arcs_containing(Hex(origin[0], origin[1]), Hex(target[0], target[1]), 0)


def hexside_from(to: HexT, frm: HexT) -> str:
    """The hexside of ``to`` crossed by a group arriving from ``frm`` (FTC-ARR-12)."""
    bearing = Hex(to[0], to[1]).bearing_to(Hex(frm[0], frm[1]))
    return FACING_NAMES[round(bearing / 60.0) % 6]


TABLE_EDGE = {"N": "top", "NE": "right", "SE": "right", "S": "bottom", "SW": "left", "NW": "left"}


def intact_rows(ship: Ship) -> int:
    row = -(-ship.hull // max(1, ship.hull_rows))
    return max(0, ship.hull_rows - -(-ship.hull_lost // max(1, row)))


def fleet_points(state: State, ships: list[str] | tuple[str, ...]) -> int:
    """Points of committed ships: list cost; damage does not count, losses do (FTC-DEF-1)."""
    return sum(state.ships[s].cost for s in ships if s in state.ships and not state.ships[s].hulk)


def is_lone_scout(state: State, ships: tuple[str, ...] | list[str]) -> bool:
    live = [s for s in ships if s in state.ships]
    return len(live) == 1 and state.ships[live[0]].mass <= LIGHT_MASS


def hulkless(state: State, g: Group) -> list[str]:
    return [s for s in g.ships if s in state.ships and not state.ships[s].hulk]


def new_id(state: State, player: str, letter: str) -> str:
    return f"{player}-{letter}{econ(state, player).seq + 1}"


def encode(value: object) -> object:
    return msgspec.to_builtins(value)


def groups_at_hex(state: State, h: HexT) -> list[Group]:
    return [g for g in state.groups.values() if g.hex is not None and tuple(g.hex) == tuple(h)]


def witnesses_at(state: State, h: HexT, extra: tuple[str | None, ...] = ()) -> tuple[str, ...]:
    """Players whose forces (groups, or the world itself) are at ``h``, plus ``extra``, in turn order."""
    here = {g.owner for g in groups_at_hex(state, h)} | {p for p in extra if p}
    w = state.worlds.get(key(h))
    if w is not None and w.owner:
        here.add(w.owner)
    return tuple(p for p in state.order if p in here)


def record_intel(out: Acc[State], h: HexT, players: tuple[str, ...], composition: bool) -> None:
    """FTC-TG-3: what a player's own forces saw here, as of now; compositions only after contact."""
    st = out.state
    w = st.worlds.get(key(h))
    for p in players:
        prior = st.intel.get(p, {}).get(key(h))
        known = {c.group: c.ships for c in prior.counters} if prior and prior.turn == st.turn else {}
        counters = []
        for g in sorted(groups_at_hex(st, h), key=lambda g: g.id):
            if g.owner == p:
                continue
            ships = (
                tuple(f"{s}:{st.ships[s].design}" for s in g.ships if s in st.ships)
                if (composition and not g.dummy)
                else known.get(g.id)
            )
            counters.append(
                Counter(group=g.id, owner=g.owner, posture="attack" if g.posture == "attack" else None, ships=ships)
            )
        sighting = Sighting(turn=st.turn, owner=w.owner if w else None, counters=tuple(counters))
        if prior is not None and replace(prior, turn=st.turn) == sighting and prior.turn == st.turn:
            continue
        out.add(E.IntelGathered(player=p, hex=h, sighting=sighting))


def gather_all_intel(out: Acc[State]) -> None:
    st = out.state
    for p in st.order:
        seen = {key(g.hex) for g in st.groups.values() if g.owner == p and g.hex is not None}
        seen |= {k for k, w in st.worlds.items() if w.owner == p}
        for k in sorted(seen):
            prior = st.intel.get(p, {}).get(k)
            others = [g for g in groups_at_hex(st, unkey(k)) if g.owner != p]
            w = st.worlds.get(k)
            if others or (prior is not None and (prior.counters or (w and prior.owner != w.owner))):
                record_intel(out, unkey(k), (p,), composition=False)
