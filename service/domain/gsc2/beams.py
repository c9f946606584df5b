"""Beam fire: arcs, range bands, one roll per battery, damage per weapon (GSC2-BEAM, GSC2-HIT)."""

from __future__ import annotations

from service.domain.core import Dice, Modifier, RuleViolation

from .combat import in_battery_arc, range_modifier, roll_to_hit, target_modifiers
from .commands import Fire
from .events import BeamFired
from .state import GameState
from .values import PendingHit


def fire_problem(state: GameState, ship_id: str, battery: str, target_id: str) -> tuple[str, str] | None:
    ship = state.ships[ship_id]
    sys = ship.sys.get(battery)
    if sys is None or sys.kind != "beam":
        return "GSC2-BEAM-3", f"{ship_id} has no beam battery {battery!r}"
    if sys.destroyed or sys.damaged:
        return "GSC2-SYS-1", f"{battery} is {'destroyed' if sys.destroyed else 'damaged'} and cannot fire"
    if battery in ship.used:
        return "GSC2-BEAM-3", f"{battery} has already fired this turn (one roll per battery)"
    target = state.ships.get(target_id)
    if target is None or not target.active or target.side == ship.side:
        return "GSC2-BEAM-1", f"no enemy ship {target_id!r} to fire at"
    spec = next(b for b in state.specs[ship_id].beams if b.id == battery)
    if not in_battery_arc(ship, spec.arc, target.pos):
        return "GSC2-BEAM-2", f"{target_id} is outside {battery}'s {spec.arc} arc"
    return None


def beam_modifiers(state: GameState, ship_id: str, battery: str, target_id: str) -> list[Modifier]:
    """GSC2-HIT-1/2 and the range band (GSC2-BEAM-4) of one battery's shot at one target."""
    target = state.ships[target_id]
    spec = next(b for b in state.specs[ship_id].beams if b.id == battery)
    mods = target_modifiers(target, state.specs[target_id].aspect)
    rng = range_modifier(spec.klass, state.ships[ship_id].pos.distance_to(target.pos))
    if rng is not None:
        mods.append(rng)
    return mods


def beam_to_hit(state: GameState, ship_id: str, battery: str, target_id: str) -> int:
    spec = next(b for b in state.specs[ship_id].beams if b.id == battery)
    return spec.targeting + sum(m.value for m in beam_modifiers(state, ship_id, battery, target_id))


def fire(state: GameState, cmd: Fire, dice: Dice) -> BeamFired:
    problem = fire_problem(state, cmd.ship, cmd.battery, cmd.target)
    if problem:
        raise RuleViolation(*problem)
    ship, target = state.ships[cmd.ship], state.ships[cmd.target]
    spec = next(b for b in state.specs[cmd.ship].beams if b.id == cmd.battery)
    dist = ship.pos.distance_to(target.pos)
    roll = roll_to_hit(
        dice,
        f"{cmd.battery} at {target.id}",
        "GSC2-HIT-1",
        spec.targeting,
        beam_modifiers(state, cmd.ship, cmd.battery, cmd.target),
    )
    return BeamFired(
        ship=ship.id,
        battery=spec.id,
        target=target.id,
        distance=round(dist, 3),
        weapons=spec.weapons,
        damage=spec.damage,
        klass=spec.klass,
        hit=roll.outcome == "hit",
        needed=roll.target or 0,
        ship_name=state.specs[ship.id].name,
        battery_name=spec.name or f"{spec.klass} beam battery {spec.id}",
        target_name=state.specs[target.id].name,
        rolls=(roll,),
    )


def pending_from_beam(ev: BeamFired, side: str) -> tuple[PendingHit, ...]:
    """GSC2-BEAM-3: a hit makes every weapon of the battery deal its damage separately."""
    if not ev.hit:
        return ()
    return tuple(
        PendingHit(target=ev.target, source=f"{ev.ship}/{ev.battery} weapon {i + 1}", damage=ev.damage, side=side)
        for i in range(ev.weapons)
    )
