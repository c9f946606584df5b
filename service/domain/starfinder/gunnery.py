"""Gunnery (SF-GUN-1..8): checks in helm order, projectiles, and damage at the end of the phase."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import msgspec

from service.domain.core import Dice, Modifier, Roll, RuleViolation
from service.domain.core.acc import Acc

from . import commands as C
from .checks import crew_mods, defence, total
from .damage import apply_hit, roll_damage, struck, weakest
from .events import Attacked, ProjectileChecked
from .geometry import arcs_of, chase, out_of_range, range_penalty, swap
from .scenario import ARCS, WeaponSpec
from .state import GameState, Projectile, ShipState


def aim(state: GameState, cmd: C.Fire) -> tuple[WeaponSpec, str, str, int, bool]:
    """Validate a shot; returns (weapon, arc fired from, quadrant struck, range, boundary)."""
    crew = state.crew[cmd.seat]
    s = state.ships[crew.ship]
    weapon = _ready_weapon(state, crew.ship, s, cmd.weapon)
    t = _enemy(state, s, cmd.target)
    if cmd.flyby:
        return weapon, _flyby_arc(s, weapon, cmd), _flyby_quadrant(cmd), 1, False
    arcs = arcs_of(s.hex, s.facing, t.hex)
    boundary = len(arcs) == 2
    arc = _turret_arc(s, cmd, arcs) if weapon.arc == "turret" else _fixed_arc(s, weapon, cmd, arcs)
    pick = s.arc_picks.get(cmd.target)
    if boundary and pick is not None and pick != arc:
        raise RuleViolation("SF-GUN-4", f"{cmd.target} is on a boundary and the {pick} arc already fires at it")
    distance = s.hex.distance_to(t.hex)
    if out_of_range(distance, weapon.range):
        raise RuleViolation("SF-GUN-5", f"{cmd.target} is {distance} hexes away: beyond ten {weapon.range} increments")
    options, quadrant = struck(state, cmd.target, s.hex, cmd.quadrant)
    if quadrant is None or (cmd.quadrant is not None and cmd.quadrant != quadrant):
        raise RuleViolation("SF-DMG-1", f"the attack strikes one of {options}: name it as 'quadrant'")
    return weapon, arc, quadrant, distance, boundary


def _ready_weapon(state: GameState, ship: str, s: ShipState, weapon_id: str) -> WeaponSpec:
    """SF-ROLE-5, SF-GUN-2: the ship is at battle stations and the weapon exists and has not fired this round."""
    if not s.battle_stations:
        raise RuleViolation("SF-ROLE-5", f"{ship} has not gone to battle stations: its targeting is off")
    weapon = next((w for w in state.specs[ship].weapons if w.id == weapon_id), None)
    if weapon is None:
        raise RuleViolation("SF-GUN-2", f"{ship} has no weapon {weapon_id!r}")
    if weapon.id in s.fired:
        raise RuleViolation("SF-GUN-2", f"{weapon.label} has already fired this round")
    return weapon


def _enemy(state: GameState, s: ShipState, target: str) -> ShipState:
    """SF-GUN-6, SF-DMG-6: the target is an enemy starship still in the fight."""
    t = state.ships.get(target)
    if t is None or t.side == s.side:
        raise RuleViolation("SF-GUN-6", f"{target!r} is not an enemy starship")
    if t.status == "destroyed":
        raise RuleViolation("SF-DMG-6", f"{target} is destroyed")
    return t


def _flyby_arc(s: ShipState, weapon: WeaponSpec, cmd: C.Fire) -> str:
    """SF-STUNT-5: a flyby's target takes fire from one arc, any arc (the pilot's stunt put it there)."""
    if s.flyby != cmd.target:
        raise RuleViolation("SF-STUNT-5", f"no successful flyby of {cmd.target} this round")
    arc = cmd.arc if weapon.arc == "turret" else (swap(weapon.arc) if s.rolled else weapon.arc)
    if arc not in ARCS or (s.flyby_arc is not None and arc != s.flyby_arc):
        raise RuleViolation("SF-STUNT-5", f"one arc fires at the flyby target ({s.flyby_arc or 'name it'})")
    return arc


def _flyby_quadrant(cmd: C.Fire) -> str:
    if cmd.quadrant not in ARCS:
        raise RuleViolation("SF-DMG-1", "a flyby attack strikes the quadrant the attacker names")
    return cmd.quadrant


def _turret_arc(s: ShipState, cmd: C.Fire, arcs: tuple[str, ...]) -> str:
    """SF-GUN-4: a turret fires into the arc named (or picked before, or the only one the target is in)."""
    arc = cmd.arc or s.arc_picks.get(cmd.target) or (arcs[0] if len(arcs) == 1 else None)
    if arc not in arcs:
        raise RuleViolation("SF-GUN-4", f"name the arc the turret fires into, one of {arcs}")
    return arc


def _fixed_arc(s: ShipState, weapon: WeaponSpec, cmd: C.Fire, arcs: tuple[str, ...]) -> str:
    """SF-GUN-3/4: a fixed weapon fires from its own arc (the opposite one when the ship has rolled)."""
    arc = swap(weapon.arc) if s.rolled else weapon.arc
    if arc not in arcs:
        raise RuleViolation("SF-GUN-3", f"{cmd.target} is not in the {arc} arc (it is in {', '.join(arcs)})")
    if cmd.arc is not None and cmd.arc != arc:
        raise RuleViolation("SF-GUN-4", f"{weapon.label} fires from the {arc} arc")
    return arc


def attack_mods(
    state: GameState, seat: str, weapon: WeaponSpec, target: str, arc: str, distance: int
) -> tuple[list[Modifier], bool]:
    """SF-GUN-5/6, SF-RND-3, SF-DMG-5: the gunnery check's modifiers and whether it fails outright."""
    sid = state.crew[seat].ship
    s, t = state.ships[sid], state.ships[target]
    mods = [Modifier("SF-GUN-6", "gunner", state.members[seat].gunnery)]
    rp = range_penalty(distance, weapon.range)
    if rp:
        mods.append(Modifier("SF-GUN-5", f"range {distance} ({weapon.range} increments)", rp))
    if target in s.locks:
        mods.append(Modifier("SF-RND-3", "science officer's lock on", 2))
    if weapon.kind == "tracking" and sid in t.countermeasures:
        mods.append(Modifier("SF-RND-3", "target's improved countermeasures", -2))
    extra, fail = crew_mods(state, seat, f"weapons_{arc}")
    return [*mods, *extra], fail


