"""Boarding: direct contact, assault pods, teleporters, troop combat, sabotage, capture (GSC2-BRD)."""

from __future__ import annotations

import msgspec

from service.domain.core import Dice, RuleViolation
from service.domain.core.acc import Acc
from service.domain.core.plane import EPSILON, Point

from .combat import inches, roll_to_hit, target_modifiers
from .commands import Board, CasualtyOrder, LaunchPod, MovePod, SendSaboteurs
from .events import (
    BoardingDeclared,
    BoardingResolved,
    CasualtyOrderSet,
    PodLaunched,
    PodMoved,
    SaboteursSent,
    ShipCaptured,
    SystemSabotaged,
    TroopCombat,
)
from .movement import EDGE_RULE, on_table
from .state import GameState, ShipState
from .values import BoardOrder, Sabotage, Sys, Troops

POD_MOVE = 6.0
TELEPORT_RANGE = 8.0
UNIT_HITS = {"crew": 3, "assault": 5, "heavy": 7}  # GSC2-BRD-5
SQUAD_SYS = {"assault": "assault_squads", "heavy": "heavy_assault_squads"}
DEFAULT_ORDER = ("crew", "assault", "heavy")


def squads(ship: ShipState) -> Troops:
    return Troops(crew=ship.crew, assault=ship.level("assault_squads"), heavy=ship.level("heavy_assault_squads"))


def _shift(ship: ShipState, unit: str, n: int) -> dict[str, Sys]:
    """The squad system after ``n`` squads join (+) or leave (-) the ship; they are not damage."""
    name = SQUAD_SYS[unit]
    sys = ship.sys.get(name) or Sys(kind=name, level=0, max=0)
    return {name: msgspec.structs.replace(sys, level=max(0, sys.level + n), max=max(0, sys.max + n))}


def declare(state: GameState, cmd: Board) -> BoardingDeclared:
    ship = state.ships[cmd.ship]
    target = state.ships.get(cmd.target)
    n = cmd.assault + cmd.heavy
    rule = "GSC2-BRD-2" if cmd.method == "contact" else "GSC2-BRD-4"
    if cmd.method not in ("contact", "teleport"):
        raise RuleViolation("GSC2-BRD-1", f"unknown boarding method {cmd.method!r} (contact or teleport)")
    if target is None or not target.active or target.side == ship.side:
        raise RuleViolation(rule, f"no enemy ship {cmd.target!r} to board")
    if cmd.assault < 0 or cmd.heavy < 0 or n == 0:
        raise RuleViolation(rule, "send at least one squad")
    have = squads(ship)
    if cmd.assault > have.assault or cmd.heavy > have.heavy:
        raise RuleViolation(rule, f"{ship.id} has {have.assault} assault and {have.heavy} heavy squads")
    if cmd.method == "contact":
        if target.id not in ship.contacts:
            raise RuleViolation("GSC2-BRD-2", f"{ship.id} did not move into contact with immobilized {target.id}")
    else:
        free = ship.level("transporters") - ship.transporters_used
        if n > free:
            raise RuleViolation("GSC2-BRD-4", f"{ship.id} has {free} transporters free; each carries one squad")
        dist = ship.pos.distance_to(target.pos)
        if dist > TELEPORT_RANGE + EPSILON:
            raise RuleViolation("GSC2-BRD-4", f'{target.id} is {inches(dist)} away; teleporter range is 8"')
    left = {**_shift(ship, "assault", -cmd.assault), **_shift(ship, "heavy", -cmd.heavy)}
    order = BoardOrder(
        method=cmd.method, side=ship.side, ship=ship.id, target=target.id, assault=cmd.assault, heavy=cmd.heavy
    )
    return BoardingDeclared(order=order, troops_left=left)


def launch_pod(state: GameState, cmd: LaunchPod) -> PodLaunched:
    ship = state.ships[cmd.ship]
    if ship.pods <= 0:
        raise RuleViolation("GSC2-BRD-3", f"{ship.id} has no assault pod left")
    if cmd.squad not in SQUAD_SYS or getattr(squads(ship), cmd.squad) <= 0:
        raise RuleViolation("GSC2-BRD-3", f"{ship.id} has no {cmd.squad} squad to put in a pod")
    return PodLaunched(ship=ship.id, pod=f"p{state.counter + 1}", squad=cmd.squad, pos=ship.pos)


