"""Missiles: launch and reload, 12"/turn homing, MDS, tracking, simultaneous attacks (GSC2-MSL)."""

from __future__ import annotations

from service.domain.core import Dice, Roll, RuleViolation
from service.domain.core.plane import EPSILON, Point, segment_point_distance

from .combat import roll_to_hit, target_modifiers
from .commands import Launch
from .events import MissileAttack, MissilesLaunched, MissilesMoved
from .state import GameState, Salvo
from .values import Order, PendingHit

MISSILE_MOVE = 12.0
MDS_REACH = 1.0
GONE = {"destroyed": "is destroyed", "captured": "is captured", "left": "has left the table"}  # GSC2-MSL-3


def launch_problem(state: GameState, ship_id: str, battery: str) -> tuple[str, str] | None:
    """Why this battery cannot launch now (rule, reason), or None."""
    ship = state.ships[ship_id]
    sys = ship.sys.get(battery)
    if sys is None or sys.kind != "missile":
        return "GSC2-MSL-1", f"{ship_id} has no missile battery {battery!r}"
    if sys.destroyed or sys.damaged:
        return "GSC2-SYS-1", f"{battery} is {'destroyed' if sys.destroyed else 'damaged'} and cannot fire"
    last = ship.last_launch.get(battery)
    if last == state.turn:
        return "GSC2-MSL-1", f"{battery} has already launched this turn"
    if last == state.turn - 1:
        return "GSC2-MSL-1", f"{battery} fired last turn and is reloading (one-turn reload)"
    if ship.missiles_left.get(battery, 0) <= 0:
        return "GSC2-MSL-1", f"{battery} has no missiles left"
    return None


def can_launch(state: GameState, side: str) -> bool:
    if side in state.order.passed or not state.enemy_ships(side):
        return False
    return any(
        launch_problem(state, s.id, b.id) is None for s in state.active(side) for b in state.specs[s.id].missiles
    )


def launch(state: GameState, cmd: Launch) -> MissilesLaunched:
    problem = launch_problem(state, cmd.ship, cmd.battery)
    if problem:
        raise RuleViolation(*problem)
    ship = state.ships[cmd.ship]
    target = state.ships.get(cmd.target)
    if target is None or not target.active or target.side == ship.side:
        raise RuleViolation("GSC2-MSL-3", f"no enemy ship {cmd.target!r} to home on")
    spec = next(m for m in state.specs[ship.id].missiles if m.id == cmd.battery)
    count = min(spec.missiles, ship.missiles_left.get(cmd.battery, 0))
    return MissilesLaunched(
        ship=ship.id,
        battery=cmd.battery,
        target=target.id,
        salvo=f"s{state.counter + 1}",
        count=count,
        damage=spec.damage,
        targeting=spec.targeting,
        pos=ship.pos,
    )


def move_salvo(state: GameState, salvo: Salvo, dice: Dice) -> MissilesMoved:
    """GSC2-MSL-3: 12" straight at the target; tracking (MSL-5) then MDS (MSL-4) along the path."""
    target = state.ships.get(salvo.target)
    if target is None or not target.active:
        why = GONE.get(target.status, target.status) if target is not None else "is gone"
        return MissilesMoved(
            salvo=salvo.id,
            start=salvo.pos,
            end=salvo.pos,
            remaining=0,
            arrived=False,
            removed=f"target {salvo.target} {why}",
        )
    start = salvo.pos
    arrived = start.distance_to(target.pos) <= MISSILE_MOVE + EPSILON
    end = start.toward(target.pos, MISSILE_MOVE)
    rolls: list[Roll] = []
    crossed = tuple(
        t.spec.id
        for t in state.terrain.values()
        if t.spec.kind in ("asteroid", "dust") and segment_point_distance(start, end, t.pos) <= t.spec.radius + EPSILON
    )
    lost = _lost_tracking(salvo, crossed, dice, rolls) if crossed and not salvo.tracked else 0
    remaining, killed, mds_fired = _point_defence(state, salvo, start, end, salvo.count - lost, dice, rolls)
    removed = ""
    if remaining <= 0:
        removed = "every missile lost or shot down"
    return MissilesMoved(
        salvo=salvo.id,
        start=start,
        end=end,
        remaining=max(0, remaining),
        arrived=arrived and remaining > 0,
        removed=removed,
        lost_tracking=lost,
        intercepted=killed,
        mds_fired=mds_fired,
        terrain=crossed,
        rolls=tuple(rolls),
    )


