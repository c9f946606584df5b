"""view(state, viewer): the ship sheets; draw(state, viewer): the drawing contract. Nothing is hidden
(hidden_information=False, SF-R-1), so every viewer sees the same pieces; only ``mine`` and ``you`` differ."""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import Viewer
from service.domain.core.drawing import Arc, Bar, Board, Drawing, Effect, Piece, SeatStatus, Status, Track, pt
from service.domain.core.hexgrid import FACING_NAMES

from .checks import defence, speed
from .flow import awaited
from .geometry import swap
from .scenario import RANGES
from .state import CONDITIONS, GameState, Projectile
from .status import phase_label, seat_status, umpire_duty


def view(state: GameState, viewer: Viewer) -> dict[str, Any]:
    my_side = None
    if viewer.kind == "seat" and viewer.seat in state.crew:
        my_side = state.ships[state.crew[viewer.seat].ship].side
    ships = []
    for sid, s in state.ships.items():
        spec = state.specs[sid]
        ships.append(
            {
                "id": sid,
                "name": spec.label,
                "side": s.side,
                "hex": [s.hex.q, s.hex.r],
                "facing": s.facing,
                "status": s.status,
                "hull": s.hull,
                "max_hull": spec.hp,
                "dt": spec.dt,
                "critical_threshold": spec.critical_threshold,
                "shields": {q: s.shields.get(q, 0) for q in ("forward", "starboard", "aft", "port")},
                "max_shields": spec.max_shields,
                "critical_damage": {
                    k: {
                        "condition": CONDITIONS[v],
                        "patched": s.patched.get(k, 0),
                        "counts_as": CONDITIONS[s.condition(k)],
                    }
                    for k, v in s.conditions.items()
                    if v
                },
                "ac": defence(state, sid, "AC")[0],
                "tl": defence(state, sid, "TL")[0],
                "speed": speed(state, sid),
                "battle_stations": s.battle_stations,
                "revealed_to": list(s.revealed_to),
                "known": my_side is None or my_side == s.side or my_side in s.revealed_to,
                "effects": {
                    "defence": s.defence,
                    "barrel_roll": s.rolled,
                    "speed_bonus": s.speed_bonus,
                    "flyby": s.flyby,
                    "lock_on": list(s.locks),
                    "countermeasures": list(s.countermeasures),
                },
                "fired": list(s.fired),
                "arc_picks": dict(s.arc_picks),
                "crew": [
                    {
                        "seat": c.seat,
                        "name": state.members[c.seat].name or state.members[c.seat].id,
                        "role": c.role,
                        "next_role": c.next_role,
                        "acted": c.acted,
                        "bonus": c.bonus,
                    }
                    for c in state.crew_of(sid)
                ],
                "data_sheet": msgspec.to_builtins(spec),
            }
        )
    return {
        "ruleset": "starfinder",
        "round": state.round,
        "turn": state.round,
        "phase": state.phase,
        "round_limit": state.round_limit,
        "sides": list(state.sides),
        "map": {"kind": "hex", "orientation": "flat-top axial", "facings": ["N", "NE", "SE", "S", "SW", "NW"]},
        "helm_order": list(state.order),
        "piloting_results": dict(state.results),
        "acting_ship": state.slot_ship,
        "awaiting": awaited(state),
        "ships": ships,
        "projectiles": [msgspec.to_builtins(p) | {"hex": [p.hex.q, p.hex.r]} for p in state.projectiles.values()],
        "engineering_declared": msgspec.to_builtins(state.declared),
        "pending_hits": len(state.pending),
        "over": state.over,
        "winner": state.winner,
        "result": state.result,
    }


# --- the drawing (docs/view-contract.md) ----------------------------------------------------------------------

# SF-GUN-3/4: each arc's bearings relative to the facing, clockwise degrees (facing k points at 60k degrees)
ARC_BEARINGS = {"forward": (-60, 60), "starboard": (60, 120), "aft": (120, 240), "port": (240, 300)}
QUADRANTS = ("forward", "starboard", "aft", "port")


