"""Fire phase: sealed declarations, then simultaneous resolution (ASC-FIRE, ASC-SCR)."""

from __future__ import annotations

from fractions import Fraction
from typing import NamedTuple

from msgspec.structs import replace

from service.domain.core import Actor, Dice, Modifier, Roll, RuleViolation
from service.domain.core.acc import Acc
from service.domain.core.hexgrid import in_arcs

from .commands import Fire
from .condition import at_all_stop, controls, in_contact, power_shutdown, working_ttas
from .damage import locate
from .events import FireDeclared, ShotResolved, VesselDestroyed
from .scenario import ENERGY_WEAPONS, VesselSpec, parse_damage, parse_rof
from .sight import live_vessel, resolve, seen_by, still_in_phase, visible
from .state import FireDecl, State, Strike


class Weapon(NamedTuple):
    id: str
    launcher: bool
    weapon_type: str
    strikes: int
    damage: int
    targeting: int
    mounts: int
    utes: bool
    arcs: tuple[int, ...]
    rof: Fraction


def weapon_of(spec: VesselSpec, wid: str) -> Weapon | None:
    for t in spec.turrets:
        if t.id == wid:
            a, b = parse_damage(t.damage)
            return Weapon(t.id, False, t.weapon_type, a, b, t.targeting, t.mounts, t.utes, t.arcs, Fraction(1))
    for lnch in spec.launchers:
        if lnch.id == wid:
            a, b = parse_damage(lnch.damage)
            return Weapon(lnch.id, True, lnch.weapon_type, a, b, lnch.targeting, 1, False, (), parse_rof(lnch.rof))
    return None


def weapons(spec: VesselSpec) -> list[str]:
    return [t.id for t in spec.turrets] + [lnch.id for lnch in spec.launchers]


def _holder(state: State, vessel: str) -> str:
    """Whose TTAs a shot uses: a remote's controller, else the firing vessel (ASC-FIRE-2)."""
    return state.specs[vessel].controller or vessel


def _uses_holder_tta(state: State, d: FireDecl) -> bool:
    w = weapon_of(state.specs[d.vessel], d.weapon)
    return not (w is not None and w.utes) and d.guide is None


def no_target(name: str) -> RuleViolation:
    return RuleViolation("ASC-FIRE-2", f"no detected target {name!r}")


def check_fire(state: State, cmd: Fire, actor: Actor) -> FireDecl:
    """ASC-FIRE: a shot's declaration, checked step by step (the decide skeleton has checked whose vessel it
    is and that it is the fire phase)."""
    side = live_vessel(state, cmd.vessel, "ASC-FIRE-1")
    still_in_phase(state, side)
    w = _ready_weapon(state, cmd)
    target = _fire_target(state, side, cmd, actor)
    _in_reach(state, cmd, w, target)
    if cmd.point_defence:
        _point_defence_target(state, w, target)
    _fire_control(state, side, cmd, w, target)
    return FireDecl(
        side=side, vessel=cmd.vessel, weapon=cmd.weapon, target=target, guide=cmd.guide, point_defence=cmd.point_defence
    )


def _ready_weapon(state: State, cmd: Fire) -> Weapon:
    """The weapon exists, is working, has no target yet this turn, and its vessel can fire it."""
    spec, st = state.specs[cmd.vessel], state.status[cmd.vessel]
    w = weapon_of(spec, cmd.weapon)
    if w is None:
        raise RuleViolation("ASC-FIRE-3", f"{cmd.vessel} has no weapon {cmd.weapon!r}")
    if w.id in st.mounts_lost:
        raise RuleViolation("ASC-DMG-4", f"mount {w.id} is unusable for the rest of the battle")
    if any(d.vessel == cmd.vessel and d.weapon == cmd.weapon for d in state.declarations):
        raise RuleViolation("ASC-FIRE-1", f"{w.id} has already been given a target this turn")
    _under_control(state, cmd.vessel)
    if w.weapon_type in ENERGY_WEAPONS and power_shutdown(spec, st):
        raise RuleViolation("ASC-DMG-3", f"{cmd.vessel}'s power plant is shut down: no energy weapons")
    return w


