"""view(state, viewer): the ship sheets' data; draw(state, viewer): the table as the page draws it.

GSC2 has no hidden information: every viewer sees the whole table. The drawing differs per viewer only
in what is ``mine`` and whose fire arcs are shown. The game measures y up the table; the drawing's y runs
down the page (docs/view-contract.md), so drawn positions are (x, height − y) and headings stay as they are
(0 = up the table = up the page, clockwise).
"""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import Viewer
from service.domain.core.drawing import Arc, Bar, Board, Drawing, Effect, Marker, Piece, Point2, Track, pt
from service.domain.core.plane import Point

from .combat import NORMAL_RANGE, inches
from .movement import move_limits
from .ships import ARCS
from .state import GameState, Mark, ShipState, Trail
from .status import status


def screen(p: Point, state: GameState) -> Point2:
    return pt(p.x, state.table[1] - p.y)


def view(state: GameState, viewer: Viewer) -> dict[str, Any]:
    ships = []
    for sid, s in state.ships.items():
        spec = state.specs[sid]
        ships.append(
            {
                "id": sid,
                "name": spec.name,
                "side": s.side,
                "x": s.pos.x,
                "y": s.pos.y,
                "heading": s.heading,
                "status": s.status,
                "captured_by": s.captured_by,
                "hull": s.hull,
                "max_hull": spec.hull,
                "crew": s.crew,
                "speed": s.speed,
                "shield_pool": s.shield_pool,
                "moved": s.moved,
                "move_state": s.move_state,
                "held": s.held,
                "turned": s.turned,
                "contacts": list(s.contacts),
                "systems": msgspec.to_builtins(s.sys),
                "boarders": msgspec.to_builtins(s.boarders),
                "missiles_left": s.missiles_left,
                "last_launch": s.last_launch,
                "assault_pods": s.pods,
                "used_this_turn": list(s.used),
                "mds_used": s.mds_used,
                "move_limits": move_limits(state, s) if s.active and state.phase == "movement" else None,
                "data_sheet": msgspec.to_builtins(spec),
            }
        )
    o = state.order
    return {
        "ruleset": "gsc2",
        "turn": state.turn,
        "phase": state.phase,
        "turn_limit": state.turn_limit,
        "table": {"width": state.table[0], "height": state.table[1], "units": "inches"},
        "sides": list(state.sides),
        "done": list(state.done),
        "order": {
            "stage": o.stage,
            "side": o.side,
            "owed": o.owed,
            "batch": o.count,
            "leader": o.leader,
            "passed": list(o.passed),
        },
        "to_act": o.side if o.stage not in ("done", "none", "attack") else None,
        "moving": state.moving,
        "ships": ships,
        "missiles": [msgspec.to_builtins(m) | {"x": m.pos.x, "y": m.pos.y} for m in state.salvos.values()],
        "pods": [msgspec.to_builtins(p) | {"x": p.pos.x, "y": p.pos.y} for p in state.pods.values()],
        "terrain": [msgspec.to_builtins(t.spec) | {"x": t.pos.x, "y": t.pos.y} for t in state.terrain.values()],
        "pending_hits": len(state.pending),
        "boarding_orders": msgspec.to_builtins(state.boarding),
        "rulings": msgspec.to_builtins(state.rulings),
        "over": state.over,
        "winner": state.winner,
        "result": state.result,
    }


def _ship_piece(state: GameState, s: ShipState, you: str | None) -> Piece:
    spec = state.specs[s.id]
    bars = [Bar("Hull", s.hull, spec.hull)]
    if spec.shields:
        bars.append(Bar("Shields", s.shield_pool, spec.shields))
    bars.append(Bar("Crew", s.crew, spec.crew))
    moved = {"unmoved": "not moved yet", "moving": "moving", "moved": "did not move"}[s.move_state]
    bits = [f'speed {s.speed}"', f"moved {inches(s.moved)} this turn" if s.moved else moved]
    if s.level("deflectors"):
        bits.append(f"deflectors {s.level('deflectors')}")
    if s.held:
        bits.append("held by a tractor beam")
    if s.status != "active":
        bits.insert(0, {"left": "left the table", "captured": f"captured by {s.captured_by}"}.get(s.status, s.status))
    return Piece(
        id=s.id,
        kind="ship",
        label=spec.name,
        at=screen(s.pos, state),
        side=s.side,
        facing=s.heading,
        status=s.status,
        bars=tuple(bars),
        detail=f"{spec.name} ({s.side}): " + ", ".join(bits),
        mine=s.side == you,
    )


