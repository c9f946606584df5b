"""options(state, viewer) and forms(state, viewer): what a seat (or the umpire) may do now, labelled in words.

Options are complete commands decide accepts now: role changes, battle stations, every engineering action, a
set of ready helm orders, every scan, every shot, every encouragement, pass. Forms compose what has too many
combinations to list: a helm order hex by hex (with its final facing), each stunt's distance or facing, a shot
by weapon, target, arc and quadrant. Both come from the rule modules' own predicates, never from decide.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from service.domain.core import Command, RuleViolation, Viewer
from service.domain.core.choices import Field, Form, Option, PieceChoices, Value
from service.domain.core.hexgrid import FACING_NAMES

from . import commands as C
from . import crew as crew_rules
from .checks import defence, half_speed, speed, total_of, turn_distance
from .engineering import PATCHABLE, declare, diverted_points
from .flow import awaited, opening_wait
from .gunnery import aim, attack_mods, shots
from .movement import plan, push_refusal
from .roles import allowed
from .scenario import ARCS, BARREL_ROLL_SIZES, ROLES
from .state import GameState
from .status import role_name, ship_name


def options(state: GameState, viewer: Viewer) -> list[Option]:
    if state.over or viewer.kind == "spectator":
        return []
    if viewer.is_umpire:
        return [
            Option(
                command=C.ForcePhase(),
                label="Force the phase on: whoever has not acted does nothing",
                group="umpire",
                rule="SF-R-2",
            )
        ]
    me = viewer.seat or ""
    crew = state.crew.get(me)
    if crew is None:
        return []
    ship = crew.ship
    out = [
        Option(
            command=c,
            label=f"Take the {role_name(c.role)} role from next round",
            piece=ship,
            group="role",
            rule="SF-ROLE-3",
        )
        for c in (C.ChangeRole(seat=me, role=r) for r in ROLES)
        if _valid(crew_rules.change_role, state, c)
    ]
    if crew.role != "passenger" and _valid(crew_rules.battle_stations, state, ship, me):
        out.append(
            Option(
                command=C.BattleStations(seat=me),
                label=f"Battle stations: activate "
                f"{ship_name(state, ship)}'s targeting (seen by every ship with working sensors)",
                piece=ship,
                group="crew",
                rule="SF-ROLE-5",
            )
        )
    if me not in awaited(state):
        return out
    if opening_wait(state):
        return [
            *out,
            Option(
                command=C.Pass(seat=me),
                label="Begin the battle (nobody acts in round 1's engineering)",
                piece=ship,
                group="phase",
                rule="SF-R-21",
            ),
        ]
    if crew.role in ACTIONS and allowed(state, ROLE_KIND[crew.role], me):
        out += ACTIONS[crew.role](state, me, ship)
    out.append(
        Option(
            command=C.Pass(seat=me),
            label=f"Pass: take no {state.phase} action this round",
            piece=ship,
            group="phase",
            rule="SF-R-3",
        )
    )
    return out


def forms(state: GameState, viewer: Viewer) -> list[Form]:
    if state.over or viewer.kind != "seat" or viewer.seat not in awaited(state) or opening_wait(state):
        return []
    me = viewer.seat
    crew = state.crew[me]
    if crew.role == "pilot" and allowed(state, C.Move, me):
        return _helm_forms(state, me, crew.ship)
    if crew.role == "gunner" and allowed(state, C.Fire, me):
        return _fire_forms(state, me, crew.ship)
    return []


def _valid(check: Callable[..., object], *args: Any) -> bool:
    """Whether a rule module's own check accepts these arguments (it raises the violation otherwise)."""
    try:
        check(*args)
    except RuleViolation:
        return False
    return True


# --- engineering, science, captain ------------------------------------------------------------------------------


