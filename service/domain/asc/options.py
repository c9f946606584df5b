"""What a seat may do now (docs/view-contract.md, "Options and forms"; ruling ASC-R-10).

Options are complete commands ``decide`` accepts (each checked with the rule modules' own ``check_*``
predicates): detection attempts, locks, a few ready-made moves per vessel, ending the phase. Forms are
orders composed piece by piece, never enumerated: the sealed sensor commit (sensors and screen per
vessel), a free move as a hex path, All Stop, each weapon's target, the damage control teams.
Everything is labelled from what the seat may see: own vessels and detected enemies by name, bogeys as
"Bogey N".
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from itertools import combinations_with_replacement
from typing import Any

from service.domain.core import Command, RuleViolation, Viewer
from service.domain.core.choices import Field, Form, Option, PieceChoices, Value
from service.domain.core.hexgrid import FACING_NAMES, Hex, in_arcs

from .commands import AllStop, CommitSensors, Detect, EndPhase, Fire, ForcePhase, Launch, LockOn, Move, Recover, Repair
from .condition import at_all_stop, best_active_rating, power_shutdown, sensor_working
from .damage_control import check_repair, outstanding
from .fire import check_fire, to_hit_modifiers, weapon_of, weapons
from .movement import check_all_stop, check_move, group_limits, reachable
from .names import PHASE_NAMES, name_for
from .paths import trace
from .phases import check_end
from .scenario import SIDES
from .sensors import check_detect, check_lock, detection_candidates
from .sight import observer, resolve, visible
from .smallcraft import aboard, check_launch, check_recover
from .state import FireDecl, State, vessels_of

LOCATION_NAMES = {
    "power_plant": "power plant",
    "computer": "computer",
    "drive": "drive",
    "hangar": "hangar",
    "continuing": "continuing damage",
}


def _accepts(check: Callable[..., Any], state: State, cmd: Command, viewer: Viewer) -> bool:
    try:
        check(state, cmd, viewer)
    except RuleViolation:
        return False
    return True


def _side(state: State, viewer: Viewer) -> str | None:
    side = observer(viewer)
    return side if side in SIDES and not state.over else None


def options(state: State, viewer: Viewer) -> list[Option]:
    if state.over or viewer.kind == "spectator":
        return []
    if viewer.is_umpire:
        phase = PHASE_NAMES.get(state.phase, state.phase).lower()
        return [
            Option(command=ForcePhase(), label=f"Force the {phase} phase to finish", group="umpire", rule="ASC-SEQ-1")
        ]
    side = _side(state, viewer)
    if side is None:
        return []
    out: list[Option] = []
    if state.phase == "sensors" and side not in state.commits:
        out.append(
            Option(
                command=CommitSensors(side=side),
                label="Commit: every vessel passive, screens down",
                group="sensors",
                rule="ASC-SEQ-2",
            )
        )
    if state.phase == "detection":
        out += _detections(state, side, viewer)
    if state.phase in ("detection", "fire"):
        out += _locks(state, side, viewer)
    if state.phase == f"{side}_movement":
        out += _small_craft(state, side, viewer)
        out += _moves(state, side, viewer)
    end = EndPhase(side=side)
    if state.phase != "sensors" and _accepts(check_end, state, end, viewer):
        phase = PHASE_NAMES.get(state.phase, state.phase).lower()
        out.append(Option(command=end, label=f"End the {phase} phase", group="phase", rule="ASC-SEQ-1"))
    return out


def _small_craft(state: State, side: str, viewer: Viewer) -> list[Option]:
    """ASC-CRAFT-1: launches from each carrier's hangar, and recoveries of craft in their carrier's hex."""
    out = []
    for v in vessels_of(state, side):
        spec = state.specs[v]
        for craft in aboard(state, v):
            cmd = Launch(vessel=v, craft=craft)
            if _accepts(check_launch, state, cmd, viewer):
                label = f"{spec.name}: launch {state.specs[craft].name} (ASC-CRAFT-1)"
                out.append(Option(command=cmd, label=label, piece=v, target=craft, group="launch", rule="ASC-CRAFT-1"))
        home = spec.carried_by
        if home is not None and _accepts(check_recover, state, Recover(vessel=v), viewer):
            label = f"{spec.name}: back aboard {state.specs[home].name} (ASC-R-30)"
            out.append(Option(command=Recover(vessel=v), label=label, piece=v, group="recover", rule="ASC-R-30"))
    return out


WEAPON_WORDS = {"det": "nuclear X-ray", "laser": "laser", "particle_beam": "particle beam"}  # ASC-FIRE-8


def _weapon_words(spec: Any, wid: str) -> str:
    """ "laser turret las-fwd": the weapon in words, its id kept to tell two alike apart."""
    w = weapon_of(spec, wid)
    if w is None:
        return wid
    kind = WEAPON_WORDS.get(w.weapon_type, w.weapon_type.replace("_", " "))
    return f"{kind} {'missile launcher' if w.launcher else 'turret'} {wid}"


def _hexes(n: int) -> str:
    return f"{n} hex" if n == 1 else f"{n} hexes"


def _detections(state: State, side: str, viewer: Viewer) -> list[Option]:
    out = []
    for v in vessels_of(state, side):
        spec = state.specs[v]
        for s in spec.sensors:
            skill = s.operator_skill if s.operator_skill is not None else spec.crew_quality
            for name in detection_candidates(state, side, v):
                cmd = Detect(vessel=v, sensor=s.id, target=name)
                if not _accepts(check_detect, state, cmd, viewer):
                    continue
                target = resolve(state, side, name)
                assert target is not None
                d = state.status[v].hex.distance_to(state.status[target].hex)
                # the sensor by its kind; its id only where the vessel has two of that kind
                which = f" {s.id}" if sum(o.type == s.type for o in spec.sensors) > 1 else ""
                label = (
                    f"{spec.name}: detect {name_for(state, side, target)} with its {s.type} sensor{which} "
                    f"({_hexes(d)} away; d10 {skill:+d} + its {s.type} signature, 10+)"
                )
                out.append(Option(command=cmd, label=label, piece=v, target=name, group="detect", rule="ASC-DET-3"))
    return out


def _locks(state: State, side: str, viewer: Viewer) -> list[Option]:
    out = []
    enemies = [t for t in state.specs if state.specs[t].side != side and visible(state, side, t)]
    for v in vessels_of(state, side):
        for t in enemies:
            cmd = LockOn(vessel=v, target=t)
            if _accepts(check_lock, state, cmd, viewer):
                out.append(
                    Option(
                        command=cmd,
                        label=f"{state.specs[v].name}: lock a TTA on {state.specs[t].name}",
                        piece=v,
                        target=t,
                        group="lock",
                        rule="ASC-DET-5",
                    )
                )
    return out


def contacts(state: State, side: str) -> list[tuple[str, Hex]]:
    """What a side may steer for: detected enemies by id and bogeys by token, with their hexes."""
    out = []
    for vid, spec in state.specs.items():
        if spec.side == side or state.status[vid].destroyed:
            continue
        name = resolve(state, side, vid) or state.tokens.get(side, {}).get(vid)
        if name is not None and resolve(state, side, name) == vid:
            out.append((name, state.status[vid].hex))
    return sorted(out)


def closing_path(
    state: State, vessel: str, goal: Hex, paths: dict[tuple[Hex, int], tuple[str, ...]] | None = None
) -> tuple[str, ...]:
    """The cheapest path ending nearest ``goal``, preferring to end with ``goal`` in a turret's arcs
    (``paths``: the vessel's reachable ends, when already worked out)."""
    ends = paths if paths is not None else reachable(state, vessel)
    nearest = min(h.distance_to(goal) for h, _ in ends)
    arcs = [frozenset(t.arcs) for t in state.specs[vessel].turrets]

    def score(item: tuple[tuple[Hex, int], tuple[str, ...]]) -> tuple[int, int, tuple[str, ...]]:
        (h, f), path = item
        return 0 if any(in_arcs(h, f, goal, a) for a in arcs) else 1, len(path), path

    return min(((k, p) for k, p in ends.items() if k[0].distance_to(goal) == nearest), key=score)[1]


def _moves(state: State, side: str, viewer: Viewer) -> list[Option]:
    out = []
    for v in vessels_of(state, side):
        if v in state.moved:
            continue
        name = state.specs[v].name
        seen: set[tuple[str, ...]] = set()
        ends = reachable(state, v)
        for target, where in contacts(state, side):
            path = closing_path(state, v, where, ends)
            cmd = Move(vessel=v, path=path)  # type: ignore[arg-type]  # steps are checked by decide
            if path in seen or not path or not _accepts(check_move, state, cmd, viewer):
                continue
            seen.add(path)
            end = trace(state.status[v].hex, state.status[v].facing, path)[0][-1]
            out.append(
                Option(
                    command=cmd,
                    piece=v,
                    target=target,
                    group="move",
                    rule="ASC-MOV-2",
                    label=f"{name}: close on {name_for(state, side, resolve(state, side, target))} "
                    f"(ends {_hexes(end.distance_to(where))} away)",
                )
            )
        out.append(
            Option(
                command=Move(vessel=v),
                label=f"{name}: stay in hex {state.status[v].hex.q},{state.status[v].hex.r}",
                piece=v,
                group="move",
                rule="ASC-MOV-2",
            )
        )
    return out


# -------------------------------------------------------------------------------------------- forms


def forms(state: State, viewer: Viewer) -> list[Form]:
    side = _side(state, viewer)
    if side is None or viewer.kind != "seat":
        return []
    if state.phase == "sensors":
        return [_commit_form(state, side)] if side not in state.commits else []
    if side in state.done:
        return []
    if state.phase == f"{side}_movement":
        return _move_forms(state, side, viewer)
    if state.phase == "fire":
        return _fire_forms(state, side, viewer)
    if state.phase == "damage_control":
        return _repair_forms(state, side, viewer)
    return []


def _commit_form(state: State, side: str) -> Form:
    """ASC-SEQ-2: each vessel's sensors and screen, sealed, sent once for the whole side."""
    pieces = []
    for v in vessels_of(state, side):
        spec, st = state.specs[v], state.status[v]
        fields = []
        rating = best_active_rating(spec, st)
        if (
            rating is not None
            and not power_shutdown(spec, st)
            and any(s.type == "active" and sensor_working(st, s.id) for s in spec.sensors)
        ):
            fields.append(
                Field(
                    key="active",
                    label="Sensors",
                    kind="choice",
                    default=False,
                    values=(
                        Value(False, "passive only"),
                        Value(True, f"active (rating {rating}): detected by every enemy at once (ASC-DET-2)"),
                    ),
                )
            )
        top = 0 if (st.all_stop or power_shutdown(spec, st)) else st.screen_max
        if top > 0:
            fields.append(
                Field(
                    key="screen",
                    label="Screen",
                    kind="choice",
                    default=0,
                    values=(
                        Value(0, "screens down"),
                        *(
                            Value(n, f"screen {n}: blocks a strike on a d10 of {n} or less, passive signature +{n}")
                            for n in range(1, top + 1)
                        ),
                    ),
                )
            )
        if fields:
            pieces.append(PieceChoices(piece=v, label=spec.name, fields=tuple(fields)))
    return Form(
        command="asc.commit_sensors",
        label="Commit sensors and screens (sealed)",
        pieces=tuple(pieces),
        fixed={"side": side},
        list_key="vessels",
        piece_key="vessel",
        optional_pieces=True,
        group="sensors",
        rule="ASC-SEQ-2",
    )


def _move_forms(state: State, side: str, viewer: Viewer) -> list[Form]:
    out = []
    near = contacts(state, side)
    for v in vessels_of(state, side):
        if v in state.moved:
            continue
        spec, st = state.specs[v], state.status[v]
        facings = tuple(
            Value(f, f"face {FACING_NAMES[f]}")
            for f in range(6)
            if _accepts(check_all_stop, state, AllStop(vessel=v, facing=f), viewer)
        )
        if facings:
            out.append(
                Form(
                    command="asc.all_stop",
                    label=f"All Stop: {spec.name}",
                    piece_key="vessel",
                    group="move",
                    rule="ASC-MOV-4",
                    pieces=(
                        PieceChoices(
                            piece=v,
                            label=spec.name,
                            fields=(
                                Field(
                                    key="facing",
                                    label="Facing",
                                    kind="choice",
                                    values=facings,
                                    default=st.facing if st.facing in [x.value for x in facings] else None,
                                ),
                            ),
                        ),
                    ),
                )
            )
        ma, turn_cost = group_limits(state, [v])
        if not _accepts(check_move, state, Move(vessel=v, path=("F",)), viewer) and not _accepts(
            check_move, state, Move(vessel=v, path=("R",)), viewer
        ):
            continue
        default: list[list[int]] = []
        if near:
            goal = min(near, key=lambda c: (st.hex.distance_to(c[1]), c[0]))[1]
            default = [[h.q, h.r] for h in trace(st.hex, st.facing, closing_path(state, v, goal))[0][1:]]
        path = Field(
            key="hexes",
            label="Path",
            kind="hexpath",
            default=default,
            limits={
                "start": [st.hex.q, st.hex.r],
                "facing": st.facing,
                "max_cost": ma,
                "turn_cost": float(turn_cost),
                "turn_cost_fraction": str(Fraction(turn_cost)),
                "map_radius": state.map_radius,
                "straight_only": st.bridge_out,
            },
        )
        facing = Field(
            key="facing",
            label="Final facing",
            kind="choice",
            required=False,
            values=(
                Value(None, "as the path leaves it"),
                *(Value(f, f"turn to face {FACING_NAMES[f]}") for f in range(6)),
            ),
        )
        out.append(
            Form(
                command="asc.move",
                label=f"Move {spec.name} (MA {ma})",
                piece_key="vessel",
                group="move",
                rule="ASC-MOV-2",
                pieces=(PieceChoices(piece=v, label=spec.name, fields=(path, facing)),),
            )
        )
    return out


def hit_chance(state: State, decl: FireDecl) -> tuple[int | None, float]:
    """(the d10 needed, the chance to hit) for a declared shot; (None, 1.0) for a direct strike."""
    tspec, tst = state.specs[decl.target], state.status[decl.target]
    if at_all_stop(tspec, tst) and not decl.point_defence:
        return None, 1.0
    w = weapon_of(state.specs[decl.vessel], decl.weapon)
    assert w is not None
    need = 7 - sum(m.value for m in to_hit_modifiers(state, decl, w))
    return need, min(10, max(0, 11 - need)) / 10


def _fire_forms(state: State, side: str, viewer: Viewer) -> list[Form]:
    out = []
    enemies = [
        t
        for t in state.specs
        if state.specs[t].side != side and visible(state, side, t) and not state.status[t].destroyed
    ]
    for v in vessels_of(state, side):
        spec = state.specs[v]
        for wid in weapons(spec):
            for pd in (False, True):
                values = []
                for t in enemies:
                    cmd = Fire(vessel=v, weapon=wid, target=t, point_defence=pd)
                    if not _accepts(check_fire, state, cmd, viewer):
                        continue
                    need, p = hit_chance(state, FireDecl(side=side, vessel=v, weapon=wid, target=t, point_defence=pd))
                    odds = "direct strike (automatic, 10x damage)" if need is None else f"hit on {need}+ ({p:.0%})"
                    values.append(Value(t, f"{state.specs[t].name}: {odds}", piece=t))
                if not values:
                    continue
                fixed: dict[str, Any] = {"weapon": wid, **({"point_defence": True} if pd else {})}
                what = "point defence" if pd else "fire"
                label = f"{spec.name}: {what} with the {_weapon_words(spec, wid)}"
                out.append(
                    Form(
                        command="asc.fire",
                        label=label,
                        piece_key="vessel",
                        group="fire",
                        rule="ASC-FIRE-10" if pd else "ASC-FIRE-1",
                        pieces=(
                            PieceChoices(
                                piece=v,
                                label=spec.name,
                                fixed=fixed,
                                fields=(Field(key="target", label="Target", kind="choice", values=tuple(values)),),
                            ),
                        ),
                    )
                )
    return out


def _repair_forms(state: State, side: str, viewer: Viewer) -> list[Form]:
    out = []
    for v in vessels_of(state, side):
        spec, st = state.specs[v], state.status[v]
        locs = outstanding(spec, st)
        if not locs or st.dc_teams <= 0:
            continue
        values = []
        for combo in combinations_with_replacement(locs, st.dc_teams):
            if _accepts(check_repair, state, Repair(vessel=v, locations=combo), viewer):
                words = ", ".join(f"{combo.count(loc)} on {_loc(loc)}" for loc in dict.fromkeys(combo))
                values.append(Value(list(combo), words))
        if values:
            out.append(
                Form(
                    command="asc.repair",
                    label=f"Damage control: {spec.name}",
                    piece_key="vessel",
                    group="repair",
                    rule="ASC-DC-1",
                    pieces=(
                        PieceChoices(
                            piece=v,
                            label=spec.name,
                            fields=(Field(key="locations", label="Teams", kind="choice", values=tuple(values)),),
                        ),
                    ),
                )
            )
    return out


def _loc(loc: str) -> str:
    base, _, part = loc.partition(":")
    return f"missile bay {part}" if base == "missile_bay" else LOCATION_NAMES.get(base, base)
