"""options(state, viewer): complete commands that decide() would accept now, for a seat or the umpire."""

from __future__ import annotations

from service.domain.core import Command, Dice, RuleViolation, Viewer, seat

from . import commands as C
from .checks import half_speed, speed, turn_distance
from .decide import _may_act, decide
from .engineering import PATCHABLE, diverted_points
from .flow import awaited
from .gunnery import aim
from .scenario import ARCS, ROLES
from .state import GameState


def options(state: GameState, viewer: Viewer) -> list[Command]:
    if state.over or viewer.kind == "spectator":
        return []
    if viewer.is_umpire:
        return [C.ForcePhase()]
    me = viewer.seat or ""
    crew = state.crew.get(me)
    if crew is None:
        return []
    out: list[Command] = [c for c in (C.ChangeRole(seat=me, role=r) for r in ROLES) if _ok(state, c, me)]
    if not state.ships[crew.ship].battle_stations:
        out += [c for c in (C.BattleStations(seat=me),) if _ok(state, c, me)]
    if me not in awaited(state):
        return out
    role = crew.role
    if role == "engineer":
        cands: list[Command] = [C.Patch(seat=me, system=s) for s in PATCHABLE]
        cands.append(C.Divert(seat=me, to="engines"))
        cands += [C.Divert(seat=me, to="shields", shields={q: diverted_points(state, crew.ship)}) for q in ARCS]
        out += [c for c in cands if _ok(state, c, me)]
    elif role == "pilot":
        out += [c for c in _helm(state, me, crew.ship) if _ok(state, c, me)]
    elif role == "science_officer":
        cands = [k(seat=me, target=t) for k in C.SCIENCE for t in state.ships]
        out += [c for c in cands if _ok(state, c, me)]
    elif role == "gunner":
        out += _fire(state, me, crew.ship)
    elif role == "captain":
        out += [c for c in (C.Encourage(seat=me, crew=o.seat) for o in state.crew_of(crew.ship)) if _ok(state, c, me)]
    out.append(C.Pass(seat=me))
    return out


def _ok(state: GameState, cmd: Command, me: str) -> bool:
    try:
        decide(state, cmd, seat(me), Dice(b"options", "g_options", 1))
    except RuleViolation:
        return False
    return True


def _helm(state: GameState, me: str, ship: str) -> list[Command]:
    sp, half, td = speed(state, ship), half_speed(state, ship), turn_distance(state, ship)
    first = max(td, 1)
    paths = ["F" * k for k in range(sp + 1)]
    for turn in ("L", "R", "LL", "RR"):
        if len(turn) == 2 and td:
            continue
        for rest in {0, 1, sp - first}:
            if rest >= 0 and first + rest <= sp:
                paths.append("F" * first + turn + "F" * rest)
    out: list[Command] = [C.Move(seat=me, path=p) for p in paths]
    out += [C.Evade(seat=me, path=p) for p in ("F" * sp, "F" * half)]
    out += [C.BackOff(seat=me, hexes=h) for h in sorted({1, half})]
    out += [C.BarrelRoll(seat=me, hexes=half), C.FlipAndBurn(seat=me, hexes=half)]
    out += [C.Slide(seat=me, hexes=h, side=side) for side in ("port", "starboard") for h in sorted({1, sp})]
    out += [C.TurnInPlace(seat=me, facing=f) for f in range(6)]
    s = state.ships[ship]
    for eid, e in state.ships.items():
        if e.side == s.side or e.status == "destroyed":
            continue
        for k in range(1, sp):
            if s.hex.neighbour(s.facing) == e.hex or _ahead(s.hex, s.facing, k) == e.hex:
                out.append(C.Flyby(seat=me, path="F" * (k + 1), enemy=eid))
                break
    return out


def _ahead(start: object, facing: int, k: int) -> object:
    h = start
    for _ in range(k):
        h = h.neighbour(facing)  # type: ignore[attr-defined]
    return h


def _fire(state: GameState, me: str, ship: str) -> list[Command]:
    probe = C.Fire(seat=me, weapon="", target="")
    try:
        _may_act(state, probe, me)
    except RuleViolation:
        return []
    s = state.ships[ship]
    out: list[Command] = []
    for w in state.specs[ship].weapons:
        for t in state.ships:
            if s.flyby == t:
                arcs: tuple[str | None, ...] = ARCS if w.arc == "turret" else (None,)
                out += [c for a in arcs for q in ARCS
                        if _aims(state, c := C.Fire(seat=me, weapon=w.id, target=t, arc=a, quadrant=q, flyby=True))]
            for a in (None, *ARCS):
                found = [c for q in (None, *ARCS)
                         if _aims(state, c := C.Fire(seat=me, weapon=w.id, target=t, arc=a, quadrant=q))]
                plain = [c for c in found if c.quadrant is None]
                out += plain or found
                if a is None and found:
                    break
    return out


def _aims(state: GameState, cmd: C.Fire) -> bool:
    try:
        aim(state, cmd)
    except RuleViolation:
        return False
    return True