def move_pod(state: GameState, cmd: MovePod, side: str) -> PodMoved:
    pod = state.pods.get(cmd.pod)
    if pod is None or pod.side != side:
        raise RuleViolation("GSC2-BRD-3", f"{side} has no pod {cmd.pod!r}")
    if pod.ram is not None:
        raise RuleViolation("GSC2-BRD-3", f"{pod.id} is already ramming {pod.ram}")
    left = POD_MOVE - pod.moved
    if cmd.ram is not None:
        target = state.ships.get(cmd.ram)
        if target is None or not target.active or target.side == side:
            raise RuleViolation("GSC2-BRD-3", f"no enemy ship {cmd.ram!r} to ram")
        dest = target.pos
    else:
        dest = Point(cmd.x, cmd.y)
        if not state.open_table and not on_table(dest, state.table):
            raise RuleViolation(EDGE_RULE, f"({cmd.x:g}, {cmd.y:g}) is off the table: a pod flies only over it")
    dist = pod.pos.distance_to(dest)
    if dist > left + EPSILON:
        raise RuleViolation("GSC2-BRD-3", f"{pod.id} can move {inches(left)} more this turn, not {inches(dist)}")
    return PodMoved(pod=pod.id, pos=dest, moved=round(pod.moved + dist, 9), ram=cmd.ram)


def sabotage(state: GameState, cmd: SendSaboteurs) -> SaboteursSent:
    ship = state.ships.get(cmd.ship)
    if ship is None or not ship.active or ship.side == cmd.side:
        raise RuleViolation("GSC2-BRD-5", f"no enemy ship {cmd.ship!r}")
    aboard = ship.boarders.get(cmd.side, Troops())
    sent = sum(1 for s in state.sabotage if s.ship == cmd.ship and s.side == cmd.side and s.unit == cmd.unit)
    if cmd.unit not in SQUAD_SYS or getattr(aboard, cmd.unit) <= sent:
        raise RuleViolation("GSC2-BRD-5", f"{cmd.side} has no free {cmd.unit} squad aboard {cmd.ship}")
    sys = ship.sys.get(cmd.system)
    if sys is None or sys.destroyed:
        raise RuleViolation("GSC2-BRD-5", f"{cmd.ship} has no working system {cmd.system!r} to destroy")
    return SaboteursSent(sabotage=Sabotage(side=cmd.side, ship=cmd.ship, unit=cmd.unit, system=cmd.system))


def casualty_order(cmd: CasualtyOrder) -> CasualtyOrderSet:
    if sorted(cmd.order) != sorted(DEFAULT_ORDER):
        raise RuleViolation("GSC2-BRD-5", "the casualty order is a permutation of crew, assault, heavy")
    return CasualtyOrderSet(side=cmd.side, order=cmd.order)


def resolve(acc: Acc[GameState], dice: Dice) -> None:
    """GSC2-BRD-1: contact, then pods, then teleporters, all before any combat; then combat everywhere."""
    st = acc.state
    for o in st.boarding:
        if o.method == "contact":
            _land(acc, o, None, 0, o.assault, o.heavy, 0, 0)
    for pod in sorted(acc.state.pods.values(), key=lambda p: p.id):
        target = acc.state.ships.get(pod.ram or "")
        if target is None or not target.active:
            continue
        roll = roll_to_hit(
            dice,
            f"{pod.id} rams {target.id}",
            "GSC2-BRD-3",
            4,
            target_modifiers(target, acc.state.specs[target.id].aspect),
        )
        hit = roll.outcome == "hit"
        arrived = Troops(assault=int(hit and pod.squad == "assault"), heavy=int(hit and pod.squad == "heavy"))
        acc.add(
            BoardingResolved(
                method="pod",
                side=pod.side,
                ship=pod.ship,
                target=target.id,
                arrived=arrived,
                failed=Troops(),
                pod=pod.id,
                pod_lost=hit,
                rolls=(roll,),
            )
        )
    for o in st.boarding:
        if o.method == "teleport":
            target = acc.state.ships[o.target]
            if not target.active:
                _land(acc, o, None, 0, 0, 0, o.assault, o.heavy)
                continue
            mods = target_modifiers(target, acc.state.specs[target.id].aspect)
            rolls = [
                roll_to_hit(dice, f"teleport {u} squad {o.ship}→{o.target}", "GSC2-BRD-4", 5, mods)
                for u in ["assault"] * o.assault + ["heavy"] * o.heavy
            ]
            ha = sum(r.outcome == "hit" for r in rolls[: o.assault])
            hh = sum(r.outcome == "hit" for r in rolls[o.assault :])
            _land(acc, o, tuple(rolls), 0, ha, hh, o.assault - ha, o.heavy - hh)
    for ship_id in sorted(acc.state.ships):
        ship = acc.state.ships[ship_id]
        if ship.active and any(t.total for t in ship.boarders.values()):
            _combat(acc, ship_id, dice)


def _land(acc: Acc[GameState], o: BoardOrder, rolls: tuple | None, _: int, a: int, h: int, fa: int, fh: int) -> None:
    st = acc.state
    target = st.ships[o.target]
    if not target.active:  # the target died first: everyone stays home
        a, h, fa, fh = 0, 0, fa + a, fh + h
    ev = BoardingResolved(
        method=o.method,
        side=o.side,
        ship=o.ship,
        target=o.target,
        arrived=Troops(assault=a, heavy=h),
        failed=Troops(assault=fa, heavy=fh),
        rolls=rolls or (),
    )
    acc.add(ev)


