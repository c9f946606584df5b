"""The campaign's view dict and its drawing, per viewer (docs/view-contract.md; rulings FTC-R-7..9).

What a viewer may know of worlds comes from visibility.known_owner/known_income; a player sees its own
groups, and other players' groups only where its forces see them this turn (its own sightings, FTC-TG-3).
A spectator sees the public map and the clock.
"""

from __future__ import annotations

import math
from typing import Any

import msgspec

from service.domain.core import Viewer
from service.domain.core.drawing import (
    Bar,
    Board,
    Drawing,
    Effect,
    Link,
    Marker,
    Node,
    Piece,
    Point2,
    SeatStatus,
    Status,
)

from .standing import result
from .state import Group, HexT, State, key, unkey
from .status import phase_label, seat_status, umpire_duty
from .visibility import battle_for, known_income, known_owner, observer


def at(h: HexT | list[int]) -> Point2:
    """Map coordinates of a hex centre (flat-topped axial hexes of unit size)."""
    q, r = h[0], h[1]
    return Point2(round(1.5 * q, 3), round(math.sqrt(3) * (r + q / 2), 3))


def _world_view(state: State, wid: str, obs: str | None) -> dict[str, Any]:
    w = state.worlds[wid]
    out: dict[str, Any] = {"id": wid, "hex": list(w.hex), "route": w.route}
    owner = known_owner(state, wid, obs)
    out["owner"] = owner
    if obs is None or (obs and w.owner == obs):
        out.update(
            income=w.income,
            idp=w.idp,
            idp_full=w.idp_full,
            interdicted=w.interdicted,
            closed=w.closed,
            capital=w.capital_of is not None and w.capital_of == w.owner,
        )
    elif (income := known_income(w, obs, owner)) is not None:
        out["income"] = income  # FTC-WLD-5: scouting results are public
    return out


def _group_view(state: State, gid: str) -> dict[str, Any]:
    g = state.groups[gid]
    d: dict[str, Any] = msgspec.to_builtins(g)
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
            {
                "id": p.id,
                "name": p.name,
                "species": p.species,
                "orders_sealed": p.id in state.orders,
                "ready": state.economies[p.id].ready if p.id in state.economies else False,
            }
            for p in state.setup.players
        ],
        "rulings": list(state.rulings),
        "approved_technology": list(state.approvals),
        # the published designs (public in the scenario): what a ship costs and is worth, for pages and bots
        "designs": [
            {
                "id": d.id,
                "name": d.name,
                "size_class": d.size_class,
                "cost": d.cost,
                "mass": d.mass,
                "hull": d.hull,
                "thrust": d.thrust,
            }
            for d in state.setup.designs
        ],
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
        {
            "id": s.id,
            "kind": s.kind,
            "hex": list(s.hex),
            "players": list(s.players),
            "awaiting": list(s.awaiting),
            "my_choice": s.choices.get(me or ""),
        }
        for s in state.steps
        if me in s.players
    ]
    out["battles"] = [
        {**msgspec.to_builtins(battle_for(b, me or "")), "declared": sorted(b.formations)}
        for b in state.battles
        if me in [f.player for f in b.forces]
    ]
    if me in state.orders:
        out["my_orders"] = msgspec.to_builtins(state.orders[me])
    return out


def visible_hexes(state: State, player: str) -> set[str]:
    """Where a player's own forces are now: the hexes it sees (FTC-TG-3)."""
    found = {key(g.hex) for g in state.groups.values() if g.owner == player and g.hex is not None}
    return found | {k for k, w in state.worlds.items() if w.owner == player}


# ---------------------------------------------------------------- the drawing


def _hexes(radius: int) -> list[HexT]:
    return sorted(
        (q, r) for q in range(-radius, radius + 1) for r in range(-radius, radius + 1) if abs(q + r) <= radius
    )


def _nodes(state: State, obs: str | None) -> tuple[Node, ...]:
    nodes = []  # every hex of the map (its size is public before the worlds are diced)
    for h in _hexes(state.radius):
        k = key(h)
        if k not in state.worlds:
            nodes.append(Node(id=k, label=k, at=at(h), detail="empty space"))
            continue
        w = state.worlds[k]
        owner = known_owner(state, k, obs)
        income = known_income(w, obs, owner)
        bits = ["world on a charted route" if w.route else "world"]
        if income is not None:
            bits.append(f"income {income}")
        if obs is None or (obs and w.owner == obs):
            bits.append(f"defences {w.idp} IDP")
            if w.interdicted:
                bits.append("interdicted")
        nodes.append(Node(id=k, label=f"{k} ({owner})" if owner else k, at=at(h), owner=owner, detail=", ".join(bits)))
    return tuple(nodes)


def group_label(state: State, g: Group) -> str:
    if g.dummy:
        return f"{g.id} (counter)"
    n = sum(1 for s in g.ships if s in state.ships)
    return f"{g.id} ({n} ship{'s' if n != 1 else ''})"


