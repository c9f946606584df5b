"""Movement (SF-MOV-1..4), stunts (SF-STUNT-1..7) and the free attacks they provoke: every helm order is
validated in full by ``plan`` before a die is rolled."""

from __future__ import annotations

from service.domain.core import Command, Dice, Event, Modifier, Roll, RuleViolation
from service.domain.core.acc import Acc
from service.domain.core.hexgrid import Hex

from . import commands as C
from .checks import check, condition_mods, defence, half_speed, piloting_check_mods, speed, total, turn_distance
from .damage import apply_hit, roll_damage
from .events import Attacked, ShipMoved
from .scenario import BARREL_ROLL_SIZES
from .state import GameState

# --- SF-MOV: paths ------------------------------------------------------------------------------------------------


def occupied(state: GameState, ship: str, where: Hex) -> str | None:
    for k, s in state.ships.items():
        if k != ship and s.status != "destroyed" and s.hex == where:
            return k
    return None


def walk(state: GameState, ship: str, path: str, length_rule: str = "SF-MOV-1") -> tuple[tuple[Hex, ...], int, int]:
    """Follow F/L/R from the ship's position (SF-MOV-1, SF-MOV-2); returns (hexes, facing, turns)."""
    s = state.ships[ship]
    td, limit = turn_distance(state, ship), speed(state, ship)
    pos, facing = s.hex, s.facing
    hexes = [pos]
    since, consecutive, turns = 0, 0, 0
    for ch in path:
        if ch == "F":
            if len(hexes) > limit:
                raise RuleViolation(length_rule, f"speed {limit}: at most {limit} hexes ahead")
            pos = pos.neighbour(facing)
            hexes.append(pos)
            since, consecutive = since + 1, 0
        elif ch in "LR":
            ok = since >= td if td else (since >= 1 and consecutive == 0) or consecutive == 1
            if not ok:
                need = f"{td} hex(es)" if td else "1 hex (then at most two turns)"
                raise RuleViolation(
                    "SF-MOV-2", f"{state.specs[ship].maneuverability} manoeuvrability: move {need} before each turn"
                )
            facing = (facing + (1 if ch == "R" else -1)) % 6
            since, consecutive, turns = 0, consecutive + 1, turns + 1
        else:
            raise RuleViolation("SF-MOV-1", f"a path is made of F, L and R, not {ch!r}")
    end_free(state, ship, hexes[-1])
    return tuple(hexes), facing, turns


def path_of(state: GameState, ship: str, cmd: C.Move | C.Evade | C.Flyby, rule: str) -> str:
    """The F/L/R path a move names: ``path`` as given, or the turns and steps its ``hexes`` and ``facing`` need
    (each hex adjacent to the last; a turn is the shorter way round, SF-MOV-2 then checks the turns)."""
    if not cmd.hexes and cmd.facing is None:
        return cmd.path
    if cmd.path:
        raise RuleViolation(rule, "name a move by its path or by its hexes, not both")
    s = state.ships[ship]
    pos, facing, out = s.hex, s.facing, []
    for q, r in cmd.hexes:
        step = next((d for d in range(6) if pos.neighbour(d) == Hex(q, r)), None)
        if step is None:
            raise RuleViolation(rule, f"hex [{q}, {r}] is not next to [{pos.q}, {pos.r}]: name every hex entered")
        out.append(_turns(facing, step, rule))
        out.append("F")
        pos, facing = Hex(q, r), step
    if cmd.facing is not None:
        if not 0 <= cmd.facing <= 5:
            raise RuleViolation(rule, "a facing is a hexside 0..5 (N, NE, SE, S, SW, NW)")
        out.append(_turns(facing, cmd.facing, rule))
    return "".join(out)


def _turns(facing: int, to: int, rule: str) -> str:
    d = (to - facing) % 6
    if d == 3:
        raise RuleViolation(rule, "a ship cannot reverse its heading within one hex (SF-MOV-2)")
    return "R" * d if d <= 2 else "L" * (6 - d)


def straight(start: Hex, direction: int, n: int) -> tuple[Hex, ...]:
    hexes = [start]
    for _ in range(n):
        hexes.append(hexes[-1].neighbour(direction))
    return tuple(hexes)