def _under_control(state: State, vessel: str) -> None:
    """ASC-DMG-4: a remote fires while its controller controls it; a ship needs its computer and TAC."""
    spec, st = state.specs[vessel], state.status[vessel]
    if spec.controller is not None:
        if not controls(state, spec.controller, vessel):
            raise RuleViolation("ASC-DMG-4", f"{vessel} is not under control (controller, communicator, TAC)")
        return
    if st.computer_out:
        raise RuleViolation("ASC-DMG-4", f"{vessel}'s computer is down: no fire")
    if st.tac_out:
        raise RuleViolation("ASC-DMG-4", f"{vessel}'s TAC is destroyed: no weapons")


def _fire_target(state: State, side: str, cmd: Fire, actor: Actor) -> str:
    """ASC-FIRE-2: a detected, living enemy (the same refusal for a hidden one as for none at all)."""
    target = resolve(state, side, cmd.target, actor.is_umpire)
    if (
        target is None
        or not visible(state, side, target)
        or state.specs[target].side == side
        or state.status[target].destroyed
    ):
        raise no_target(cmd.target)
    return target


def _in_reach(state: State, cmd: Fire, w: Weapon, target: str) -> None:
    """Range (ASC-FIRE-4), submunitions (ASC-FIRE-7), arcs (ASC-FIRE-3), atmospheric targets (ASC-FIRE-5)."""
    st = state.status[cmd.vessel]
    tspec, tst = state.specs[target], state.status[target]
    distance = st.hex.distance_to(tst.hex)
    if distance > 1:
        raise RuleViolation("ASC-FIRE-4", f"{target} is {distance} hexes away; maximum range is one hex")
    if w.launcher:
        _launcher_ready(state, cmd.vessel, w, distance)
    elif distance == 1 and not in_arcs(st.hex, st.facing, tst.hex, frozenset(w.arcs)):
        raise RuleViolation("ASC-FIRE-3", f"{target} is not in the arcs of {w.id}")
    if tspec.atmospheric:
        if w.weapon_type == "det":
            raise RuleViolation("ASC-FIRE-5", "det weapons cannot fire at atmospheric targets")
        if distance != 0 or st.hex not in state.planet_hexes:
            raise RuleViolation("ASC-FIRE-5", "atmospheric targets only from the discharge zone of the planet hex")


def _launcher_ready(state: State, vessel: str, w: Weapon, distance: int) -> None:
    """ASC-FIRE-7: submunitions detonate in the launcher's hex, need rounds, and keep their rate of fire."""
    spec, st = state.specs[vessel], state.status[vessel]
    if distance != 0:
        raise RuleViolation("ASC-FIRE-7", "submunitions detonate only in the hex they were launched in")
    if at_all_stop(spec, st):
        raise RuleViolation("ASC-MOV-4", f"{vessel} is at All Stop and cannot use submunitions")
    if st.rounds.get(w.id, 0) <= 0:
        raise RuleViolation("ASC-FIRE-7", f"{w.id} has no rounds left")
    last = st.last_launch.get(w.id)
    if last is not None and Fraction(state.turn - last) < 1 / w.rof:
        raise RuleViolation("ASC-FIRE-7", f"{w.id} fires once every {1 / w.rof} turns (last in turn {last})")


def _point_defence_target(state: State, w: Weapon, target: str) -> None:
    """ASC-FIRE-10: lasers and particle beams, at missiles."""
    if w.launcher or w.weapon_type not in ENERGY_WEAPONS:
        raise RuleViolation("ASC-FIRE-10", "only lasers and particle beams fire point defence")
    if state.specs[target].kind != "missile":
        raise RuleViolation("ASC-FIRE-10", "point defence fires only at missiles")


