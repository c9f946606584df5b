"""view(state, viewer): what a hex-map web page needs. Nothing is hidden (hidden_information=False, SF-R-1)."""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import Viewer

from .checks import defence, speed
from .flow import awaited
from .state import CONDITIONS, GameState


def view(state: GameState, viewer: Viewer) -> dict[str, Any]:
    my_side = None
    if viewer.kind == "seat" and viewer.seat in state.crew:
        my_side = state.ships[state.crew[viewer.seat].ship].side
    ships = []
    for sid, s in state.ships.items():
        spec = state.specs[sid]
        ships.append({
            "id": sid, "name": spec.label, "side": s.side, "hex": [s.hex.q, s.hex.r], "facing": s.facing,
            "status": s.status, "hull": s.hull, "max_hull": spec.hp, "dt": spec.dt,
            "critical_threshold": spec.critical_threshold,
            "shields": {q: s.shields.get(q, 0) for q in ("forward", "starboard", "aft", "port")},
            "max_shields": spec.max_shields,
            "critical_damage": {k: {"condition": CONDITIONS[v], "patched": s.patched.get(k, 0),
                                    "counts_as": CONDITIONS[s.condition(k)]} for k, v in s.conditions.items() if v},
            "ac": defence(state, sid, "AC")[0], "tl": defence(state, sid, "TL")[0], "speed": speed(state, sid),
            "battle_stations": s.battle_stations, "revealed_to": list(s.revealed_to),
            "known": my_side is None or my_side == s.side or my_side in s.revealed_to,
            "effects": {"defence": s.defence, "barrel_roll": s.rolled, "speed_bonus": s.speed_bonus, "flyby": s.flyby,
                        "lock_on": list(s.locks), "countermeasures": list(s.countermeasures)},
            "fired": list(s.fired), "arc_picks": dict(s.arc_picks),
            "crew": [{"seat": c.seat, "name": state.members[c.seat].name or state.members[c.seat].id, "role": c.role,
                      "next_role": c.next_role, "acted": c.acted, "bonus": c.bonus} for c in state.crew_of(sid)],
            "data_sheet": msgspec.to_builtins(spec),
        })
    return {
        "ruleset": "starfinder",
        "round": state.round, "turn": state.round, "phase": state.phase, "round_limit": state.round_limit,
        "sides": list(state.sides),
        "map": {"kind": "hex", "orientation": "flat-top axial", "facings": ["N", "NE", "SE", "S", "SW", "NW"]},
        "helm_order": list(state.order), "piloting_results": dict(state.results),
        "acting_ship": state.slot_ship,
        "awaiting": awaited(state),
        "ships": ships,
        "projectiles": [msgspec.to_builtins(p) | {"hex": [p.hex.q, p.hex.r]} for p in state.projectiles.values()],
        "engineering_declared": msgspec.to_builtins(state.declared),
        "pending_hits": len(state.pending),
        "over": state.over, "winner": state.winner, "result": state.result,
    }