def end_free(state: GameState, ship: str, where: Hex) -> None:
    other = occupied(state, ship, where)
    if other is not None:
        raise RuleViolation("SF-MOV-3", f"a ship may pass through {other}'s hex but not end its move there")


def settle(state: GameState, ship: str, hexes: tuple[Hex, ...]) -> tuple[Hex, ...]:
    """SF-R-11: an outcome the pilot did not choose stops short of an occupied hex."""
    out = list(hexes)
    while len(out) > 1 and occupied(state, ship, out[-1]):
        out.pop()
    return tuple(out)


def passed_enemies(state: GameState, ship: str, hexes: tuple[Hex, ...]) -> list[str]:
    side = state.ships[ship].side
    found: list[str] = []
    for h in hexes[1:-1]:
        for k, s in state.ships.items():
            if s.hex == h and s.side != side and s.status != "destroyed" and k not in found:
                found.append(k)
    return found


# --- moves and stunts ---------------------------------------------------------------------------------------------

MOVE_RULE = {
    C.Move: "SF-MOV-1",
    C.Evade: "SF-STUNT-3",
    C.Flyby: "SF-STUNT-5",
    C.BackOff: "SF-STUNT-1",
    C.BarrelRoll: "SF-STUNT-2",
    C.FlipAndBurn: "SF-STUNT-4",
    C.Slide: "SF-STUNT-6",
    C.TurnInPlace: "SF-STUNT-7",
}


def plan(state: GameState, cmd: Command, ship: str) -> tuple[tuple[Hex, ...], int, int]:  # noqa: C901
    """Validate a helm order before any die is rolled; returns the chosen (hexes, facing, turns)."""
    s, spec = state.ships[ship], state.specs[ship]
    half = half_speed(state, ship)
    rule = MOVE_RULE[type(cmd)]
    if isinstance(cmd, C.Move | C.Evade | C.Flyby):
        planned = walk(state, ship, path_of(state, ship, cmd, rule), rule)
        if not isinstance(cmd, C.Move):
            _push(state, ship)
        if isinstance(cmd, C.Flyby):
            enemy = state.ships.get(cmd.enemy)
            if enemy is None or enemy.side == s.side or enemy.status == "destroyed":
                raise RuleViolation("SF-STUNT-5", f"{cmd.enemy!r} is not an enemy starship on the map")
            if enemy.hex not in planned[0][1:-1]:
                raise RuleViolation("SF-STUNT-5", f"the flyby path must pass through {cmd.enemy}'s hex")
        return planned
    if isinstance(cmd, C.TurnInPlace):
        if not 0 <= cmd.facing <= 5 or cmd.facing == s.facing:
            raise RuleViolation("SF-STUNT-7", "turn in place to a new facing 0..5")
        return (s.hex,), cmd.facing, 0
    if isinstance(cmd, C.BarrelRoll) and spec.size not in BARREL_ROLL_SIZES:
        raise RuleViolation("SF-STUNT-2", f"a {spec.size} ship cannot barrel roll (Large or smaller only)")
    if isinstance(cmd, C.Slide):
        if cmd.side not in ("port", "starboard"):
            raise RuleViolation("SF-STUNT-6", "slide toward the 'port' or 'starboard' forward hexside")
        if not 0 <= cmd.hexes <= speed(state, ship):
            raise RuleViolation("SF-STUNT-6", f"a slide moves up to full speed ({speed(state, ship)} hexes)")
        direction = (s.facing + (1 if cmd.side == "starboard" else -1)) % 6
    else:
        assert isinstance(cmd, C.BackOff | C.BarrelRoll | C.FlipAndBurn)
        if not 0 <= cmd.hexes <= half:
            raise RuleViolation(rule, f"this stunt moves up to half speed ({half} hexes)")
        direction = (s.facing + 3) % 6 if isinstance(cmd, C.BackOff) else s.facing
    hexes = straight(s.hex, direction, cmd.hexes)
    end_free(state, ship, hexes[-1])
    _push(state, ship)
    return hexes, s.facing, 0


