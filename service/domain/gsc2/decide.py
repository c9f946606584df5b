"""decide(state, command, actor, dice): validate, roll, and return the facts."""

from __future__ import annotations

from service.domain.core import Actor, Command, Dice, Event, NotYourPiece, RuleViolation
from service.domain.core.acc import Acc

from . import beams, boarding, disengage, missiles, movement, repairs
from . import commands as C
from .events import OrderSet, RulingMade, SideDone
from .evolve import evolve
from .phases import close_phase, resolve_missile_attacks, start_turn
from .state import GameState, Order, ShipState

SEAT_RULE = "GSC2-R-4"  # a seat commands only its own side's ships
# GSC2-SEQ-2: the phase in which each system-using command is legal, and the system it uses
SYSTEM_PHASE = {
    C.FireTractor: ("movement", "tractor beams"),
    C.Launch: ("missiles", "missile batteries"),
    C.MoveMissiles: ("missiles", "missiles in flight"),
    C.Fire: ("beams", "beam batteries"),
    C.Board: ("boarding", "transporters and boarding parties"),
    C.LaunchPod: ("boarding", "assault pods"),
    C.MovePod: ("boarding", "assault pods"),
    C.SendSaboteurs: ("boarding", "boarding troops"),
    C.CasualtyOrder: ("boarding", "boarding troops"),
    C.Repair: ("repairs", "repair systems"),
}
PLAIN_PHASE = {
    C.Move: ("movement",),
    C.Disengage: ("movement",),
    C.Pass: ("movement", "missiles"),
    C.ChooseOrder: ("movement", "missiles"),
}


def _act_for(actor: Actor, side: str) -> None:
    if actor.is_umpire:
        return
    if actor.kind != "seat" or actor.seat != side:
        raise NotYourPiece(SEAT_RULE, f"{actor.label} cannot act for {side}")


def _own_ship(state: GameState, actor: Actor, ship_id: str, rule: str) -> ShipState:
    ship = state.ships.get(ship_id)
    if ship is None:
        raise RuleViolation(rule, f"no ship {ship_id!r}")
    _act_for(actor, ship.side)
    if not ship.active:
        raise RuleViolation(rule, f"{ship_id} is {ship.status}")
    return ship


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


def _not_done(state: GameState, side: str) -> None:
    if side in state.done:
        raise RuleViolation("GSC2-SEQ-1", f"{side} has already ended the {state.phase} phase")


