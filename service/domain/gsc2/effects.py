"""What the drawing shows of the moments just played: effects (fire, hits, damage…) and this turn's trails.

Folded into state by evolve (``noted``), so a view at any point of the log shows the effects of that
moment, and every effect carries a counter ``n`` the page uses to animate it once (docs/view-contract.md).
The texts are built from the facts in the events, the same facts ``explain`` words.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import msgspec

from service.domain.core import Event

from . import events as E
from .state import GameState, Mark, Trail

MAX_MARKS = 150  # a busy phase of a big fleet stays drawable


def name(state: GameState, ship: str) -> str:
    spec = state.specs.get(ship)
    return spec.name if spec is not None else ship


def _hit_or_miss(hit: bool, target: str, text: str, rule: str, source: str | None = None) -> dict[str, Any]:
    return {"kind": "hit" if hit else "miss", "text": text, "target": target, "source": source, "rule": rule}


def _outcome(ev: Event, hit: bool) -> str:
    if ev.rolls:
        r = ev.rolls[0]
        return f"{'hit' if hit else 'miss'}: rolled {r.value}, needed ≤ {r.target}"
    return "hit" if hit else "miss"


def _tractor(st: GameState, ev: E.TractorFired) -> list[dict[str, Any]]:
    return [
        {
            "kind": "fire",
            "text": f"tractor beam {ev.system}",
            "source": ev.ship,
            "target": ev.target,
            "rule": "GSC2-MOV-6",
        },
        _hit_or_miss(ev.hit, ev.target, _outcome(ev, ev.hit) + ("; held" if ev.hit else ""), "GSC2-MOV-6", ev.ship),
    ]


def _beam(st: GameState, ev: E.BeamFired) -> list[dict[str, Any]]:
    text = _outcome(ev, ev.hit) + (f"; {ev.weapons} × {ev.damage} damage" if ev.hit else "")
    return [
        {
            "kind": "fire",
            "text": ev.battery_name or ev.battery,
            "source": ev.ship,
            "target": ev.target,
            "rule": "GSC2-BEAM-3",
        },
        _hit_or_miss(ev.hit, ev.target, text, "GSC2-HIT-1", ev.ship),
    ]


def _launch(st: GameState, ev: E.MissilesLaunched) -> list[dict[str, Any]]:
    return [
        {
            "kind": "launch",
            "text": f"{ev.count} missile(s) at {name(st, ev.target)}",
            "source": ev.ship,
            "target": ev.target,
            "amount": ev.count,
            "rule": "GSC2-MSL-1",
        }
    ]


def _flight(st: GameState, ev: E.MissilesMoved) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    if ev.lost_tracking:
        out.append(
            {
                "kind": "miss",
                "text": f"{ev.lost_tracking} missile(s) of {ev.salvo} lost tracking",
                "at": ev.end,
                "amount": ev.lost_tracking,
                "rule": "GSC2-MSL-5",
            }
        )
    if ev.intercepted:
        out.append(
            {
                "kind": "explosion",
                "text": f"{ev.intercepted} missile(s) of {ev.salvo} shot down by MDS",
                "at": ev.end,
                "amount": ev.intercepted,
                "rule": "GSC2-MSL-4",
            }
        )
    return out


def _missile_attack(st: GameState, ev: E.MissileAttack) -> list[dict[str, Any]]:
    salvo = st.salvos.get(ev.salvo)
    text = f"{ev.hits} of {ev.missiles} missile(s) hit" + (f", {ev.damage} damage each" if ev.hits else "")
    return [
        {
            "kind": "hit" if ev.hits else "miss",
            "text": text,
            "target": ev.target,
            "at": salvo.pos if salvo else None,
            "amount": ev.hits,
            "rule": "GSC2-MSL-6",
        }
    ]


def _damage(st: GameState, ev: E.DamageApplied) -> list[dict[str, Any]]:
    text = f"{ev.hull_damage} hull damage" + (f", {ev.absorbed} absorbed by shields" if ev.absorbed else "")
    out: list[dict[str, Any]] = [
        {"kind": "damage", "text": text, "target": ev.target, "amount": ev.hull_damage, "rule": "GSC2-DMG-1"}
    ]
    for h in ev.hits:
        if h.system is not None:
            sys = ev.systems.get(h.system)
            state = "destroyed" if sys is not None and sys.destroyed else "damaged"
            out.append({"kind": "system", "text": f"{h.system} {state}", "target": ev.target, "rule": h.system_rule})
    if ev.destroyed:
        out.append(
            {"kind": "destroyed", "text": f"{name(st, ev.target)} destroyed", "target": ev.target, "rule": "GSC2-DMG-5"}
        )
    return out


def _moved(st: GameState, ev: E.ShipMoved) -> list[dict[str, Any]]:
    if ev.disengaged:
        return [
            {
                "kind": "left",
                "text": f"{name(st, ev.ship)} disengages and leaves the battle",
                "target": ev.ship,
                "at": ev.path[-1],
                "rule": "GSC2-R-20",
            }
        ]
    if not ev.left_table:
        return []
    return [
        {
            "kind": "left",
            "text": f"{name(st, ev.ship)} sails off the table and leaves play",
            "target": ev.ship,
            "at": ev.path[-1],
            "rule": "GSC2-R-18",
        }
    ]


def _pod_launched(st: GameState, ev: E.PodLaunched) -> list[dict[str, Any]]:
    return [
        {"kind": "launch", "text": f"assault pod {ev.pod} ({ev.squad} squad)", "source": ev.ship, "rule": "GSC2-BRD-3"}
    ]


def _boarded(st: GameState, ev: E.BoardingResolved) -> list[dict[str, Any]]:
    got, failed = ev.arrived.total, ev.failed.total
    text = f"{ev.method}: {got} squad(s) aboard" + (f", {failed} failed" if failed else "")
    return [
        {
            "kind": "boarding",
            "text": text,
            "source": ev.ship if ev.method != "pod" else ev.pod,
            "target": ev.target,
            "amount": got,
            "rule": "GSC2-BRD-1",
        }
    ]


def _troops(st: GameState, ev: E.TroopCombat) -> list[dict[str, Any]]:
    text = f"boarding combat: defenders {ev.hits_by_defenders} hit(s), boarders {ev.hits_by_boarders}"
    return [{"kind": "boarding", "text": text, "target": ev.ship, "rule": "GSC2-BRD-5"}]


def _sabotaged(st: GameState, ev: E.SystemSabotaged) -> list[dict[str, Any]]:
    text = f"{ev.system} {'destroyed by saboteurs' if ev.success else 'survives sabotage'}"
    return [{"kind": "system" if ev.success else "miss", "text": text, "target": ev.ship, "rule": "GSC2-BRD-5"}]


def _captured(st: GameState, ev: E.ShipCaptured) -> list[dict[str, Any]]:
    return [
        {
            "kind": "captured",
            "text": f"{name(st, ev.ship)} captured by {ev.by}",
            "target": ev.ship,
            "rule": "GSC2-BRD-6",
        }
    ]


def _repaired(st: GameState, ev: E.Repaired) -> list[dict[str, Any]]:
    text = f"{ev.system} {'repaired' if ev.success else 'repair failed'}"
    return [{"kind": "repair", "text": text, "target": ev.ship, "rule": "GSC2-REP-1"}]


EFFECTS: dict[type[Event], Callable[[GameState, Any], list[dict[str, Any]]]] = {
    E.ShipMoved: _moved,
    E.TractorFired: _tractor,
    E.MissilesLaunched: _launch,
    E.MissilesMoved: _flight,
    E.MissileAttack: _missile_attack,
    E.BeamFired: _beam,
    E.DamageApplied: _damage,
    E.PodLaunched: _pod_launched,
    E.BoardingResolved: _boarded,
    E.TroopCombat: _troops,
    E.SystemSabotaged: _sabotaged,
    E.ShipCaptured: _captured,
    E.Repaired: _repaired,
}


def _trails(state: GameState, ev: Event) -> tuple[Trail, ...]:
    if isinstance(ev, E.ShipMoved) and len(ev.path) > 1:
        for i, t in enumerate(state.trails):  # a move resumed after a pause continues its trail
            if t.kind == "move" and t.piece == ev.ship:
                merged = msgspec.structs.replace(t, points=(*t.points, *ev.path[1:]))
                return (*state.trails[:i], merged, *state.trails[i + 1 :])
        return (*state.trails, Trail(kind="move", piece=ev.ship, points=ev.path))
    if isinstance(ev, E.MissilesMoved) and ev.start != ev.end:
        return (*state.trails, Trail(kind="missile", piece=ev.salvo, points=(ev.start, ev.end)))
    return state.trails


def noted(before: GameState, after: GameState, ev: Event) -> GameState:
    """``after`` with the effects and trails of ``ev`` (read from the state ``before`` it)."""
    make = EFFECTS.get(type(ev))
    trails = _trails(after, ev)
    if make is None:
        return after if trails is after.trails else msgspec.structs.replace(after, trails=trails)
    n = after.mark_n
    marks = list(after.marks)
    for fields in make(before, ev):
        n += 1
        marks.append(Mark(n=n, **fields))
    return msgspec.structs.replace(after, marks=tuple(marks[-MAX_MARKS:]), mark_n=n, trails=trails)
