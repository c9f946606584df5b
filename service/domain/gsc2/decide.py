"""decide(state, command, actor, dice): validate, roll, and return the facts.

The core skeleton (service/domain/core/decider.py) applies the guards in one order: unknown command
(UNKNOWN-COMMAND), whose piece (GSC2-R-4; umpire-only commands GSC2-UMP-1), which phase (GSC2-SEQ-1 for the
plain steps of a phase, GSC2-SEQ-2 for a system used outside its phase), then each handler's own rule, then
the automatic steps (missile attacks once every salvo has moved, the phase's close once every side is done)."""

from __future__ import annotations

from service.domain.core import Actor, Command, Dice, RuleViolation
from service.domain.core.acc import Acc
from service.domain.core.decider import Decider, Handler, Path

from . import beams, boarding, disengage, missiles, movement, repairs
from . import commands as C
from .events import OrderSet, RulingMade, SideDone
from .evolve import evolve
from .phases import close_phase, resolve_missile_attacks, start_turn
from .state import GameState, ShipState
from .values import Order

SEAT_RULE = "GSC2-R-4"  # a seat commands only its own side's ships
UMPIRE_RULE = "GSC2-UMP-1"  # the umpire alone forces the phase on and makes rulings
PLAIN_RULE = "GSC2-SEQ-1"  # the steps of a phase belong to that phase
SYSTEM_RULE = "GSC2-SEQ-2"  # a system is used in its own phase


def _owner(state: GameState, cmd: Command) -> str | None:
    """The side whose piece the command uses (None: no such piece; the rule names what is missing)."""
    if isinstance(cmd, C.MoveMissiles):
        salvo = state.salvos.get(cmd.salvo)
        return salvo.side if salvo is not None else None
    if isinstance(cmd, C.MovePod):
        pod = state.pods.get(cmd.pod)
        return pod.side if pod is not None else None
    side = getattr(cmd, "side", None)
    if isinstance(side, str):  # orders given for a side (pass, end phase, saboteurs aboard an enemy ship…)
        return side
    ship = state.ships.get(getattr(cmd, "ship", ""))
    return ship.side if ship is not None else None


def _own_ship(state: GameState, ship_id: str, rule: str) -> ShipState:
    """The command's ship (whose it is, the skeleton asked already), in the fight."""
    ship = state.ships.get(ship_id)
    if ship is None:
        raise RuleViolation(rule, f"no ship {ship_id!r}")
    if not ship.active:
        raise RuleViolation(rule, f"{ship_id} is {ship.status}")
    return ship


def _not_done(state: GameState, side: str) -> None:
    if side in state.done:
        raise RuleViolation(PLAIN_RULE, f"{side} has already ended the {state.phase} phase")


# --- movement -----------------------------------------------------------------------------------------


def _move(acc: Acc[GameState], cmd: C.Move, actor: Actor, dice: Dice) -> None:
    state = acc.state
    ship = _own_ship(state, cmd.ship, "GSC2-MOV-3")
    _not_done(state, ship.side)
    movement.check_turn_to_move(state, ship)
    moved = movement.plan_move(state, cmd)
    acc.add(moved)
    if moved.finished:
        acc.add(OrderSet(order=movement.after_ship_moved(acc.state)))


def _disengage(acc: Acc[GameState], cmd: C.Disengage, actor: Actor, dice: Dice) -> None:
    state = acc.state
    ship = _own_ship(state, cmd.ship, disengage.RULE)
    _not_done(state, ship.side)
    movement.check_turn_to_move(state, ship)
    acc.add(disengage.disengage(state, ship, dice))
    acc.add(OrderSet(order=movement.after_ship_moved(acc.state)))


def _tractor(acc: Acc[GameState], cmd: C.FireTractor, actor: Actor, dice: Dice) -> None:
    state = acc.state
    ship = _own_ship(state, cmd.ship, "GSC2-MOV-6")
    _not_done(state, ship.side)
    ev = movement.tractor(state, cmd, dice)
    acc.add(ev)
    if ev.ended_move:
        acc.add(OrderSet(order=movement.after_ship_moved(acc.state), why=f"{ev.target}'s move ended"))


def _pass(acc: Acc[GameState], cmd: C.Pass, actor: Actor, dice: Dice) -> None:
    st = acc.state
    o = st.order
    if st.phase == "movement":
        if o.stage != "lead" or o.side != cmd.side:
            raise RuleViolation("GSC2-MOV-2", f"only the leading player ends a batch; now: {o.stage} {o.side}")
        if o.count == 0 or st.moving is not None:
            raise RuleViolation("GSC2-MOV-2", "move at least one ship (and finish it) before ending the batch")
        followers = [s for s in st.rotation(cmd.side)[1:] if s in st.in_play()] or list(st.enemies(cmd.side))
        acc.add(
            OrderSet(
                order=movement.batch_ended(st),
                why=f"{cmd.side} moved {o.count}; {' then '.join(followers)} must match",
            )
        )
        return
    _missile_step(st, cmd.side, "launch")
    acc.add(
        OrderSet(
            order=Order(stage="launch", side=o.side, leader=o.leader, passed=(*o.passed, cmd.side)),
            why=f"{cmd.side} launches nothing more",
        )
    )
    _next_missile_step(acc, st.next_side(cmd.side))