def _fire_control(state: State, side: str, cmd: Fire, w: Weapon, target: str) -> None:
    """ASC-FIRE-2: the shot's lock: a UTES mount guiding it, the weapon's own UTES, or a TTA of the firer
    (a remote's controller) locked on the target, within the number of TTAs."""
    holder = _holder(state, cmd.vessel)
    if cmd.guide is not None:
        g = weapon_of(state.specs[holder], cmd.guide) if holder != cmd.vessel else None
        if g is None or not g.utes or g.id in state.status[holder].mounts_lost:
            raise RuleViolation("ASC-FIRE-2", f"{cmd.guide!r} is not a working UTES mount of the controller")
        _utes_binding(state, holder, g.id, target)
        _detected_in_contact(state, side, holder, target)
        return
    if w.utes:
        _utes_binding(state, cmd.vessel, w.id, target)
        _detected_in_contact(state, side, cmd.vessel, target)
        return
    if not any(lk.target == target for lk in state.locks.get(holder, ())):
        raise RuleViolation("ASC-FIRE-2", f"{holder} has no TTA locked on {target}")
    engaged = {
        d.target for d in state.declarations if _holder(state, d.vessel) == holder and _uses_holder_tta(state, d)
    } | {target}
    ttas = working_ttas(state.specs[holder], state.status[holder])
    if len(engaged) > ttas:
        raise RuleViolation("ASC-FIRE-2", f"{holder} and its ordnance can engage at most {ttas} targets (TTAs)")


def _utes_binding(state: State, ship: str, mount: str, target: str) -> None:
    """A UTES mount's own TTA is locked on one target: its shot and any shot it guides share it."""
    for d in state.declarations:
        bound = (d.vessel == ship and d.weapon == mount) or (d.guide == mount and _holder(state, d.vessel) == ship)
        if bound and d.target != target:
            raise RuleViolation("ASC-FIRE-2", f"UTES {mount} is already locked on another target this turn")


def _detected_in_contact(state: State, side: str, ship: str, target: str) -> None:
    if target in state.auto_detected.get(side, ()):
        return
    for h, locks in state.locks.items():
        if state.specs[h].side == side and any(lk.target == target for lk in locks) and in_contact(state, ship, h):
            return
    raise RuleViolation("ASC-FIRE-2", f"no ship in contact with {ship} has detected {target}")


def declare(out: Acc[State], cmd: Fire, actor: Actor) -> None:
    out.add(FireDeclared(declaration=check_fire(out.state, cmd, actor)))


# ----------------------------------------------------------------------------------------- resolution


def to_hit_modifiers(state: State, d: FireDecl, w: Weapon) -> tuple[Modifier, ...]:
    spec, tspec = state.specs[d.vessel], state.specs[d.target]
    mods = [
        Modifier("ASC-FIRE-5", "crew quality", spec.crew_quality),
        Modifier("ASC-FIRE-5", "target profile", tspec.target_profile),
        Modifier("ASC-FIRE-5", f"{w.id} targeting", w.targeting),
        Modifier("ASC-FIRE-5", "target computer", spec.target_computer),
    ]
    if state.status[d.vessel].hex != state.status[d.target].hex:
        mods.append(Modifier("ASC-FIRE-4", "range one hex", -2))
    if w.mounts > 1:
        mods.append(Modifier("ASC-FIRE-5", f"{('double', 'triple', 'quadruple')[w.mounts - 2]} mount", w.mounts - 1))
    if tspec.atmospheric:
        mods.append(Modifier("ASC-FIRE-5", "atmospheric target", -2))
    return tuple(m for m in mods if m.value != 0)


def _to_hit(dice: Dice, state: State, d: FireDecl, w: Weapon) -> Roll:
    return dice.roll_high(10, f"{w.id} to hit", "ASC-FIRE-5", 7, to_hit_modifiers(state, d, w), "hit", "miss")


def resolve_fire(out: Acc[State], dice: Dice) -> None:
    """Point defence first, then every other shot in (firing ship id, weapon id) order (ASC-SCR-1)."""
    decls = sorted(out.state.declarations, key=lambda d: (not d.point_defence, d.vessel, d.weapon))
    for d in decls:
        _resolve_one(out, dice, d)


def _void(out: Acc[State], d: FireDecl, note: str) -> None:
    out.add(
        ShotResolved(
            vessel=d.vessel, weapon=d.weapon, target=d.target, point_defence=d.point_defence, outcome="void", note=note
        )
    )


def _resolve_one(out: Acc[State], dice: Dice, d: FireDecl) -> None:
    state = out.state
    w = weapon_of(state.specs[d.vessel], d.weapon)
    assert w is not None
    if state.status[d.vessel].destroyed:
        return _void(out, d, "the firer was destroyed before it could fire")
    if state.status[d.target].destroyed:
        return _void(out, d, "the target was already destroyed")
    if d.point_defence:
        return _point_defence_shot(out, dice, d, w)
    return _shot(out, dice, d, w)


