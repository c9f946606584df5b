"""options(state, viewer): complete commands decide() would accept now, for a seat or the umpire."""

from __future__ import annotations

from service.domain.core import Command, Viewer
from service.domain.core.plane import EPSILON

from . import commands as C
from .beams import fire_problem
from .boarding import POD_MOVE, TELEPORT_RANGE, squads
from .missiles import launch_problem, unmoved_salvos
from .movement import allowance, example_legs
from .state import GameState


def options(state: GameState, viewer: Viewer) -> list[Command]:
    if state.over or viewer.kind == "spectator":
        return []
    if state.phase == "setup":
        return [C.Start()]
    if viewer.is_umpire:
        return [C.ForcePhase()]
    side = viewer.seat or ""
    if side not in state.sides or side in state.done:
        return []
    out: list[Command] = []
    phase = state.phase
    if phase == "movement":
        out += _movement(state, side)
    elif phase == "missiles":
        out += _missiles(state, side)
    elif phase == "beams":
        out += [C.Fire(ship=s.id, battery=b.id, target=t.id) for s in state.active(side)
                for b in state.specs[s.id].beams for t in state.active(state.enemy(side))
                if fire_problem(state, s.id, b.id, t.id) is None]
    elif phase == "boarding":
        out += _boarding(state, side)
    elif phase == "repairs":
        out += [C.Repair(ship=s.id, system=name) for s in state.active(side)
                if s.repairs_used < s.level("repair") for name, sys in s.sys.items() if sys.repairable]
    if _may_end(state, side):
        out.append(C.EndPhase(side=side))
    return out


def _may_end(state: GameState, side: str) -> bool:
    if state.phase == "movement":
        return state.unmoved(side) == 0
    if state.phase == "missiles":
        return state.order.stage == "done"
    return True


def _movement(state: GameState, side: str) -> list[Command]:
    o = state.order
    out: list[Command] = []
    if o.stage == "choose" and o.side == side:
        return [C.ChooseOrder(side=side, leader=s) for s in state.sides]
    if state.moving is not None:
        mover = state.ships[state.moving]
        for me in state.active(side):  # tractors interrupt a move (GSC2-MOV-6)
            for spec in state.specs[me.id].systems:
                if spec.kind != "tractor_beam" or not me.sys[spec.id].working or spec.id in me.used:
                    continue
                targets = state.active(state.enemy(side)) if me.id == mover.id else (
                    [mover] if mover.side != side else [])
                out += [C.FireTractor(ship=me.id, system=spec.id, target=t.id) for t in targets
                        if me.pos.distance_to(t.pos) <= spec.range + EPSILON]
        if mover.side == side:
            out += [C.Move(ship=mover.id, legs=legs) for legs in example_legs(state, mover)]
        return out
    if o.side != side or o.stage not in ("catchup", "lead", "follow"):
        return out
    for ship in state.active(side):
        if ship.move_state != "unmoved":
            continue
        out += [C.Move(ship=ship.id, legs=legs) for legs in example_legs(state, ship)]
        has_tractor = any(sp.kind == "tractor_beam" and ship.sys[sp.id].working for sp in state.specs[ship.id].systems)
        if has_tractor and allowance(ship) >= 2:  # stop half way to use the tractor
            out.append(C.Move(ship=ship.id, legs=(C.Leg(distance=allowance(ship) / 2),), done=False))
    if o.stage == "lead" and o.count > 0:
        out.append(C.Pass(side=side))
    return out


def _missiles(state: GameState, side: str) -> list[Command]:
    o = state.order
    if o.side != side:
        return []
    if o.stage == "choose":
        return [C.ChooseOrder(side=side, leader=s) for s in state.sides]
    if o.stage == "launch":
        out: list[Command] = [C.Launch(ship=s.id, battery=b.id, target=t.id) for s in state.active(side)
                              for b in state.specs[s.id].missiles if launch_problem(state, s.id, b.id) is None
                              for t in state.active(state.enemy(side))]
        return [*out, C.Pass(side=side)]
    if o.stage == "move":
        return [C.MoveMissiles(salvo=s.id) for s in unmoved_salvos(state, side)]
    return []


def _boarding(state: GameState, side: str) -> list[Command]:
    out: list[Command] = []
    enemies = state.active(state.enemy(side))
    for s in state.active(side):
        t = squads(s)
        for target in enemies:
            if target.id in s.contacts and t.assault + t.heavy:
                out.append(C.Board(ship=s.id, target=target.id, method="contact", assault=t.assault, heavy=t.heavy))
            free = s.level("transporters") - s.transporters_used
            if free > 0 and s.pos.distance_to(target.pos) <= TELEPORT_RANGE + EPSILON:
                if t.assault:
                    out.append(C.Board(ship=s.id, target=target.id, method="teleport", assault=1))
                if t.heavy:
                    out.append(C.Board(ship=s.id, target=target.id, method="teleport", heavy=1))
        if s.pods > 0:
            out += [C.LaunchPod(ship=s.id, squad=u) for u in ("assault", "heavy") if getattr(t, u) > 0]
    for pod in state.pods.values():
        if pod.side != side or pod.ram is not None:
            continue
        left = POD_MOVE - pod.moved
        for target in enemies:
            d = pod.pos.distance_to(target.pos)
            if d <= left + EPSILON:
                out.append(C.MovePod(pod=pod.id, ram=target.id))
            elif left > EPSILON:
                to = pod.pos.toward(target.pos, left)
                out.append(C.MovePod(pod=pod.id, x=to.x, y=to.y))
    for ship in enemies:
        aboard = ship.boarders.get(side)
        if aboard is None:
            continue
        for unit in ("assault", "heavy"):
            sent = sum(1 for x in state.sabotage if x.ship == ship.id and x.side == side and x.unit == unit)
            if getattr(aboard, unit) > sent:
                out += [C.SendSaboteurs(ship=ship.id, side=side, unit=unit, system=name)
                        for name, sys in ship.sys.items() if not sys.destroyed]
    return out