def _choose(acc: Acc[GameState], cmd: C.ChooseOrder, actor: Actor, dice: Dice) -> None:
    st = acc.state
    rule = "GSC2-MOV-2" if st.phase == "movement" else "GSC2-MSL-2"
    if st.order.stage != "choose" or st.order.side != cmd.side:
        raise RuleViolation(rule, "only the roll-off winner chooses, once")
    choices = movement.leader_choices(st)
    if cmd.leader not in choices:
        raise RuleViolation(rule, f"{cmd.leader!r} cannot be chosen: choose one of {', '.join(choices)}")
    if st.phase == "movement":  # sides with more unmoved ships catch up first (GSC2-R-21), then the leader leads
        o = movement.settle(st, Order(stage="catchup", leader=cmd.leader))
        acc.add(OrderSet(order=o, why=f"{cmd.side} makes {cmd.leader} the second player"))
    else:
        o = missiles.settle_missiles(st, Order(stage="launch", side=cmd.leader, leader=cmd.leader), cmd.leader)
        acc.add(OrderSet(order=o, why=f"{cmd.side} lets {cmd.leader} act first"))


# --- missiles -------------------------------------------------------------------------------------------


def _missile_step(state: GameState, side: str, stage: str) -> None:
    o = state.order
    if o.stage != stage or o.side != side:
        now = f"{o.stage} ({o.side})" if o.side else o.stage
        raise RuleViolation("GSC2-MSL-2", f"not {side}'s turn to {stage} missiles; now: {now}")


def _next_missile_step(acc: Acc[GameState], prefer: str) -> None:
    """Whose missile step is next (the attacks, once every salvo has moved, are the decider's ``after``)."""
    acc.add(OrderSet(order=missiles.settle_missiles(acc.state, acc.state.order, prefer)))


def _launch(acc: Acc[GameState], cmd: C.Launch, actor: Actor, dice: Dice) -> None:
    state = acc.state
    ship = _own_ship(state, cmd.ship, "GSC2-MSL-1")
    _missile_step(state, ship.side, "launch")
    acc.add(missiles.launch(state, cmd))
    _next_missile_step(acc, acc.state.next_side(ship.side))


def _move_missiles(acc: Acc[GameState], cmd: C.MoveMissiles, actor: Actor, dice: Dice) -> None:
    state = acc.state
    salvo = state.salvos.get(cmd.salvo)
    if salvo is None:
        raise RuleViolation("GSC2-MSL-3", f"no missiles {cmd.salvo!r} in flight")
    _missile_step(state, salvo.side, "move")
    if salvo.moved:
        raise RuleViolation("GSC2-MSL-3", f"{salvo.id} has already moved this turn")
    acc.add(missiles.move_salvo(state, salvo, dice))
    _next_missile_step(acc, acc.state.next_side(salvo.side))


# --- beams, boarding, repairs ---------------------------------------------------------------------------


def _fire(acc: Acc[GameState], cmd: C.Fire, actor: Actor, dice: Dice) -> None:
    state = acc.state
    ship = _own_ship(state, cmd.ship, "GSC2-BEAM-1")
    _not_done(state, ship.side)
    acc.add(beams.fire(state, cmd, dice))


def _board(acc: Acc[GameState], cmd: C.Board | C.LaunchPod, actor: Actor, dice: Dice) -> None:
    state = acc.state
    ship = _own_ship(state, cmd.ship, "GSC2-BRD-1")
    _not_done(state, ship.side)
    acc.add(boarding.declare(state, cmd) if isinstance(cmd, C.Board) else boarding.launch_pod(state, cmd))


def _move_pod(acc: Acc[GameState], cmd: C.MovePod, actor: Actor, dice: Dice) -> None:
    state = acc.state
    pod = state.pods.get(cmd.pod)
    side = pod.side if pod else (actor.seat or "")
    _not_done(state, side)
    acc.add(boarding.move_pod(state, cmd, side))


def _troops(acc: Acc[GameState], cmd: C.SendSaboteurs | C.CasualtyOrder, actor: Actor, dice: Dice) -> None:
    _not_done(acc.state, cmd.side)
    acc.add(boarding.sabotage(acc.state, cmd) if isinstance(cmd, C.SendSaboteurs) else boarding.casualty_order(cmd))


def _repair(acc: Acc[GameState], cmd: C.Repair, actor: Actor, dice: Dice) -> None:
    state = acc.state
    ship = _own_ship(state, cmd.ship, "GSC2-REP-1")
    _not_done(state, ship.side)
    acc.add(repairs.repair(state, cmd, dice))