def move(acc: Acc[GameState], cmd: C.Move | C.Evade | C.Flyby, ship: str, dice: Dice) -> None:
    st = acc.state
    hexes, facing, turns = plan(st, cmd, ship)
    if isinstance(cmd, C.Move):
        _moved(acc, ship, cmd.seat, "move", hexes, facing, turns, dice)
        return
    if isinstance(cmd, C.Evade):
        dc = st.specs[ship].dc(10)
        roll, margin = _stunt_check(st, cmd.seat, "evade", "SF-STUNT-3", dc, dice)
        bonus = 2 if margin >= 0 else (-2 if margin <= -5 else 0)
        _moved(acc, ship, cmd.seat, "evade", hexes, facing, turns, dice, dc=dc, margin=margin, roll=roll, defence=bonus)
        return
    dc = st.specs[cmd.enemy].dc(20)
    roll, margin = _stunt_check(st, cmd.seat, "flyby", "SF-STUNT-5", dc, dice)
    ok = margin >= 0
    _moved(
        acc,
        ship,
        cmd.seat,
        "flyby",
        hexes,
        facing,
        turns,
        dice,
        dc=dc,
        margin=margin,
        roll=roll,
        flyby=cmd.enemy if ok else None,
        exempt=cmd.enemy if ok else None,
    )


def stunt(acc: Acc[GameState], cmd: Command, ship: str, dice: Dice) -> None:
    st = acc.state
    s, spec = st.ships[ship], st.specs[ship]
    half = half_speed(st, ship)
    dc = spec.dc(10)
    hexes, facing, _ = plan(st, cmd, ship)
    if isinstance(cmd, C.TurnInPlace):
        penalty = {"clumsy": -4, "poor": -2}.get(spec.maneuverability, 0)
        acc.add(
            ShipMoved(ship=ship, seat=cmd.seat, manoeuvre="turn_in_place", path=hexes, facing=facing, defence=penalty)
        )
        return
    if isinstance(cmd, C.BackOff):
        roll, margin = _stunt_check(st, cmd.seat, "back off", "SF-STUNT-1", dc, dice)
        if margin < 0:
            hexes = settle(st, ship, straight(s.hex, (s.facing + 3) % 6, 0 if margin <= -5 else 1))
        _moved(
            acc,
            ship,
            cmd.seat,
            "back_off",
            hexes,
            s.facing,
            0,
            dice,
            dc=dc,
            margin=margin,
            roll=roll,
            defence=-4 if margin <= -5 else 0,
        )
        return
    if isinstance(cmd, C.BarrelRoll):
        roll, margin = _stunt_check(st, cmd.seat, "barrel roll", "SF-STUNT-2", dc, dice)
        _moved(
            acc,
            ship,
            cmd.seat,
            "barrel_roll",
            hexes,
            s.facing,
            0,
            dice,
            dc=dc,
            margin=margin,
            roll=roll,
            defence=-4 if margin <= -5 else 0,
            rolled=margin >= 0,
        )
        return
    if isinstance(cmd, C.FlipAndBurn):
        dc = spec.dc(15)
        roll, margin = _stunt_check(st, cmd.seat, "flip and burn", "SF-STUNT-4", dc, dice)
        facing = (s.facing + 3) % 6 if margin >= 0 else s.facing
        _moved(acc, ship, cmd.seat, "flip_and_burn", hexes, facing, 0, dice, dc=dc, margin=margin, roll=roll)
        return
    assert isinstance(cmd, C.Slide)
    roll, margin = _stunt_check(st, cmd.seat, "slide", "SF-STUNT-6", dc, dice)
    if margin < 0:
        hexes = settle(st, ship, straight(s.hex, s.facing, min(cmd.hexes, half)))
    _moved(acc, ship, cmd.seat, "slide", hexes, s.facing, 0, dice, dc=dc, margin=margin, roll=roll)


def push_refusal(state: GameState, ship: str) -> str | None:
    """SF-DMG-5: why the ship can take no push action (a stunt) now, or None; options, forms and decide share it."""
    if state.ships[ship].condition("engines") == 2:
        return "malfunctioning engines allow no push action (stunt)"
    return None


def _push(state: GameState, ship: str) -> None:
    why = push_refusal(state, ship)
    if why is not None:
        raise RuleViolation("SF-DMG-5", why)