def draw(state: GameState, viewer: Viewer) -> Drawing:
    mine = state.crew[viewer.seat].ship if viewer.kind == "seat" and viewer.seat in state.crew else None
    pieces = [_ship_piece(state, sid, sid == mine) for sid in state.ships]
    pieces += [_projectile_piece(state, p) for p in state.projectiles.values()]
    arc_ships = [mine] if mine else [k for k, s in state.ships.items() if s.active]
    seats = tuple(SeatStatus(s, *seat_status(state, s)) for s in state.crew)
    you = next((s for s in seats if s.seat == viewer.seat), None) if viewer.kind == "seat" else None
    status = Status(
        turn=state.round,
        phase=state.phase,
        phase_label=phase_label(state),
        seats=seats,
        you=you,
        umpire=umpire_duty(state) if viewer.is_umpire else None,
        over=state.over,
        result=state.result or None,
    )
    return Drawing(
        board=Board(kind="hex", units="hexes", orientation="flat", facings=FACING_NAMES),
        status=status,
        pieces=tuple(pieces),
        arcs=tuple(a for sid in arc_ships for a in _arcs(state, sid)),
        tracks=tuple(
            Track(kind=t.kind, points=tuple(pt(h.q, h.r) for h in t.points), piece=t.piece, label=t.label)
            for t in state.trails
        ),
        effects=tuple(
            Effect(
                n=m.n,
                kind=m.kind,
                text=m.text,
                source=m.source,
                target=m.target,
                at=pt(m.at.q, m.at.r) if m.at else None,
                amount=m.amount,
                rule=m.rule,
            )
            for m in state.marks
        ),
        sides=state.sides,
    )


def _ship_piece(state: GameState, sid: str, mine: bool) -> Piece:
    s, spec = state.ships[sid], state.specs[sid]
    bars = [Bar("hull", s.hull, spec.hp)]
    bars += [
        Bar(f"{q} shields", s.shields.get(q, 0), max(spec.shields.get(q, 0), s.shields.get(q, 0), 1)) for q in QUADRANTS
    ]
    notes = [
        f"tier {spec.tier} {spec.size}",
        f"speed {speed(state, sid)} ({spec.maneuverability})",
        f"AC {defence(state, sid, 'AC')[0]} TL {defence(state, sid, 'TL')[0]}",
    ]
    notes.append("at battle stations" if s.battle_stations else "targeting off")
    notes += [f"{k.replace('_', ' ')} {CONDITIONS[s.condition(k)]}" for k in s.conditions if s.condition(k)]
    if s.rolled:
        notes.append("barrel rolled: port and starboard swapped")
    return Piece(
        id=sid,
        kind="ship",
        label=spec.label,
        at=pt(s.hex.q, s.hex.r),
        side=s.side,
        facing=s.facing,
        status=s.status,
        bars=tuple(bars),
        detail=" · ".join(notes),
        mine=mine,
    )


def _projectile_piece(state: GameState, p: Projectile) -> Piece:
    weapon = next((w.label for w in state.specs[p.ship].weapons if w.id == p.weapon), p.weapon)
    return Piece(
        id=p.id,
        kind="projectile",
        label=f"{weapon} → {state.specs[p.target].label}",
        at=pt(p.hex.q, p.hex.r),
        side=state.ships[p.ship].side,
        status="in flight",
        detail=f"speed {p.speed}, tracking {p.target} (SF-GUN-8)",
    )


def _arcs(state: GameState, sid: str) -> list[Arc]:
    s = state.ships[sid]
    out = []
    for w in state.specs[sid].weapons:
        arc = swap(w.arc) if s.rolled and w.arc != "turret" else w.arc
        lo, hi = (0, 360) if arc == "turret" else ARC_BEARINGS[arc]
        inc = RANGES[w.range]
        fired = " — fired this round" if w.id in s.fired else ""
        label = f"{w.label}: {arc}, {w.damage}{' linked' if w.linked else ''}, {w.range} range {inc} hexes{fired}"
        out.append(Arc(piece=sid, label=label, from_deg=lo + 60 * s.facing, to_deg=hi + 60 * s.facing, range=inc))
    return out