def _pieces(state: GameState, you: str | None) -> list[Piece]:
    out = [_ship_piece(state, s, you) for s in state.ships.values()]
    for m in state.salvos.values():
        target = state.ships.get(m.target)
        facing = m.pos.bearing_to(target.pos) if target is not None and target.pos != m.pos else None
        to = state.specs[m.target].name if m.target in state.specs else m.target
        out.append(
            Piece(
                id=m.id,
                kind="missile",
                label=f"{m.count} missile(s) → {to}",
                at=screen(m.pos, state),
                side=m.side,
                facing=facing,
                detail=f"salvo {m.id} from {state.specs[m.ship].name}, {m.damage} damage each, targeting {m.targeting}",
                mine=m.side == you,
            )
        )
    for p in state.pods.values():
        ram = f", ramming {state.specs[p.ram].name}" if p.ram in state.specs else ""
        out.append(
            Piece(
                id=p.id,
                kind="pod",
                label=f"Pod {p.id} ({p.squad})",
                at=screen(p.pos, state),
                side=p.side,
                detail=f"assault pod from {state.specs[p.ship].name}{ram}",
                mine=p.side == you,
            )
        )
    for t in state.terrain.values():
        drift = f', drifts ({t.spec.dx:g}, {t.spec.dy:g})" a turn' if t.spec.dx or t.spec.dy else ""
        out.append(
            Piece(
                id=t.spec.id,
                kind="terrain",
                label=f"{t.spec.kind.capitalize()} {t.spec.id}",
                at=screen(t.pos, state),
                detail=f"{t.spec.kind}, radius {inches(t.spec.radius)}{drift}",
                size=t.spec.radius,
            )
        )
    return out


def _arcs(state: GameState, viewer: Viewer) -> list[Arc]:
    """Fire arcs of the viewer's ships (every ship's for the umpire): normal range, edges inclusive."""
    out: list[Arc] = []
    for s in state.ships.values():
        if not s.active or not (viewer.is_umpire or s.side == viewer.seat):
            continue
        spec = state.specs[s.id]
        for b in spec.beams:
            if not s.sys[b.id].working:
                continue
            centre, width = ARCS[b.arc]
            label = f"{b.name or b.id} ({b.klass}, {b.arc}): no range penalty to {inches(NORMAL_RANGE[b.klass])}"
            out.append(
                Arc(
                    piece=s.id,
                    label=label,
                    from_deg=centre - width / 2,
                    to_deg=centre + width / 2,
                    range=NORMAL_RANGE[b.klass],
                )
            )
        for sy in spec.systems:
            if sy.kind == "tractor_beam" and s.sys[sy.id].working:
                out.append(
                    Arc(
                        piece=s.id,
                        label=f"tractor beam {sy.id}: range {inches(sy.range)}",
                        from_deg=-180.0,
                        to_deg=180.0,
                        range=sy.range,
                    )
                )
    return out


def _markers(state: GameState) -> list[Marker]:
    """Lasting marks: immobilized enemies a ship touched this turn (GSC2-MOV-7, boardable by contact) and
    ships held by a tractor beam (GSC2-R-3)."""
    out = []
    for s in state.ships.values():
        for other in s.contacts:
            if other in state.ships:
                out.append(
                    Marker(
                        kind="contact",
                        at=screen(state.ships[other].pos, state),
                        piece=other,
                        label=f"{state.specs[s.id].name} is in contact with {state.specs[other].name}",
                    )
                )
        if s.held and s.active:
            out.append(
                Marker(
                    kind="held",
                    at=screen(s.pos, state),
                    piece=s.id,
                    label=f"{state.specs[s.id].name} is held by a tractor beam",
                )
            )
    return out


def _track(state: GameState, t: Trail) -> Track:
    points = tuple(screen(p, state) for p in t.points)
    if t.kind == "move":
        length = sum(a.distance_to(b) for a, b in zip(t.points, t.points[1:], strict=False))
        label = f"{state.specs[t.piece].name} moved {inches(length)}"
    else:
        label = f"salvo {t.piece}"
    return Track(kind=t.kind, points=points, piece=t.piece, label=label)


def _homing(state: GameState) -> list[Track]:
    """Each salvo's line to its target (GSC2-MSL-3: 12" a turn straight at it), for the page to dash."""
    out = []
    for m in state.salvos.values():
        target = state.ships.get(m.target)
        if target is not None and target.active:
            d = m.pos.distance_to(target.pos)
            out.append(
                Track(
                    kind="plan",
                    points=(screen(m.pos, state), screen(target.pos, state)),
                    piece=m.id,
                    label=f"salvo {m.id} homing on {state.specs[m.target].name}, {inches(round(d, 1))} away",
                )
            )
    return out


def _effect(state: GameState, m: Mark) -> Effect:
    return Effect(
        n=m.n,
        kind=m.kind,
        text=m.text,
        source=m.source,
        target=m.target,
        at=screen(m.at, state) if m.at is not None else None,
        amount=m.amount,
        rule=m.rule,
    )


def draw(state: GameState, viewer: Viewer) -> Drawing:
    you = viewer.seat if viewer.kind == "seat" else None
    return Drawing(
        board=Board(kind="plane", units="inches", width=state.table[0], height=state.table[1]),
        status=status(state, you),
        pieces=tuple(_pieces(state, you)),
        arcs=tuple(_arcs(state, viewer)),
        tracks=(*(_track(state, t) for t in state.trails), *_homing(state)),
        markers=tuple(_markers(state)),
        effects=tuple(_effect(state, m) for m in state.marks),
        sides=state.sides,
    )
