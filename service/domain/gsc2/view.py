"""view(state, viewer): everything a table-drawing web page needs (GSC2 has no hidden information)."""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import Viewer

from .movement import allowance
from .state import GameState, ShipState


def move_limits(state: GameState, ship: ShipState) -> dict[str, Any]:
    """How far the ship may still go and when its next free 45° turn comes (GSC2-MOV-3/4)."""
    td = state.specs[ship.id].turn_distance
    since = ship.since_turn if ship.move_state == "moving" else 0.0
    left = allowance(ship) if ship.move_state != "moved" else 0.0
    return {
        "max_distance_left": round(left, 6),
        "free_turn_after": round(max(0.0, td - since), 6),
        "paid_turn_cost": 4.0,
        "turn_degrees": 45,
        "end_of_move_turn": 0 < ship.speed < td,
    }


def view(state: GameState, viewer: Viewer) -> dict[str, Any]:
    ships = []
    for sid, s in state.ships.items():
        spec = state.specs[sid]
        ships.append({
            "id": sid, "name": spec.name, "side": s.side, "x": s.pos.x, "y": s.pos.y, "heading": s.heading,
            "status": s.status, "captured_by": s.captured_by, "hull": s.hull, "max_hull": spec.hull,
            "crew": s.crew, "speed": s.speed, "shield_pool": s.shield_pool,
            "moved": s.moved, "move_state": s.move_state, "held": s.held, "contacts": list(s.contacts),
            "systems": msgspec.to_builtins(s.sys), "boarders": msgspec.to_builtins(s.boarders),
            "missiles_left": s.missiles_left, "assault_pods": s.pods, "used_this_turn": list(s.used),
            "move_limits": move_limits(state, s) if s.active and state.phase == "movement" else None,
            "data_sheet": msgspec.to_builtins(spec),
        })
    o = state.order
    return {
        "ruleset": "gsc2",
        "turn": state.turn, "phase": state.phase, "turn_limit": state.turn_limit,
        "table": {"width": state.table[0], "height": state.table[1], "units": "inches"},
        "sides": list(state.sides),
        "done": list(state.done),
        "order": {"stage": o.stage, "side": o.side, "owed": o.owed, "batch": o.count, "leader": o.leader,
                  "passed": list(o.passed)},
        "to_act": o.side if o.stage not in ("done", "none", "attack") else None,
        "moving": state.moving,
        "ships": ships,
        "missiles": [msgspec.to_builtins(m) | {"x": m.pos.x, "y": m.pos.y} for m in state.salvos.values()],
        "pods": [msgspec.to_builtins(p) | {"x": p.pos.x, "y": p.pos.y} for p in state.pods.values()],
        "terrain": [msgspec.to_builtins(t.spec) | {"x": t.pos.x, "y": t.pos.y} for t in state.terrain.values()],
        "pending_hits": len(state.pending),
        "boarding_orders": msgspec.to_builtins(state.boarding),
        "rulings": msgspec.to_builtins(state.rulings),
        "over": state.over, "winner": state.winner, "result": state.result,
    }