def fire(acc: Acc[GameState], cmd: C.Fire, dice: Dice) -> None:
    st = acc.state
    weapon, arc, quadrant, distance, boundary = aim(st, cmd)
    sid = st.crew[cmd.seat].ship
    s, t = st.ships[sid], st.ships[cmd.target]
    kind = "AC" if weapon.kind == "direct" else "TL"
    needed, _ = defence(st, cmd.target, kind)
    mods, fail = attack_mods(st, cmd.seat, weapon, cmd.target, arc, distance)

    def attacked(**outcome: Any) -> Attacked:
        return Attacked(
            ship=sid,
            weapon=weapon.id,
            target=cmd.target,
            kind="gunnery",
            seat=cmd.seat,
            arc=arc,
            quadrant=quadrant,
            distance=distance,
            defence=kind,
            needed=needed,
            flyby=cmd.flyby,
            boundary=boundary,
            **outcome,
        )

    if fail:  # SF-DMG-5: a wrecked weapons array fails automatically
        acc.add(attacked())
        return
    roll = dice.roll_high(
        20,
        f"gunnery check: {weapon.label} at {st.specs[cmd.target].label}",
        "SF-GUN-6",
        needed,
        tuple(mods),
        success="hit",
        failure="miss",
    )
    hit = roll.outcome == "hit"
    rolls: list[Roll] = [roll]
    result = {"total": total(roll), "hit": hit, "natural20": roll.value == 20}
    if not hit:
        acc.add(attacked(**result, rolls=tuple(rolls)))
        return
    if weapon.kind == "direct":
        damage, more = roll_damage(dice, weapon.damage, weapon.linked, weapon.label)
        acc.add(attacked(**result, damage=damage, rolls=(*rolls, *more)))
        return
    flight = chase(s.hex, t.hex, weapon.speed)  # SF-GUN-8
    arrived = flight[-1] == t.hex
    p = Projectile(
        id=f"p{st.counter + 1}",
        ship=sid,
        weapon=weapon.id,
        target=cmd.target,
        hex=flight[-1],
        speed=weapon.speed,
        gunnery=st.members[cmd.seat].gunnery,
        damage=weapon.damage,
        linked=weapon.linked,
    )
    damage = 0
    if arrived:
        damage, more = roll_damage(dice, weapon.damage, weapon.linked, weapon.label)
        rolls += more
    acc.add(attacked(**result, damage=damage, projectile=p, flight=flight, arrived=arrived, rolls=tuple(rolls)))


def shots(state: GameState, seat: str, *, assume_stations: bool = False) -> Iterator[C.Fire]:
    """Every shot the seat's ship may fire now (SF-GUN-2..5, SF-STUNT-5): one per weapon and target, with the arc
    or quadrant named only where the gunner must pick (a turret's arc, a boundary quadrant).
    ``assume_stations``: as if battle stations were declared (any crew member may still declare them)."""
    sid = state.crew[seat].ship
    s = state.ships[sid]
    if assume_stations and not s.battle_stations:
        state = msgspec.structs.replace(
            state, ships={**state.ships, sid: msgspec.structs.replace(s, battle_stations=True)}
        )
    for w in state.specs[sid].weapons:
        if w.id in s.fired:
            continue
        for t, other in state.ships.items():
            if other.side == s.side or other.status == "destroyed":
                continue
            if s.flyby == t:
                yield from _flyby_shots(state, seat, w, t)
            elif not _bears(s, w, other):
                continue  # cheap geometry first: most pairs are out of arc or range
            yield from _plain_shots(state, seat, w, t)