def _stunt_check(state: GameState, seat: str, name: str, rule: str, dc: int, dice: Dice) -> tuple[Roll | None, int]:
    """A stunt's Piloting check carries every Piloting modifier the helm-order check does (SF-HELM-2/3)."""
    mods, fail = piloting_check_mods(state, seat, rule)
    return check(dice, f"{name} stunt", rule, dc, mods, fail)


def _moved(
    acc: Acc[GameState],
    ship: str,
    seat: str,
    manoeuvre: str,
    hexes: tuple[Hex, ...],
    facing: int,
    turns: int,
    dice: Dice,
    *,
    dc: int | None = None,
    margin: int | None = None,
    roll: Roll | None = None,
    defence: int = 0,
    rolled: bool = False,
    flyby: str | None = None,
    exempt: str | None = None,
) -> None:
    st = acc.state
    enemies = [e for e in passed_enemies(st, ship, hexes) if e != exempt]
    success = None if dc is None else (margin is not None and margin >= 0)
    acc.add(
        ShipMoved(
            ship=ship,
            seat=seat,
            manoeuvre=manoeuvre,
            path=hexes,
            facing=facing,
            turns=turns,
            dc=dc,
            success=success,
            margin=margin,
            defence=defence,
            rolled=rolled,
            flyby=flyby,
            rolls=(roll,) if roll else (),
        )
    )
    for enemy in enemies:  # SF-MOV-3: passing through an enemy's hex provokes its free attack
        acc.add(*free_attack(acc.state, enemy, ship, dice))


def free_attack(state: GameState, attacker: str, mover: str, dice: Dice) -> list[Event]:
    """SF-MOV-3 ruling: the enemy's best direct-fire weapon (SF-R-5) against the mover's aft, damage at once."""
    a = state.ships[attacker]
    if not a.active or not a.battle_stations:
        return []
    best: tuple[float, int, str, str] | None = None
    for i, w in enumerate(state.specs[attacker].weapons):
        if w.kind != "direct":
            continue
        arcs = ("forward", "aft", "port", "starboard") if w.arc == "turret" else (w.arc,)
        arc = min(arcs, key=lambda x: a.condition(f"weapons_{x}"))
        if a.condition(f"weapons_{arc}") >= 3:
            continue
        key = (w.average, -i, w.id, arc)
        if best is None or key[:2] > best[:2]:
            best = key
    if best is None:
        return []
    _, _, wid, arc = best
    weapon = next(w for w in state.specs[attacker].weapons if w.id == wid)
    gunners = [state.members[c.seat].gunnery for c in state.crew_of(attacker, "gunner")]
    mods = [Modifier("SF-GUN-6", "best gunner", max(gunners, default=0))]
    for system in (f"weapons_{arc}", "power_core"):
        m, _ = condition_mods(state, attacker, system)
        mods += m
    needed, _ = defence(state, mover, "AC")
    roll = dice.roll_high(
        20,
        f"free attack by {state.specs[attacker].label}'s {weapon.label}",
        "SF-MOV-3",
        needed,
        tuple(mods),
        success="hit",
        failure="miss",
    )
    hit = roll.outcome == "hit"
    rolls = [roll]
    damage = 0
    if hit:
        damage, more = roll_damage(dice, weapon.damage, weapon.linked, weapon.label)
        rolls += more
    ev = Attacked(
        ship=attacker,
        weapon=wid,
        target=mover,
        kind="free",
        arc=arc,
        quadrant="aft",
        needed=needed,
        total=total(roll),
        hit=hit,
        natural20=roll.value == 20,
        damage=damage,
        rolls=tuple(rolls),
    )
    if not hit:
        return [ev]
    return [ev, apply_hit(state, mover, attacker, wid, "aft", damage, roll.value == 20, dice)]


def drift_all(acc: Acc[GameState]) -> None:
    """SF-MOV-4: disabled ships drift ahead at half speed, last in the helm phase (no free attacks)."""
    for sid in list(acc.state.ships):
        s = acc.state.ships[sid]
        if s.status != "disabled":
            continue
        hexes = settle(acc.state, sid, straight(s.hex, s.facing, acc.state.specs[sid].speed // 2))
        if len(hexes) > 1:
            acc.add(ShipMoved(ship=sid, seat=None, manoeuvre="drift", path=hexes, facing=s.facing))
