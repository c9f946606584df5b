"""options(state, viewer): complete commands decide() would accept now, labelled in words; forms(): free moves.

Built from the rule modules' own predicates (fire_problem, launch_problem, allowance…), never from
decide's private helpers. A free move is a form (a ``legs`` field with the move limits), so a page can
build any legal leg sequence with a ruler; a few canned moves stay as options for one-tap play.
"""

from __future__ import annotations

from collections.abc import Callable

from service.domain.core import Viewer
from service.domain.core.choices import Field, Form, Option, PieceChoices
from service.domain.core.plane import EPSILON

from . import commands as C
from . import disengage
from .beams import beam_to_hit, fire_problem
from .boarding import POD_MOVE, TELEPORT_RANGE, squads
from .combat import inches
from .missiles import MISSILE_MOVE, launch_problem, unmoved_salvos
from .movement import allowance, example_legs, leader_choices, move_limits, plan_move, tractor_shots
from .state import GameState, Pod, ShipState
from .status import PHASE_NAMES
from .values import Troops
from .view import screen


def _name(state: GameState, ship_id: str) -> str:
    spec = state.specs.get(ship_id)
    return spec.name if spec is not None else ship_id


def options(state: GameState, viewer: Viewer) -> list[Option]:
    if state.over or viewer.kind == "spectator":
        return []
    if state.phase == "setup":
        return [Option(command=C.Start(), label="Start the game: turn 1 begins", group="phase", rule="GSC2-R-2")]
    if viewer.is_umpire:
        return [
            Option(
                command=C.ForcePhase(),
                label=f"Force the {state.phase} phase on (what is pending resolves with defaults)",
                group="umpire",
                rule="GSC2-SEQ-1",
            )
        ]
    side = viewer.seat or ""
    if side not in state.in_battle() or side in state.done:  # GSC2-R-23: a side out of the battle does nothing
        return []
    phase = state.phase
    of_phase = _BY_PHASE.get(phase)
    out: list[Option] = [] if of_phase is None else of_phase(state, side)
    if _may_end(state, side):
        out.append(
            Option(
                command=C.EndPhase(side=side),
                label=f"End the {PHASE_NAMES[phase].lower()} phase",
                group="phase",
                rule="GSC2-SEQ-1",
            )
        )
    return out


def _repairs(state: GameState, side: str) -> list[Option]:
    """GSC2-REP-1: each repairable system of a ship with repair attempts left."""
    return [
        Option(
            command=C.Repair(ship=s.id, system=name),
            label=f"{_name(state, s.id)}: repair {name} (succeeds on ≤ 4)",
            piece=s.id,
            group="repair",
            rule="GSC2-REP-1",
        )
        for s in state.active(side)
        if s.repairs_used < s.level("repair")
        for name, sys in s.sys.items()
        if sys.repairable
    ]


def _may_end(state: GameState, side: str) -> bool:
    if state.phase == "movement":
        return state.unmoved(side) == 0
    if state.phase == "missiles":
        return state.order.stage == "done"
    return True


def movers(state: GameState, side: str) -> list[ShipState]:
    """The ships of ``side`` that may start or go on moving now (GSC2-MOV-2)."""
    if state.phase != "movement" or side in state.done:
        return []
    if state.moving is not None:
        mover = state.ships[state.moving]
        return [mover] if mover.side == side else []
    o = state.order
    if o.side != side or o.stage not in ("catchup", "lead", "follow"):
        return []
    return [s for s in state.active(side) if s.move_state == "unmoved"]


def _legs_words(legs: tuple[C.Leg, ...]) -> str:
    if not legs or all(leg.turn == 0 and leg.distance == 0 for leg in legs):
        return "stay put"
    bits = []
    for leg in legs:
        if leg.turn:
            bits.append(f"turn 45° {'left' if leg.turn < 0 else 'right'}")
        if leg.distance:
            bits.append(f"{inches(leg.distance)} ahead")
    return ", ".join(bits)