def _flyby_shots(state: GameState, seat: str, w: WeaponSpec, t: str) -> Iterator[C.Fire]:
    """SF-STUNT-5: at the flyby target, every arc (a turret) and quadrant the attacker may name."""
    arcs: tuple[str | None, ...] = ARCS if w.arc == "turret" else (None,)
    for a in arcs:
        yield from (
            c
            for q in ARCS
            if _aims(state, c := C.Fire(seat=seat, weapon=w.id, target=t, arc=a, quadrant=q, flyby=True))
        )


def _plain_shots(state: GameState, seat: str, w: WeaponSpec, t: str) -> Iterator[C.Fire]:
    """The shots at ``t`` naming no more than the gunner must: no arc when none is needed, no quadrant unless picked."""
    for a in (None, *ARCS):
        found = [
            c for q in (None, *ARCS) if _aims(state, c := C.Fire(seat=seat, weapon=w.id, target=t, arc=a, quadrant=q))
        ]
        plain = [c for c in found if c.quadrant is None]
        yield from plain or found
        if a is None and found:
            break


def _bears(s: ShipState, w: WeaponSpec, t: ShipState) -> bool:
    arc = swap(w.arc) if s.rolled else w.arc
    in_arc = w.arc == "turret" or arc in arcs_of(s.hex, s.facing, t.hex)
    return in_arc and not out_of_range(s.hex.distance_to(t.hex), w.range)


def has_shot(state: GameState, seat: str) -> bool:
    return any(True for _ in shots(state, seat, assume_stations=True))


def _aims(state: GameState, cmd: C.Fire) -> bool:
    try:
        aim(state, cmd)
    except RuleViolation:
        return False
    return True


def check_projectiles(acc: Acc[GameState], dice: Dice) -> None:
    """SF-GUN-8: each projectile in flight checks again at the start of the gunnery phase, without bonuses."""
    for pid in sorted(acc.state.projectiles, key=lambda k: int(k[1:])):
        st = acc.state
        p = st.projectiles[pid]
        t = st.ships.get(p.target)
        if t is None or t.status == "destroyed":
            acc.add(
                ProjectileChecked(
                    projectile=pid, target=p.target, needed=0, total=None, success=False, why="its target is destroyed"
                )
            )
            continue
        weapon = next(w for w in st.specs[p.ship].weapons if w.id == p.weapon)
        needed, _ = defence(st, p.target, "TL")
        mods = [Modifier("SF-GUN-8", "launching gunner (no other bonus)", p.gunnery)]
        d = p.hex.distance_to(t.hex)
        rp = range_penalty(d, weapon.range)
        if rp:
            mods.append(Modifier("SF-GUN-5", f"range {d}", rp))
        if p.ship in t.countermeasures:
            mods.append(Modifier("SF-RND-3", "target's improved countermeasures", -2))
        roll = dice.roll_high(
            20,
            f"projectile {pid} keeps tracking {st.specs[p.target].label}",
            "SF-GUN-8",
            needed,
            tuple(mods),
            success="tracking",
            failure="destroyed",
        )
        if roll.outcome != "tracking":
            acc.add(
                ProjectileChecked(
                    projectile=pid,
                    target=p.target,
                    needed=needed,
                    total=total(roll),
                    success=False,
                    why="the check fell below TL",
                    rolls=(roll,),
                )
            )
            continue
        path = chase(p.hex, t.hex, p.speed)
        arrived = path[-1] == t.hex
        damage, quadrant, rolls = 0, None, [roll]
        if arrived:
            damage, more = roll_damage(dice, p.damage, p.linked, weapon.label)
            rolls += more
            options = arcs_of(t.hex, t.facing, p.hex)
            quadrant = weakest(st, p.target, options)  # SF-R-7 (one quadrant off a boundary: that one)
        acc.add(
            ProjectileChecked(
                projectile=pid,
                target=p.target,
                needed=needed,
                total=total(roll),
                success=True,
                path=path,
                arrived=arrived,
                damage=damage,
                quadrant=quadrant,
                rolls=tuple(rolls),
            )
        )


def apply_pending(acc: Acc[GameState], dice: Dice) -> None:
    """SF-GUN-1, SF-DMG-4 ruling: every hit of the phase is applied now, in firing order."""
    while acc.state.pending:
        h = acc.state.pending[0]
        ev = apply_hit(acc.state, h.target, h.attacker, h.weapon, h.quadrant, h.damage, h.natural20, dice)
        acc.add(msgspec.structs.replace(ev, settles=True))