def _point_defence_shot(out: Acc[State], dice: Dice, d: FireDecl, w: Weapon) -> None:
    """ASC-FIRE-10: point defence at a missile attacking this ship; a hit kills it at once."""
    state = out.state
    attacking = any(x.vessel == d.target and x.target == d.vessel and not x.point_defence for x in state.declarations)
    if not attacking:
        return _void(out, d, "the missile is not attacking this ship")
    roll = _to_hit(dice, state, d, w)
    hit = roll.outcome == "hit"
    out.add(
        ShotResolved(
            vessel=d.vessel,
            weapon=d.weapon,
            target=d.target,
            point_defence=True,
            outcome=roll.outcome or "miss",
            missile_killed=hit,
            rolls=(roll,),
        )
    )
    if hit:
        out.add(VesselDestroyed(vessel=d.target, cause="killed by point defence", seen_by=seen_by(out.state, d.target)))
    return None


def _shot(out: Acc[State], dice: Dice, d: FireDecl, w: Weapon) -> None:
    """A shot: a direct strike on a vessel at All Stop (ASC-MOV-4), else the to-hit roll (ASC-FIRE-5); a
    hit kills a missile (ASC-FIRE-9) or lands its strikes; a det missile is spent (ASC-FIRE-8)."""
    state = out.state
    spec = state.specs[d.vessel]
    tspec, tst = state.specs[d.target], state.status[d.target]
    rolls: list[Roll] = []
    direct = at_all_stop(tspec, tst)
    if direct:
        outcome = "direct"
    else:
        roll = _to_hit(dice, state, d, w)
        rolls.append(roll)
        outcome = roll.outcome or "miss"
    hit = outcome in ("hit", "direct")
    missile_killed = hit and tspec.kind == "missile"  # ASC-FIRE-9: no location, screen or armour roll
    strikes: tuple[Strike, ...] = ()
    screen_after: int | None = None
    if hit and not missile_killed:
        strikes, screen_after = _strikes(dice, state, d.target, w, direct, rolls)
    det_missile = spec.kind == "missile" and w.weapon_type == "det"
    out.add(
        ShotResolved(
            vessel=d.vessel,
            weapon=d.weapon,
            target=d.target,
            outcome=outcome,
            strikes=strikes,
            missile_killed=missile_killed,
            firer_destroyed=det_missile,
            screen_after=screen_after,
            launcher_turn=state.turn if w.launcher else None,
            rolls=tuple(rolls),
            note="direct strike on a vessel at All Stop" if direct else "",
        )
    )
    if det_missile:
        out.add(VesselDestroyed(vessel=d.vessel, cause="det warhead fired", seen_by=seen_by(out.state, d.vessel)))
    return None


def _strikes(
    dice: Dice, state: State, target: str, w: Weapon, direct: bool, rolls: list[Roll]
) -> tuple[tuple[Strike, ...], int | None]:
    """Each strike of a hit against the target's screens (ASC-SCR-1/2; none against a direct strike, which
    does ten times the damage), then its location (ASC-LOC). Returns the strikes and the screen rating
    after them (None when unchanged)."""
    tspec, tst = state.specs[target], state.status[target]
    per = w.damage * (10 if direct else 1)
    rating = tst.screen or 0
    facing_rating = rating
    strikes: list[Strike] = []
    for _ in range(w.strikes):
        blocked = False
        need = facing_rating if w.weapon_type == "det" else rating  # ASC-SCR-2
        if not direct and need > 0:
            sroll = dice.roll(10, "screens", "ASC-SCR-2" if w.weapon_type == "det" else "ASC-SCR-1", need)
            blocked = sroll.value <= need
            rolls.append(replace(sroll, outcome="blocked" if blocked else "through"))
        if blocked:
            rating = max(0, rating - per)
            strikes.append(Strike(damage=per, blocked=True))
        else:
            strikes.append(locate(dice, tspec, tst, per, rolls))
    return tuple(strikes), (rating if rating != (tst.screen or 0) else None)