def decide(state: GameState, cmd: Command, actor: Actor, dice: Dice) -> list[Event]:
    """The ruleset's own guards (whose piece, which phase), then the rule; core.guards ran before it
    (game over, no seat)."""
    acc: Acc[GameState] = Acc(state, evolve)
    if isinstance(cmd, C.ForcePhase | C.MakeRuling | C.Start):
        _admin(acc, cmd, actor, dice)
        return acc.events
    owner = _owner(state, cmd)
    if owner is not None:  # whose piece first, then which phase (docs/view-contract.md)
        _act_for(actor, owner)
    if state.phase == "setup":
        raise RuleViolation("GSC2-SEQ-1", "the game has not started: send gsc2.start")
    kind = type(cmd)
    if kind in SYSTEM_PHASE and state.phase != SYSTEM_PHASE[kind][0]:
        phase, system = SYSTEM_PHASE[kind]
        raise RuleViolation("GSC2-SEQ-2", f"{system} are used in the {phase} phase, not {state.phase}")
    if kind in PLAIN_PHASE and state.phase not in PLAIN_PHASE[kind]:
        raise RuleViolation("GSC2-SEQ-1", f"{cmd.__struct_config__.tag} is not part of the {state.phase} phase")
    if isinstance(cmd, C.Move):
        ship = _own_ship(state, actor, cmd.ship, "GSC2-MOV-3")
        _not_done(state, ship.side)
        movement.check_turn_to_move(state, ship)
        moved = movement.plan_move(state, cmd)
        acc.add(moved)
        if moved.finished:
            acc.add(OrderSet(order=movement.after_ship_moved(acc.state)))
    elif isinstance(cmd, C.Disengage):
        ship = _own_ship(state, actor, cmd.ship, disengage.RULE)
        _not_done(state, ship.side)
        movement.check_turn_to_move(state, ship)
        acc.add(disengage.disengage(state, ship, dice))
        acc.add(OrderSet(order=movement.after_ship_moved(acc.state)))
    elif isinstance(cmd, C.FireTractor):
        ship = _own_ship(state, actor, cmd.ship, "GSC2-MOV-6")
        _not_done(state, ship.side)
        ev = movement.tractor(state, cmd, dice)
        acc.add(ev)
        if ev.ended_move:
            acc.add(OrderSet(order=movement.after_ship_moved(acc.state), why=f"{ev.target}'s move ended"))
    elif isinstance(cmd, C.Pass):
        _act_for(actor, cmd.side)
        _pass(acc, cmd, dice)
    elif isinstance(cmd, C.ChooseOrder):
        _act_for(actor, cmd.side)
        _choose(acc, cmd)
    elif isinstance(cmd, C.Launch):
        ship = _own_ship(state, actor, cmd.ship, "GSC2-MSL-1")
        _missile_step(state, ship.side, "launch")
        acc.add(missiles.launch(state, cmd))
        _next_missile_step(acc, dice, acc.state.enemy(ship.side))
    elif isinstance(cmd, C.MoveMissiles):
        salvo = state.salvos.get(cmd.salvo)
        if salvo is None:
            raise RuleViolation("GSC2-MSL-3", f"no missiles {cmd.salvo!r} in flight")
        _act_for(actor, salvo.side)
        _missile_step(state, salvo.side, "move")
        if salvo.moved:
            raise RuleViolation("GSC2-MSL-3", f"{salvo.id} has already moved this turn")
        acc.add(missiles.move_salvo(state, salvo, dice))
        _next_missile_step(acc, dice, acc.state.enemy(salvo.side))
    elif isinstance(cmd, C.Fire):
        ship = _own_ship(state, actor, cmd.ship, "GSC2-BEAM-1")
        _not_done(state, ship.side)
        acc.add(beams.fire(state, cmd, dice))
    elif isinstance(cmd, C.Board | C.LaunchPod):
        ship = _own_ship(state, actor, cmd.ship, "GSC2-BRD-1")
        _not_done(state, ship.side)
        acc.add(boarding.declare(state, cmd) if isinstance(cmd, C.Board) else boarding.launch_pod(state, cmd))
    elif isinstance(cmd, C.MovePod):
        pod = state.pods.get(cmd.pod)
        side = pod.side if pod else (actor.seat or "")
        _act_for(actor, side)
        _not_done(state, side)
        acc.add(boarding.move_pod(state, cmd, side))
    elif isinstance(cmd, C.SendSaboteurs | C.CasualtyOrder):
        _act_for(actor, cmd.side)
        _not_done(state, cmd.side)
        acc.add(boarding.sabotage(state, cmd) if isinstance(cmd, C.SendSaboteurs) else boarding.casualty_order(cmd))
    elif isinstance(cmd, C.Repair):
        ship = _own_ship(state, actor, cmd.ship, "GSC2-REP-1")
        _not_done(state, ship.side)
        acc.add(repairs.repair(state, cmd, dice))
    elif isinstance(cmd, C.EndPhase):
        _end_phase(acc, cmd, actor, dice)
    else:
        raise RuleViolation("GSC2-SEQ-1", f"unknown command {type(cmd).__name__}")
    return acc.events