def _engineer(state: GameState, me: str, ship: str) -> list[Option]:
    out = []
    for system in PATCHABLE:
        patch = C.Patch(seat=me, system=system)
        if _valid(declare, state, patch):
            level = state.ships[ship].condition(system)
            out.append(
                Option(
                    command=patch,
                    label=f"Patch the {system.replace('_', ' ')} "
                    f"({['', 'glitching', 'malfunctioning', 'wrecked'][level]})",
                    piece=ship,
                    group="engineering",
                    rule="SF-RND-2",
                )
            )
    points = diverted_points(state, ship)
    diverts: list[tuple[Command, str]] = [(C.Divert(seat=me, to="engines"), "Divert power to the engines: +2 speed")]
    diverts += [
        (C.Divert(seat=me, to="shields", shields={q: points}), f"Divert power to the shields: +{points} {q}")
        for q in ARCS
    ]
    if points >= 4:
        even = {q: points // 4 + (1 if i < points % 4 else 0) for i, q in enumerate(ARCS)}
        diverts.append(
            (
                C.Divert(seat=me, to="shields", shields=even),
                "Divert power to the shields: " + ", ".join(f"+{n} {q}" for q, n in even.items()),
            )
        )
    for cmd, label in diverts:
        if _valid(declare, state, cmd):  # type: ignore[misc]
            out.append(Option(command=cmd, label=label, piece=ship, group="engineering", rule="SF-RND-2"))
    return out


SCIENCE_LABELS = {C.Scan: "Scan", C.LockOn: "Lock on to", C.Countermeasures: "Improve countermeasures against"}


def _science(state: GameState, me: str, ship: str) -> list[Option]:
    out = []
    for kind, verb in SCIENCE_LABELS.items():
        for t in state.ships:
            cmd = kind(seat=me, target=t)
            if _valid(crew_rules.check_science, state, cmd):
                dc = state.specs[t].dc(10)
                out.append(
                    Option(
                        command=cmd,
                        label=f"{verb} {ship_name(state, t)} (Computers, DC {dc})",
                        piece=ship,
                        target=t,
                        group="science",
                        rule="SF-RND-3",
                    )
                )
    return out


def _captain(state: GameState, me: str, ship: str) -> list[Option]:
    out = []
    for other in state.crew_of(ship):
        cmd = C.Encourage(seat=me, crew=other.seat)
        if _valid(crew_rules.check_encourage, state, cmd):
            name = state.members[other.seat].name or other.seat
            out.append(
                Option(
                    command=cmd,
                    label=f"Encourage {name}, the {role_name(other.role)} "
                    "(Diplomacy, DC 10: +2 to its checks this round)",
                    piece=ship,
                    group="captain",
                    rule="SF-R-4",
                )
            )
    return out


# --- helm ---------------------------------------------------------------------------------------------------------


def describe(path: str) -> str:
    """ "FFRFF" -> "ahead 2, turn to starboard, ahead 2"."""
    words: list[str] = []
    run = 0
    for ch in path + ".":
        if ch == "F":
            run += 1
            continue
        if run:
            words.append(f"ahead {run}")
            run = 0
        if ch in "LR":
            words.append("turn to port" if ch == "L" else "turn to starboard")
    return ", ".join(words) or "hold position"


def _pilot(state: GameState, me: str, ship: str) -> list[Option]:
    """Ready helm orders: straight runs, the first turn each way, a stunt at its usual distance, each flyby."""
    sp, half, td = speed(state, ship), half_speed(state, ship), turn_distance(state, ship)
    first = max(td, 1)
    paths = list(
        dict.fromkeys(
            ["", "F" * half, "F" * sp]
            + ["F" * first + turn + "F" * rest for turn in ("L", "R") for rest in (0, sp - first) if first + rest <= sp]
        )
    )
    out = [
        Option(command=C.Move(seat=me, path=p), label=f"Move: {describe(p)}", piece=ship, group="move", rule="SF-MOV-1")
        for p in paths
        if _valid(plan, state, C.Move(seat=me, path=p), ship)
    ]
    stunts: list[tuple[Command, str, str]] = [
        (C.Evade(seat=me, path="F" * sp), f"Evade: ahead {sp} (+2 AC and TL on a success)", "SF-STUNT-3"),
        (C.BackOff(seat=me, hexes=half), f"Back off {half} hexes", "SF-STUNT-1"),
        (C.FlipAndBurn(seat=me, hexes=half), f"Flip and burn: ahead {half}, then face aft", "SF-STUNT-4"),
        (C.Slide(seat=me, hexes=sp, side="port"), f"Slide {sp} hexes to port", "SF-STUNT-6"),
        (C.Slide(seat=me, hexes=sp, side="starboard"), f"Slide {sp} hexes to starboard", "SF-STUNT-6"),
    ]
    if state.specs[ship].size in BARREL_ROLL_SIZES:
        stunts.append((C.BarrelRoll(seat=me, hexes=half), f"Barrel roll: ahead {half}", "SF-STUNT-2"))
    out += [
        Option(command=c, label=label, piece=ship, group="stunt", rule=rule)
        for c, label, rule in stunts
        if _valid(plan, state, c, ship)
    ]
    out += _flybys(state, me, ship)
    return out


def _flybys(state: GameState, me: str, ship: str) -> list[Option]:
    s = state.ships[ship]
    out = []
    for eid, e in state.ships.items():
        if e.side == s.side or e.status == "destroyed":
            continue
        for k in range(1, speed(state, ship)):
            if e.hex == _ahead(state, ship, k):
                dc = state.specs[eid].dc(20)
                cmd = C.Flyby(seat=me, path="F" * (k + 1), enemy=eid)
                if not _valid(plan, state, cmd, ship):
                    break
                out.append(
                    Option(
                        command=cmd,
                        label=f"Flyby of {ship_name(state, eid)}: ahead {k + 1} (DC {dc})",
                        piece=ship,
                        target=eid,
                        group="stunt",
                        rule="SF-STUNT-5",
                    )
                )
                break
    return out


def _ahead(state: GameState, ship: str, k: int) -> object:
    s = state.ships[ship]
    h = s.hex
    for _ in range(k):
        h = h.neighbour(s.facing)
    return h


def _facings(exclude: int | None = None) -> tuple[Value, ...]:
    return tuple(Value(f, f"face {FACING_NAMES[f]}") for f in range(6) if f != exclude)


def _helm_forms(state: GameState, me: str, ship: str) -> list[Form]:
    s, spec = state.ships[ship], state.specs[ship]
    sp, half = speed(state, ship), half_speed(state, ship)
    name = ship_name(state, ship)
    path = Field(
        key="hexes",
        label="hexes entered, one by one",
        kind="hexpath",
        limits={
            "start": [s.hex.q, s.hex.r],
            "facing": s.facing,
            "max_cost": sp,
            "turn_distance": turn_distance(state, ship),
            "cost": "1 per hex; turns are free",
        },
    )
    facing = Field(
        key="facing", label="final facing (turns after the last hex)", kind="choice", values=_facings(), required=False
    )
    distance = Field(key="hexes", label="hexes", kind="number", min=0, max=half, step=1, unit="hexes", default=half)

    def one(command: str, label: str, rule: str, *fields: Field, fixed: dict[str, object] | None = None) -> Form:
        return Form(
            command=command,
            label=label,
            piece_key="seat",
            group="stunt" if command != "starfinder.move" else "move",
            rule=rule,
            fixed=dict(fixed or {}),
            pieces=(PieceChoices(piece=me, label=f"{name}'s helm", fields=fields),),
        )

    out = [
        one("starfinder.move", f"Move up to {sp} hexes", "SF-MOV-1", path, facing),
        one("starfinder.evade", f"Evade: move up to {sp} hexes, Piloting DC {spec.dc(10)}", "SF-STUNT-3", path, facing),
        one("starfinder.back_off", f"Back off up to {half} hexes", "SF-STUNT-1", distance),
        one("starfinder.flip_and_burn", f"Flip and burn: ahead up to {half}, then face aft", "SF-STUNT-4", distance),
        one(
            "starfinder.slide",
            f"Slide up to {sp} hexes",
            "SF-STUNT-6",
            Field(key="hexes", label="hexes", kind="number", min=0, max=sp, step=1, unit="hexes", default=sp),
            Field(
                key="side",
                label="toward",
                kind="choice",
                values=(Value("port", "forward-port"), Value("starboard", "forward-starboard")),
            ),
        ),
        one(
            "starfinder.turn_in_place",
            "Turn in place",
            "SF-STUNT-7",
            Field(key="facing", label="new facing", kind="choice", values=_facings(s.facing)),
        ),
    ]
    if spec.size in BARREL_ROLL_SIZES:
        out.append(one("starfinder.barrel_roll", f"Barrel roll: ahead up to {half}", "SF-STUNT-2", distance))
    enemies = tuple(
        Value(k, ship_name(state, k), piece=k)
        for k, e in state.ships.items()
        if e.side != s.side and e.status != "destroyed"
    )
    if enemies:
        out.append(
            one(
                "starfinder.flyby",
                "Flyby: move through an enemy's hex",
                "SF-STUNT-5",
                Field(key="enemy", label="enemy passed", kind="choice", values=enemies),
                path,
                facing,
            )
        )
    if push_refusal(state, ship) is not None:  # SF-DMG-5: only the plain move and turning in place are left
        out = [f for f in out if f.command in ("starfinder.move", "starfinder.turn_in_place")]
    return out


# --- gunnery ------------------------------------------------------------------------------------------------------


def shot_label(state: GameState, cmd: C.Fire) -> str:
    weapon, arc, quadrant, distance, _ = aim(state, cmd)
    kind = "AC" if weapon.kind == "direct" else "TL"
    needed = defence(state, cmd.target, kind)[0]
    mods, fail = attack_mods(state, cmd.seat, weapon, cmd.target, arc, distance)
    odds = "fails: the array is wrecked" if fail else f"hit on a d20 roll of {max(2, needed - total_of(mods))}+"
    where = f"{arc} arc, range {distance}" + (f", strike {quadrant}" if cmd.quadrant else "")
    return (
        f"Fire {weapon.label} at {ship_name(state, cmd.target)} ({where}; {kind} {needed}, {odds}; "
        f"{weapon.damage}{' twice' if weapon.linked else ''})"
    )


def _gunner(state: GameState, me: str, ship: str) -> list[Option]:
    return [
        Option(
            command=c,
            label=shot_label(state, c),
            piece=ship,
            target=c.target,
            group="fire",
            rule="SF-STUNT-5" if c.flyby else "SF-GUN-6",
        )
        for c in shots(state, me)
    ]


def _fire_forms(state: GameState, me: str, ship: str) -> list[Form]:
    s = state.ships[ship]
    ready = tuple(
        Value(w.id, f"{w.label} ({w.arc}, {w.damage})") for w in state.specs[ship].weapons if w.id not in s.fired
    )
    enemies = tuple(
        Value(k, ship_name(state, k), piece=k)
        for k, e in state.ships.items()
        if e.side != s.side and e.status != "destroyed"
    )
    if not ready or not enemies or not s.battle_stations:
        return []
    arcs = (Value(None, "as the weapon bears"), *(Value(a, f"{a} arc") for a in ARCS))
    quadrants = (Value(None, "the quadrant facing us"), *(Value(q, f"{q} quadrant") for q in ARCS))
    fields = (
        Field(key="weapon", label="weapon", kind="choice", values=ready),
        Field(key="target", label="target", kind="choice", values=enemies),
        Field(
            key="arc",
            label="arc (a turret, or a target on an arc boundary)",
            kind="choice",
            values=arcs,
            required=False,
        ),
        Field(key="quadrant", label="quadrant struck (on a boundary)", kind="choice", values=quadrants, required=False),
    )
    return [
        Form(
            command="starfinder.fire",
            label="Fire a weapon",
            piece_key="seat",
            group="fire",
            rule="SF-GUN-6",
            pieces=(PieceChoices(piece=me, label=f"{ship_name(state, ship)}'s guns", fields=fields),),
        )
    ]


ACTIONS: dict[str, Callable[[GameState, str, str], list[Option]]] = {
    "engineer": _engineer,
    "science_officer": _science,
    "captain": _captain,
    "pilot": _pilot,
    "gunner": _gunner,
}
ROLE_KIND: dict[str, type[Command]] = {
    "engineer": C.Patch,
    "science_officer": C.Scan,
    "captain": C.Encourage,
    "pilot": C.Move,
    "gunner": C.Fire,
}
