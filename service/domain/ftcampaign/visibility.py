"""Per-viewer redaction of events and views (FTC-TG-3, FTC-MOV-1, FTC-MOV-4; rulings FTC-R-7..9).

Secret from other players: task group compositions (until contact), positions (beyond what their own forces
see, as of when they saw it), sealed orders and choices, economies, and the incomes/IDP of their worlds.
Public: the map, the set-up claims, scouted neutral worlds, technology approvals and rulings, and who has
sealed orders (never what they are).
"""

from __future__ import annotations

from typing import Any

import msgspec
from msgspec.structs import replace

from service.domain.core import Event, Viewer

from . import events as E
from .state import Battle, State, key


def observer(viewer: Viewer) -> str | None:
    """None for the umpire; "" for a spectator; the seat otherwise."""
    if viewer.is_umpire:
        return None
    return viewer.seat or "" if viewer.kind == "seat" else ""


def _battle_for(b: Battle, obs: str) -> Battle:
    return replace(b, formations={p: f for p, f in b.formations.items() if p == obs})


def redact(event: Event, viewer: Viewer, state: State) -> Event | None:  # noqa: C901 - one case per audience
    obs = observer(viewer)
    if obs is None or isinstance(event, E.PUBLIC):
        return event
    if isinstance(event, E.OrdersSubmitted):
        return event if event.player == obs else replace(event, orders=None)
    if isinstance(event, E.PRIVATE):
        return event if getattr(event, "player", None) == obs else None
    if isinstance(event, E.LOCAL):
        if obs not in event.witnesses:  # type: ignore[attr-defined]
            return None
        if isinstance(event, E.ChoiceMade) and event.player != obs:
            return replace(event, choice=None, to=None)
        if isinstance(event, E.FormationDeclared) and event.player != obs:
            return replace(event, formation=None)
        if isinstance(event, E.BattleStarted):
            return replace(event, battle=_battle_for(event.battle, obs))
        if isinstance(event, E.BattleRecorded):
            return replace(event, ordnance={p: v for p, v in event.ordnance.items() if p == obs})
        if isinstance(event, E.StepOpened):
            return replace(event, step=replace(event.step, choices={}, destinations={}))
        return event
    return None


def redact_setup(setup: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    return setup  # the scenario (players, designs, map size) is public; the map is dice, made in play


def _world_view(state: State, wid: str, obs: str | None) -> dict[str, Any]:
    w = state.worlds[wid]
    out: dict[str, Any] = {"id": wid, "hex": list(w.hex), "route": w.route}
    if obs is None:
        owner = w.owner
    elif w.owner == obs and obs:
        owner = obs
    else:
        seen = state.intel.get(obs, {}).get(wid) if obs else None
        owner = seen.owner if seen is not None else w.setup_owner
    out["owner"] = owner
    if obs is None or (obs and w.owner == obs):
        out.update(income=w.income, idp=w.idp, idp_full=w.idp_full, interdicted=w.interdicted, closed=w.closed,
                   capital=w.capital_of is not None and w.capital_of == w.owner)
    elif w.owner is None and w.scouted and owner is None:
        out["income"] = w.income  # FTC-WLD-5: scouting results are public
    return out


def _group_view(state: State, gid: str) -> dict[str, Any]:
    g = state.groups[gid]
    d = msgspec.to_builtins(g)
    d["ships"] = [msgspec.to_builtins(state.ships[s]) for s in g.ships if s in state.ships]
    return d


def view(state: State, viewer: Viewer) -> dict[str, Any]:
    obs = observer(viewer)
    me = obs or None
    out: dict[str, Any] = {
        "title": state.setup.title,
        "turn": state.turn,
        "phase": state.phase,
        "economic_turn": state.economic_turn,
        "over": state.over,
        "current": state.current,
        "map": {
            "side": state.radius + 1,
            "worlds": [_world_view(state, wid, obs) for wid in sorted(state.worlds)],
            "routes": [[list(a), list(b)] for a, b in state.routes],
        },
        "players": [
            {"id": p.id, "name": p.name, "species": p.species, "orders_sealed": p.id in state.orders,
             "ready": state.economies[p.id].ready if p.id in state.economies else False}
            for p in state.setup.players
        ],
        "rulings": list(state.rulings),
        "approved_technology": list(state.approvals),
    }
    if obs is None:
        out["groups"] = [_group_view(state, gid) for gid in sorted(state.groups)]
        out["economies"] = {p: msgspec.to_builtins(e) for p, e in state.economies.items()}
        out["orders"] = {p: msgspec.to_builtins(o) for p, o in state.orders.items()}
        out["steps"] = [msgspec.to_builtins(s) for s in state.steps]
        out["battles"] = [msgspec.to_builtins(b) for b in state.battles]
        return out
    out["groups"] = [_group_view(state, gid) for gid in sorted(state.groups) if state.groups[gid].owner == me]
    out["economy"] = msgspec.to_builtins(state.economies[me]) if me in state.economies else None
    mine = sorted(state.intel.get(me or "", {}).items())
    out["sightings"] = [{"hex": [int(x) for x in k.split(",")], **msgspec.to_builtins(s)} for k, s in mine]
    out["steps"] = [
        {"id": s.id, "kind": s.kind, "hex": list(s.hex), "players": list(s.players), "awaiting": list(s.awaiting),
         "my_choice": s.choices.get(me or "")}
        for s in state.steps if me in s.players
    ]
    out["battles"] = [
        {**msgspec.to_builtins(_battle_for(b, me or "")), "declared": sorted(b.formations)}
        for b in state.battles if me in [f.player for f in b.forces]
    ]
    if me in state.orders:
        out["my_orders"] = msgspec.to_builtins(state.orders[me])
    return out


def visible_hexes(state: State, player: str) -> set[str]:
    """Where a player's own forces are now (test support and options)."""
    found = {key(g.hex) for g in state.groups.values() if g.owner == player and g.hex is not None}
    return found | {k for k, w in state.worlds.items() if w.owner == player}