def _admin(acc: Acc[GameState], cmd: Command, actor: Actor, dice: Dice) -> None:
    st = acc.state
    if isinstance(cmd, C.Start):
        if st.phase != "setup":
            raise RuleViolation("GSC2-SEQ-1", "the game has already started")
        start_turn(acc, dice, 1)
        return
    if not actor.is_umpire:
        raise NotYourPiece("GSC2-UMP-1", "only the umpire may force the phase on or make rulings")
    if isinstance(cmd, C.ForcePhase):
        if st.phase == "setup":
            start_turn(acc, dice, 1)
        else:
            close_phase(acc, dice)
        return
    assert isinstance(cmd, C.MakeRuling)
    ship = st.ships.get(cmd.ship)
    if ship is None or cmd.system not in ship.sys:
        raise RuleViolation("GSC2-UMP-1", f"no system {cmd.system!r} on ship {cmd.ship!r}")
    if not cmd.effect.strip():
        raise RuleViolation("GSC2-UMP-1", "a ruling states the system's effect")
    acc.add(RulingMade(ship=cmd.ship, system=cmd.system, effect=cmd.effect))


def _pass(acc: Acc[GameState], cmd: C.Pass, dice: Dice) -> None:
    st = acc.state
    o = st.order
    if st.phase == "movement":
        if o.stage != "lead" or o.side != cmd.side:
            raise RuleViolation("GSC2-MOV-2", f"only the leading player ends a batch; now: {o.stage} {o.side}")
        if o.count == 0 or st.moving is not None:
            raise RuleViolation("GSC2-MOV-2", "move at least one ship (and finish it) before ending the batch")
        follow = st.enemy(cmd.side)
        owed = min(o.count, st.unmoved(follow))
        acc.add(
            OrderSet(
                order=movement.settle(st, Order(stage="follow", side=follow, owed=owed, leader=o.leader)),
                why=f"{cmd.side} moved {o.count}; {follow} must match",
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
    _next_missile_step(acc, dice, st.enemy(cmd.side))


def _choose(acc: Acc[GameState], cmd: C.ChooseOrder) -> None:
    st = acc.state
    rule = "GSC2-MOV-2" if st.phase == "movement" else "GSC2-MSL-2"
    if st.order.stage != "choose" or st.order.side != cmd.side:
        raise RuleViolation(rule, "only the roll-off winner chooses, once")
    if cmd.leader not in st.sides:
        raise RuleViolation(rule, f"unknown side {cmd.leader!r}")
    if st.phase == "movement":
        o = movement.settle(st, Order(stage="lead", side=cmd.leader, leader=cmd.leader))
        acc.add(OrderSet(order=o, why=f"{cmd.side} makes {cmd.leader} the second player"))
    else:
        o = missiles.settle_missiles(st, Order(stage="launch", side=cmd.leader, leader=cmd.leader), cmd.leader)
        acc.add(OrderSet(order=o, why=f"{cmd.side} lets {cmd.leader} act first"))


def _missile_step(state: GameState, side: str, stage: str) -> None:
    o = state.order
    if o.stage != stage or o.side != side:
        now = f"{o.stage} ({o.side})" if o.side else o.stage
        raise RuleViolation("GSC2-MSL-2", f"not {side}'s turn to {stage} missiles; now: {now}")


def _next_missile_step(acc: Acc[GameState], dice: Dice, prefer: str) -> None:
    acc.add(OrderSet(order=missiles.settle_missiles(acc.state, acc.state.order, prefer)))
    if acc.state.order.stage == "attack":
        resolve_missile_attacks(acc, dice)


def _end_phase(acc: Acc[GameState], cmd: C.EndPhase, actor: Actor, dice: Dice) -> None:
    st = acc.state
    _act_for(actor, cmd.side)
    if cmd.side not in st.sides:
        raise RuleViolation("GSC2-SEQ-1", f"unknown side {cmd.side!r}")
    _not_done(st, cmd.side)
    if st.phase == "movement" and (st.unmoved(cmd.side) or (st.moving and st.ships[st.moving].side == cmd.side)):
        raise RuleViolation("GSC2-MOV-2", f"{cmd.side} still has {st.unmoved(cmd.side)} ship(s) to move")
    if st.phase == "missiles" and st.order.stage != "done":
        raise RuleViolation("GSC2-MSL-2", f"missile steps are still pending ({st.order.stage})")
    acc.add(SideDone(side=cmd.side, phase=st.phase))
    if all(s in acc.state.done for s in st.sides):
        close_phase(acc, dice)