def _move_option(state: GameState, ship: ShipState, legs: tuple[C.Leg, ...], done: bool = True) -> Option:
    cmd = C.Move(ship=ship.id, legs=legs, done=done)
    label = f"{_name(state, ship.id)}: {_legs_words(legs)}"
    if not done:
        label += " and pause (to use a tractor beam)"
    if plan_move(state, cmd).left_table:
        label += " — leaves the table"
    return Option(command=cmd, label=label, piece=ship.id, group="move", rule="GSC2-MOV-3")


def _movement(state: GameState, side: str) -> list[Option]:
    o = state.order
    out: list[Option] = []
    if o.stage == "choose" and o.side == side:
        return [
            Option(
                command=C.ChooseOrder(side=side, leader=s),
                label=f"{s} is second player" + (" (you)" if s == side else ""),
                group="phase",
                rule="GSC2-MOV-2",
            )
            for s in leader_choices(state)
        ]
    if state.moving is not None:
        out += _tractors(state, side)
    for ship in movers(state, side):
        out += [_move_option(state, ship, legs) for legs in example_legs(state, ship)]
        if state.open_table and state.moving is None and disengage.refusal(state, ship) is None:
            out.append(
                Option(
                    command=C.Disengage(ship=ship.id),
                    label=f"{_name(state, ship.id)}: disengage (leaves the battle if it outruns the pursuit)",
                    piece=ship.id,
                    group="move",
                    rule=disengage.RULE,
                )
            )
        has_tractor = any(sp.kind == "tractor_beam" and ship.sys[sp.id].working for sp in state.specs[ship.id].systems)
        if state.moving is None and has_tractor and allowance(ship) >= 2:  # stop half way to use the tractor
            out.append(_move_option(state, ship, (C.Leg(distance=allowance(ship) / 2),), done=False))
    if state.moving is None and o.stage == "lead" and o.side == side and o.count > 0:
        out.append(
            Option(
                command=C.Pass(side=side),
                label=f"End this batch ({o.count} ship(s) moved): {_followers(state, side)} must match it",
                group="phase",
                rule="GSC2-MOV-2",
            )
        )
    return out


def _followers(state: GameState, side: str) -> str:
    """Who answers the leader's batch, in turn round the table (GSC2-MOV-2, GSC2-R-21)."""
    playing = state.in_play()
    return " then ".join([s for s in state.rotation(side)[1:] if s in playing] or state.enemies(side))


def _tractors(state: GameState, side: str) -> list[Option]:
    """Tractor beams interrupt a move in progress: the mover's own, or one aimed at the mover (GSC2-MOV-6)."""
    return [
        Option(
            command=C.FireTractor(ship=t.ship, system=t.system, target=t.target),
            label=f"{_name(state, t.ship)}: tractor beam {t.system} at {_name(state, t.target)} (hits on ≤ {t.need})",
            piece=t.ship,
            target=t.target,
            group="fire",
            rule="GSC2-MOV-6",
        )
        for t in tractor_shots(state, side)
    ]