def _own_piece(state: State, g: Group, obs: str | None) -> Piece:
    ships = [state.ships[s] for s in g.ships if s in state.ships]
    where = g.hex if g.hex is not None else (g.ftl_from or g.ftl_to or (0, 0))
    status = "ftl" if g.hex is None else "cloaked" if g.cloaked else "dummy" if g.dummy else "active"
    names = ", ".join(s.name for s in ships) or "dummy counter"
    detail = f"{names}; posture {g.posture.replace('_', ' ')}"
    if g.hex is None and g.ftl_to is not None:
        detail += f"; in FTL for {key(g.ftl_to)}"
    hull = sum(s.hull for s in ships)
    bars = (Bar(label="hull", value=hull - sum(s.hull_lost for s in ships), max=hull),) if hull else ()
    return Piece(
        id=g.id,
        kind="group",
        label=group_label(state, g),
        at=at(where),
        side=g.owner,
        status=status,
        bars=bars,
        detail=detail,
        mine=obs is not None and g.owner == obs,
    )


def _sighted(state: State, obs: str) -> list[Piece]:
    """Other players' counters where the viewer's forces are, as its forces saw them this turn (FTC-TG-3)."""
    pieces: dict[str, Piece] = {}
    for k in sorted(visible_hexes(state, obs)):
        seen = state.intel.get(obs, {}).get(k)
        if seen is None or seen.turn != state.turn:
            continue
        for c in seen.counters:
            if c.owner == obs or c.group in pieces:
                continue
            what = (
                f"{len(c.ships)} ship(s): " + ", ".join(s.split(":", 1)[-1] for s in c.ships)
                if c.ships
                else ("composition unknown")
            )
            posture = "; on attack orders" if c.posture == "attack" else ""
            pieces[c.group] = Piece(
                id=c.group,
                kind="group",
                label=f"{c.owner} counter",
                at=at(unkey(k)),
                side=c.owner,
                status="sighted",
                detail=what + posture,
            )
    return list(pieces.values())


def _markers(state: State, obs: str | None) -> list[Marker]:
    out = _destinations(state, obs)
    for s in state.steps:
        if obs is None or obs in s.players:
            out.append(Marker(kind="decision", at=at(s.hex), label=f"{s.kind} decision at {key(s.hex)}"))
    for b in state.battles:
        if obs is None or obs in [f.player for f in b.forces]:
            out.append(Marker(kind="battle", at=at(b.hex), label=f"battle {b.id} at {key(b.hex)}"))
    return out


def _destinations(state: State, obs: str | None) -> list[Marker]:
    """Where the observer's ordered groups go, then where its groups in FTL arrive (everyone's, for the umpire)."""
    out = []
    for player, orders in sorted(state.orders.items()):
        if obs is not None and player != obs:
            continue
        for o in orders:
            if o.to is not None and state.groups.get(o.group) and tuple(o.to) != tuple(state.groups[o.group].hex or ()):
                out.append(
                    Marker(
                        kind="destination",
                        at=at(o.to),
                        piece=o.group,
                        label=f"{o.group} to {key(o.to)} ({o.posture.replace('_', ' ')})",
                    )
                )
    for g in sorted(state.groups.values(), key=lambda g: g.id):
        if g.hex is None and g.ftl_to is not None and (obs is None or g.owner == obs):
            out.append(
                Marker(
                    kind="destination",
                    at=at(g.ftl_to),
                    piece=g.id,
                    label=f"{g.id} arrives at {key(g.ftl_to)} next move",
                )
            )
    return out


def _effects(state: State, obs: str | None, drawn: set[str]) -> list[Effect]:
    out = []
    for h in state.happenings:
        if h.turn < state.turn - 1 or (obs is not None and h.audience is not None and obs not in h.audience):
            continue
        out.append(
            Effect(
                n=h.n,
                kind=h.kind,
                text=h.text,
                target=h.piece if h.piece in drawn else None,
                at=at(h.hex) if h.hex is not None else None,
                rule=h.rule,
            )
        )
    return out


def status(state: State, viewer: Viewer) -> Status:
    obs = observer(viewer)
    seats = tuple(seat_status(state, p, obs) for p in state.order)
    you: SeatStatus | None = next((s for s in seats if s.seat == obs), None) if obs else None
    return Status(
        turn=state.turn,
        phase=state.phase,
        phase_label=phase_label(state),
        seats=seats,
        you=you,
        umpire=umpire_duty(state, obs),
        sealed=state.phase in ("orders", "contacts"),
        over=state.over,
        result=result(state),
    )


def draw(state: State, viewer: Viewer) -> Drawing:
    obs = observer(viewer)
    if obs is None:
        pieces = [_own_piece(state, g, None) for g in sorted(state.groups.values(), key=lambda g: g.id)]
    elif obs:
        pieces = [
            _own_piece(state, g, obs) for g in sorted(state.groups.values(), key=lambda g: g.id) if g.owner == obs
        ]
        pieces += _sighted(state, obs)
    else:
        pieces = []
    links = tuple(Link(a=key(a), b=key(b), label="charted route") for a, b in state.routes)
    board = Board(kind="starmap", units="hexes", nodes=_nodes(state, obs), links=links)
    drawn = {p.id for p in pieces}
    return Drawing(
        board=board,
        status=status(state, viewer),
        pieces=tuple(pieces),
        markers=tuple(_markers(state, obs)),
        effects=tuple(_effects(state, obs, drawn)),
        sides=tuple(state.order),
    )