# --- the phase and the umpire ---------------------------------------------------------------------------


def _end_phase(acc: Acc[GameState], cmd: C.EndPhase, actor: Actor, dice: Dice) -> None:
    """One side is done with the phase (the phase closes in ``after`` once every side is)."""
    st = acc.state
    if st.phase == "setup":
        raise RuleViolation(PLAIN_RULE, "the game has not started: send gsc2.start")
    if cmd.side not in st.sides:
        raise RuleViolation(PLAIN_RULE, f"unknown side {cmd.side!r}")
    _not_done(st, cmd.side)
    if st.phase == "movement" and (st.unmoved(cmd.side) or (st.moving and st.ships[st.moving].side == cmd.side)):
        raise RuleViolation("GSC2-MOV-2", f"{cmd.side} still has {st.unmoved(cmd.side)} ship(s) to move")
    if st.phase == "missiles" and st.order.stage != "done":
        raise RuleViolation("GSC2-MSL-2", f"missile steps are still pending ({st.order.stage})")
    acc.add(SideDone(side=cmd.side, phase=st.phase))


def _start(acc: Acc[GameState], cmd: C.Start, actor: Actor, dice: Dice) -> None:
    if acc.state.phase != "setup":
        raise RuleViolation(PLAIN_RULE, "the game has already started")
    start_turn(acc, dice, 1)


def _force_phase(acc: Acc[GameState], cmd: C.ForcePhase, actor: Actor, dice: Dice) -> None:
    if acc.state.phase == "setup":
        start_turn(acc, dice, 1)
    else:
        close_phase(acc, dice)


def _ruling(acc: Acc[GameState], cmd: C.MakeRuling, actor: Actor, dice: Dice) -> None:
    ship = acc.state.ships.get(cmd.ship)
    if ship is None or cmd.system not in ship.sys:
        raise RuleViolation(UMPIRE_RULE, f"no system {cmd.system!r} on ship {cmd.ship!r}")
    if not cmd.effect.strip():
        raise RuleViolation(UMPIRE_RULE, "a ruling states the system's effect")
    acc.add(RulingMade(ship=cmd.ship, system=cmd.system, effect=cmd.effect))


def _after(acc: Acc[GameState], dice: Dice) -> None:
    """The automatic steps: every salvo has moved -> the missile attacks (GSC2-MSL-6); every side still in the
    battle has ended the phase -> its close and the next phase (GSC2-SEQ-1); with three or more sides a side
    with no ship left in the fight is waited for by no phase (GSC2-R-23)."""
    st = acc.state
    if st.over or st.phase == "setup":
        return
    if st.phase == "missiles" and st.order.stage == "attack":
        resolve_missile_attacks(acc, dice)
    st = acc.state
    if not st.over and st.done and all(s in st.done for s in st.in_battle()):
        close_phase(acc, dice)


def _in(run: Handler[GameState], *phases: str, rule: str = PLAIN_RULE) -> Path[GameState]:
    return Path(run, phases=phases, phase_rule=rule)


PATHS: dict[type[Command], Path[GameState]] = {
    C.Move: _in(_move, "movement"),
    C.Disengage: _in(_disengage, "movement"),
    C.Pass: _in(_pass, "movement", "missiles"),
    C.ChooseOrder: _in(_choose, "movement", "missiles"),
    # GSC2-SEQ-2: each system is used in its own phase
    C.FireTractor: _in(_tractor, "movement", rule=SYSTEM_RULE),
    C.Launch: _in(_launch, "missiles", rule=SYSTEM_RULE),
    C.MoveMissiles: _in(_move_missiles, "missiles", rule=SYSTEM_RULE),
    C.Fire: _in(_fire, "beams", rule=SYSTEM_RULE),
    C.Board: _in(_board, "boarding", rule=SYSTEM_RULE),
    C.LaunchPod: _in(_board, "boarding", rule=SYSTEM_RULE),
    C.MovePod: _in(_move_pod, "boarding", rule=SYSTEM_RULE),
    C.SendSaboteurs: _in(_troops, "boarding", rule=SYSTEM_RULE),
    C.CasualtyOrder: _in(_troops, "boarding", rule=SYSTEM_RULE),
    C.Repair: _in(_repair, "repairs", rule=SYSTEM_RULE),
    C.EndPhase: Path(_end_phase),  # any phase once started (the handler refuses setup)
    C.Start: Path(_start),  # any seat or the umpire (GSC2-R-2)
    C.ForcePhase: Path(_force_phase, seat_rule=UMPIRE_RULE, umpire_only=True),
    C.MakeRuling: Path(_ruling, seat_rule=UMPIRE_RULE, umpire_only=True),
}

DECIDER: Decider[GameState] = Decider(
    paths=PATHS,
    evolve=evolve,
    owner=_owner,
    phase=lambda s: s.phase,
    seat_rule=SEAT_RULE,
    phase_rule=PLAIN_RULE,
    after=_after,
)
decide = DECIDER