def _missiles(state: GameState, side: str) -> list[Option]:
    o = state.order
    if o.side != side:
        return []
    if o.stage == "choose":
        return [
            Option(
                command=C.ChooseOrder(side=side, leader=s),
                label=f"{s} launches first" + (" (you)" if s == side else ""),
                group="phase",
                rule="GSC2-MSL-2",
            )
            for s in leader_choices(state)
        ]
    if o.stage == "launch":
        out: list[Option] = []
        for s in state.active(side):
            for b in state.specs[s.id].missiles:
                if launch_problem(state, s.id, b.id) is not None:
                    continue
                count = min(b.missiles, s.missiles_left.get(b.id, 0))
                for t in state.enemy_ships(side):
                    out.append(
                        Option(
                            command=C.Launch(ship=s.id, battery=b.id, target=t.id),
                            label=f"{_name(state, s.id)}: launch {count} missile(s) from {b.name or b.id} "
                            f"at {_name(state, t.id)} ({inches(round(s.pos.distance_to(t.pos), 1))} away)",
                            piece=s.id,
                            target=t.id,
                            group="fire",
                            rule="GSC2-MSL-1",
                        )
                    )
        out.append(
            Option(command=C.Pass(side=side), label="Launch nothing more this turn", group="phase", rule="GSC2-MSL-2")
        )
        return out
    if o.stage == "move":
        out = []
        for m in unmoved_salvos(state, side):
            target = state.ships[m.target]
            d = m.pos.distance_to(target.pos)
            fate = "reaches it and attacks" if d <= MISSILE_MOVE + EPSILON else "stays in flight"
            out.append(
                Option(
                    command=C.MoveMissiles(salvo=m.id),
                    label=f"Move salvo {m.id} ({m.count} missile(s)) "
                    f"{inches(MISSILE_MOVE)} toward {_name(state, m.target)}, "
                    f"{inches(round(d, 1))} away: {fate}",
                    piece=m.id,
                    target=m.target,
                    group="move",
                    rule="GSC2-MSL-3",
                )
            )
        return out
    return []


def _beams(state: GameState, side: str) -> list[Option]:
    out = []
    for s in state.active(side):
        for b in state.specs[s.id].beams:
            for t in state.enemy_ships(side):
                if fire_problem(state, s.id, b.id, t.id) is not None:
                    continue
                d = round(s.pos.distance_to(t.pos), 1)
                need = beam_to_hit(state, s.id, b.id, t.id)
                odds = "cannot hit" if need <= 0 else "always hits" if need >= 10 else f"hits on ≤ {need}"
                out.append(
                    Option(
                        command=C.Fire(ship=s.id, battery=b.id, target=t.id),
                        label=f"{_name(state, s.id)}: {b.name or b.id} ({b.weapons}×{b.damage}) at "
                        f"{_name(state, t.id)}, {inches(d)} ({odds})",
                        piece=s.id,
                        target=t.id,
                        group="fire",
                        rule="GSC2-BEAM-3",
                    )
                )
    return out


def _boarding(state: GameState, side: str) -> list[Option]:
    out: list[Option] = []
    enemies = state.enemy_ships(side)
    for s in state.active(side):
        out += _boarding_from(state, s, enemies)
    for pod in state.pods.values():
        if pod.side == side and pod.ram is None:
            out += _pod_moves(state, pod, enemies)
    for ship in enemies:
        aboard = ship.boarders.get(side)
        if aboard is not None:
            out += _sabotage(state, side, ship, aboard)
    return out


def _boarding_from(state: GameState, s: ShipState, enemies: list[ShipState]) -> list[Option]:
    """GSC2-BRD-2/3/4: a ship's boarding actions: by contact, by transporter, by assault pod."""
    out: list[Option] = []
    t = squads(s)
    name = _name(state, s.id)
    for target in enemies:
        tn = _name(state, target.id)
        if target.id in s.contacts and t.assault + t.heavy:
            out.append(
                Option(
                    command=C.Board(ship=s.id, target=target.id, method="contact", assault=t.assault, heavy=t.heavy),
                    label=f"{name}: board {tn} by direct contact with {t.assault} assault and {t.heavy} heavy squad(s)",
                    piece=s.id,
                    target=target.id,
                    group="board",
                    rule="GSC2-BRD-2",
                )
            )
        free = s.level("transporters") - s.transporters_used
        if free > 0 and s.pos.distance_to(target.pos) <= TELEPORT_RANGE + EPSILON:
            out += [
                Option(
                    command=C.Board(ship=s.id, target=target.id, method="teleport", **{unit: 1}),
                    label=f"{name}: teleport one {unit} squad onto {tn}",
                    piece=s.id,
                    target=target.id,
                    group="board",
                    rule="GSC2-BRD-4",
                )
                for unit in ("assault", "heavy")
                if getattr(t, unit)
            ]
    if s.pods > 0:
        out += [
            Option(
                command=C.LaunchPod(ship=s.id, squad=u),
                label=f"{name}: launch an assault pod with a {u} squad",
                piece=s.id,
                group="board",
                rule="GSC2-BRD-3",
            )
            for u in ("assault", "heavy")
            if getattr(t, u) > 0
        ]
    return out


