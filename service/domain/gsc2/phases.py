"""Phase flow: start-of-phase automation, end-of-phase resolution, forcing (GSC2-SEQ-1)."""

from __future__ import annotations

from service.domain.core import Dice
from service.domain.core.acc import Acc

from . import boarding, missiles
from .damage import resolve_pending
from .events import OrderSet, PhaseStarted, ShipMoved, TerrainDrifted, TurnStarted
from .movement import contenders, roll_off, start_order
from .repairs import victory
from .state import PHASES, GameState
from .values import Order

NEXT = dict(zip(PHASES, (*PHASES[1:], "movement"), strict=True))


def start_turn(acc: Acc[GameState], dice: Dice, turn: int) -> None:
    st = acc.state
    # GSC2-DMG-2: the pool is the shield level now (levels lost last turn shrink it)
    pools = {k: s.level("shields") for k, s in st.ships.items() if s.active}
    acc.add(TurnStarted(turn=turn, shield_pools=pools), PhaseStarted(turn=turn, phase="movement"))
    drift = {
        k: t.pos.__class__(round(t.pos.x + t.spec.dx, 9), round(t.pos.y + t.spec.dy, 9))
        for k, t in acc.state.terrain.items()
        if t.spec.dx or t.spec.dy
    }
    if drift:  # GSC2-MOV-1: terrain objects move before any ship
        acc.add(TerrainDrifted(positions=drift))
    acc.add(*start_order(acc.state, dice))


def start_phase(acc: Acc[GameState], dice: Dice, phase: str) -> None:
    st = acc.state
    if phase == "movement":
        start_turn(acc, dice, st.turn + 1)
        return
    acc.add(PhaseStarted(turn=st.turn, phase=phase))
    if phase == "missiles":
        acc.add(*missiles.orphaned(acc.state))
        alone = contenders(acc.state)
        if missiles.missile_work(acc.state) and len(alone) == 1:  # GSC2-R-22: no one to roll against
            o = missiles.settle_missiles(acc.state, Order(stage="launch", side=alone[0], leader=alone[0]), alone[0])
            acc.add(OrderSet(order=o, why=f"{alone[0]} alone is left in the fight"))
            if acc.state.order.stage == "attack":
                resolve_missile_attacks(acc, dice)
        elif missiles.missile_work(acc.state):
            winner, ev = roll_off(acc.state, dice, "missile initiative", "GSC2-MSL-2")
            acc.add(ev, OrderSet(order=Order(stage="choose", side=winner), why=f"{winner} won the initiative"))
        else:
            acc.add(OrderSet(order=Order(stage="done"), why="no missile to launch or move"))


def resolve_missile_attacks(acc: Acc[GameState], dice: Dice) -> None:
    """GSC2-MSL-6: every arrived missile rolls, then all damage is applied together."""
    for salvo in sorted(acc.state.salvos.values(), key=lambda s: int(s.id[1:])):
        if salvo.arrived:
            acc.add(missiles.attack(acc.state, salvo, dice))
    acc.add(*resolve_pending(acc.state, dice))
    acc.add(OrderSet(order=Order(stage="done", leader=acc.state.order.leader), why="missile attacks resolved"))


def finish_missiles(acc: Acc[GameState], dice: Dice) -> None:
    """Forced: no more launches; every salvo still to move moves in alternation; attacks resolve."""
    o = acc.state.order
    if o.stage == "done":
        return
    leader = o.leader or (o.side if o.stage == "choose" else None) or acc.state.sides[0]
    o = missiles.settle_missiles(acc.state, Order(stage="move", side=leader, leader=leader), leader)
    acc.add(OrderSet(order=o, why="umpire forced the phase on"))
    while acc.state.order.stage == "move":
        side = acc.state.order.side or leader
        salvo = missiles.unmoved_salvos(acc.state, side)[0]
        acc.add(missiles.move_salvo(acc.state, salvo, dice))
        acc.add(OrderSet(order=missiles.settle_missiles(acc.state, acc.state.order, acc.state.next_side(side))))
    resolve_missile_attacks(acc, dice)


def close_phase(acc: Acc[GameState], dice: Dice) -> None:
    """Resolve what the phase left pending, then start the next one (or end the game)."""
    st = acc.state
    if st.phase == "movement":
        for ship in st.active():
            if ship.move_state != "moved":  # forced: unmoved ships stay where they are
                acc.add(
                    ShipMoved(
                        ship=ship.id,
                        path=(ship.pos,),
                        heading=ship.heading,
                        distance=0.0,
                        moved=ship.moved,
                        turns=0,
                        paid_turns=0,
                        since_turn=ship.since_turn,
                        move_left=0.0,
                        finished=True,
                    )
                )
    elif st.phase == "missiles":
        finish_missiles(acc, dice)
    elif st.phase == "beams":
        acc.add(*resolve_pending(st, dice))  # GSC2-BEAM-1: all batteries fired; now all damage
    elif st.phase == "boarding":
        boarding.resolve(acc, dice)
    elif st.phase == "repairs":
        over = victory(acc.state)
        if over is not None:
            acc.add(over)
            return
    start_phase(acc, dice, NEXT[st.phase])