def _casualties(t: Troops, n: int, order: tuple[str, ...]) -> Troops:
    left = {"crew": t.crew, "assault": t.assault, "heavy": t.heavy}
    for unit in order:
        take = min(n, left[unit])
        left[unit] -= take
        n -= take
    return Troops(**left)


def _roll_units(dice: Dice, who: str, t: Troops) -> tuple[int, list]:
    rolls = []
    for unit in ("crew", "assault", "heavy"):
        for i in range(getattr(t, unit)):
            rolls.append(
                dice.roll_under(
                    10, f"{who} {unit} {i + 1}", "GSC2-BRD-5", UNIT_HITS[unit], success="hit", failure="miss"
                )
            )
    return sum(r.outcome == "hit" for r in rolls), rolls


def _combat(acc: Acc[GameState], ship_id: str, dice: Dice) -> None:
    """Boarding combat aboard one ship. Troops of several sides aboard (three or more sides, GSC2-R-24) each
    fight the defenders in turn, round the table from the ship's own side, and never each other; a ship left
    with no crew and no squads is captured by the side with the most troops aboard (GSC2-BRD-6)."""
    ship = acc.state.ships[ship_id]
    for side in acc.state.rotation(ship.side)[1:]:
        if acc.state.ships[ship_id].boarders.get(side, Troops()).total:
            _fight(acc, ship_id, side, dice)
    after = acc.state.ships[ship_id]
    aboard = [(t.total, side) for side in acc.state.rotation(ship.side)[1:] if (t := after.boarders.get(side))]
    if squads(after).total == 0 and any(n > 0 for n, _ in aboard):
        most = max(n for n, _ in aboard)
        by = next(side for n, side in aboard if n == most)
        acc.add(ShipCaptured(ship=ship_id, by=by))  # GSC2-BRD-6


def _fight(acc: Acc[GameState], ship_id: str, enemy: str, dice: Dice) -> None:
    """The defenders against one boarding side (GSC2-BRD-5), then that side's saboteurs."""
    st = acc.state
    ship = st.ships[ship_id]
    boarders = ship.boarders.get(enemy, Troops())
    defenders = squads(ship)
    sab = [s for s in st.sabotage if s.ship == ship_id and s.side == enemy]
    sa = min(boarders.assault, sum(s.unit == "assault" for s in sab))
    sh = min(boarders.heavy, sum(s.unit == "heavy" for s in sab))
    rolls: list = []
    hits_d = hits_b = 0
    if defenders.total and boarders.total:
        hits_d, r1 = _roll_units(dice, f"{ship_id} defender", defenders)
        hits_b, r2 = _roll_units(
            dice, f"{enemy} boarder", Troops(assault=boarders.assault - sa, heavy=boarders.heavy - sh)
        )
        rolls = r1 + r2
    new_def = _casualties(defenders, hits_b, st.casualty_order.get(ship.side, DEFAULT_ORDER))
    new_b = _casualties(boarders, hits_d, st.casualty_order.get(enemy, DEFAULT_ORDER))
    sq: dict[str, Sys] = {}
    for unit in ("assault", "heavy"):
        lost = getattr(defenders, unit) - getattr(new_def, unit)
        if lost and SQUAD_SYS[unit] in ship.sys:
            sq.update(_shift(ship, unit, -lost))
    acc.add(
        TroopCombat(
            ship=ship_id,
            defenders=new_def,
            boarders={enemy: new_b},
            hits_by_defenders=hits_d,
            hits_by_boarders=hits_b,
            crew=new_def.crew,
            squads=sq,
            rolls=tuple(rolls),
        )
    )
    # saboteurs roll after everything else; casualties fall on them last (GSC2-BRD-5)
    alive = {"assault": min(sa, new_b.assault), "heavy": min(sh, new_b.heavy)}
    for s in sab:
        if alive[s.unit] <= 0:
            continue
        alive[s.unit] -= 1
        cur = acc.state.ships[ship_id].sys[s.system]
        roll = dice.roll_under(
            10,
            f"{enemy} {s.unit} squad sabotages {s.system}",
            "GSC2-BRD-5",
            UNIT_HITS[s.unit],
            success="destroyed",
            failure="failed",
        )
        ok = roll.outcome == "destroyed" and not cur.destroyed
        acc.add(
            SystemSabotaged(
                ship=ship_id,
                side=enemy,
                unit=s.unit,
                system=s.system,
                success=ok,
                sys=msgspec.structs.replace(cur, destroyed=True, level=0) if ok else None,
                rolls=(roll,),
            )
        )