def _pod_moves(state: GameState, pod: Pod, enemies: list[ShipState]) -> list[Option]:
    """GSC2-BRD-3: a pod in flight rams an enemy within its move left, or flies toward one."""
    out: list[Option] = []
    left = POD_MOVE - pod.moved
    for target in enemies:
        tn = _name(state, target.id)
        d = pod.pos.distance_to(target.pos)
        if d <= left + EPSILON:
            out.append(
                Option(
                    command=C.MovePod(pod=pod.id, ram=target.id),
                    label=f"Pod {pod.id}: ram {tn}",
                    piece=pod.id,
                    target=target.id,
                    group="board",
                    rule="GSC2-BRD-3",
                )
            )
        elif left > EPSILON:
            to = pod.pos.toward(target.pos, left)
            out.append(
                Option(
                    command=C.MovePod(pod=pod.id, x=to.x, y=to.y),
                    label=f"Pod {pod.id}: fly {inches(left)} toward {tn}",
                    piece=pod.id,
                    target=target.id,
                    group="board",
                    rule="GSC2-BRD-3",
                )
            )
    return out


def _sabotage(state: GameState, side: str, ship: ShipState, aboard: Troops) -> list[Option]:
    """GSC2-BRD-5: each squad of the side aboard an enemy ship not yet sent may sabotage one of its systems."""
    out: list[Option] = []
    for unit in ("assault", "heavy"):
        sent = sum(1 for x in state.sabotage if x.ship == ship.id and x.side == side and x.unit == unit)
        if getattr(aboard, unit) > sent:
            out += [
                Option(
                    command=C.SendSaboteurs(ship=ship.id, side=side, unit=unit, system=name),
                    label=f"Your {unit} squad aboard {_name(state, ship.id)}: sabotage {name}",
                    target=ship.id,
                    group="board",
                    rule="GSC2-BRD-5",
                )
                for name, sys in ship.sys.items()
                if not sys.destroyed
            ]
    return out


# each phase's own options (a phase not listed has none but its end)
_BY_PHASE: dict[str, Callable[[GameState, str], list[Option]]] = {
    "movement": _movement,
    "missiles": _missiles,
    "beams": _beams,
    "boarding": _boarding,
    "repairs": _repairs,
}


def forms(state: GameState, viewer: Viewer) -> list[Form]:
    """A free move for each ship that may move now: a ``legs`` field whose limits come from the move rules."""
    if state.over or viewer.kind != "seat" or viewer.seat not in state.sides:
        return []
    out = []
    for ship in movers(state, viewer.seat or ""):
        name = _name(state, ship.id)
        start = screen(ship.pos, state)
        limits = {
            **move_limits(state, ship),
            "start": {"x": start.x, "y": start.y},
            "coordinates": "drawing: x right, y down from the table's top-left corner; headings clockwise from up",
        }
        legs = Field(
            key="legs",
            label=f"{name}'s legs: each turns (−45 left, 0, 45 right) then goes ahead",
            kind="legs",
            unit="inches",
            limits=limits,
        )
        out.append(
            Form(
                command="gsc2.move",
                label=f"Move {name} (up to {inches(limits['max_distance_left'])})",
                pieces=(PieceChoices(piece=ship.id, label=name, fields=(legs,)),),
                piece_key="ship",
                group="move",
                rule="GSC2-MOV-3",
            )
        )
    return out