def _lost_tracking(salvo: Salvo, crossed: tuple[str, ...], dice: Dice, rolls: list[Roll]) -> int:
    """GSC2-MSL-5: crossing asteroids or dust, each missile rolls to keep tracking; returns how many are lost."""
    lost = 0
    for i in range(salvo.count):
        r = dice.roll_under(
            10,
            f"missile {i + 1} of {salvo.id} keeps tracking over {crossed[0]}",
            "GSC2-MSL-5",
            5,
            success="tracking",
            failure="lost",
        )
        rolls.append(r)
        lost += r.outcome == "lost"
    return lost


def _point_defence(
    state: GameState, salvo: Salvo, start: Point, end: Point, remaining: int, dice: Dice, rolls: list[Roll]
) -> tuple[int, int, dict[str, int]]:
    """GSC2-MSL-4, GSC2-R-7: enemy MDS within reach of the path fire, nearest ship first, one per missile still
    flying; returns (missiles remaining, killed, MDS fired per ship)."""
    mds_fired: dict[str, int] = {}
    killed = 0
    enemies = sorted(state.enemy_ships(salvo.side), key=lambda s: (start.distance_to(s.pos), s.id))
    for ship in enemies:
        if remaining <= 0:
            break
        if segment_point_distance(start, end, ship.pos) > MDS_REACH + EPSILON:
            continue
        free = ship.level("mds") - ship.mds_used
        shots = min(free, remaining)  # GSC2-R-7: one MDS per missile still flying
        if shots <= 0:
            continue
        mds_fired[ship.id] = shots
        kills = 0  # this ship's: the missiles an earlier ship took down are already off ``remaining``
        for i in range(shots):
            r = dice.roll_under(
                10, f"{ship.id} MDS {i + 1} at {salvo.id}", "GSC2-MSL-4", 6, success="kill", failure="miss"
            )
            rolls.append(r)
            if r.outcome == "kill":
                kills += 1
        killed += kills
        remaining -= kills
    return remaining, killed, mds_fired


def attack(state: GameState, salvo: Salvo, dice: Dice) -> MissileAttack:
    """GSC2-MSL-6: each missile rolls with targeting 4 and the normal modifiers, no range."""
    target = state.ships[salvo.target]
    mods = target_modifiers(target, state.specs[target.id].aspect)
    rolls = [
        roll_to_hit(dice, f"missile {i + 1} of {salvo.id} at {target.id}", "GSC2-MSL-6", salvo.targeting, mods)
        for i in range(salvo.count)
    ]
    hits = sum(r.outcome == "hit" for r in rolls)
    return MissileAttack(
        salvo=salvo.id, target=target.id, missiles=salvo.count, hits=hits, damage=salvo.damage, rolls=tuple(rolls)
    )


def pending_from_attack(state: GameState, ev: MissileAttack) -> tuple[PendingHit, ...]:
    side = state.salvos[ev.salvo].side if ev.salvo in state.salvos else ""
    return tuple(
        PendingHit(target=ev.target, source=f"missile of {ev.salvo}", damage=ev.damage, side=side)
        for _ in range(ev.hits)
    )


def orphaned(state: GameState) -> list[MissilesMoved]:
    """GSC2-R-23: the salvos of a side out of the battle (three or more sides) leave the table with it."""
    fighting = state.in_battle()
    return [
        MissilesMoved(
            salvo=s.id, start=s.pos, end=s.pos, remaining=0, arrived=False, removed=f"{s.side} is out of the battle"
        )
        for s in sorted(state.salvos.values(), key=lambda s: int(s.id[1:]))
        if s.side not in fighting
    ]


def unmoved_salvos(state: GameState, side: str) -> list[Salvo]:
    return [s for s in state.salvos.values() if s.side == side and not s.moved]


def settle_missiles(state: GameState, o: Order, prefer: str | None) -> Order:
    """Alternate one launch, then one salvo move, at a time (GSC2-MSL-2 ruling)."""
    if o.stage == "launch":
        for side in _pref(state, prefer or o.side):
            if can_launch(state, side):
                return Order(stage="launch", side=side, leader=o.leader, passed=o.passed)
        o = Order(stage="move", side=o.leader, leader=o.leader)
        prefer = o.leader
    if o.stage == "move":
        for side in _pref(state, prefer or o.side):
            if unmoved_salvos(state, side):
                return Order(stage="move", side=side, leader=o.leader)
        return Order(stage="attack", leader=o.leader)
    return o


def _pref(state: GameState, side: str | None) -> list[str]:
    """The sides round the table from ``side`` (GSC2-R-22: launches and moves go round in this order)."""
    return list(state.rotation(side if side in state.sides else state.sides[0]))


def missile_work(state: GameState) -> bool:
    return any(can_launch(state, s) for s in state.sides) or bool(state.salvos)
