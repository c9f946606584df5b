"""Umpire rulings, closing turns, readiness and the end of the campaign (FTC-UMP, FTC-MOV-1)."""

from __future__ import annotations

from service.domain.core import Actor, Dice, RuleViolation

from . import events as E
from .commands import CloseTurn, EndCampaign, Ready, RecordRuling, SubmitOrders
from .common import Out, econ, phase, player_of, umpire_only
from .contacts import advance, check_umpire, close_contacts
from .economy import first_economic_turn
from .movement import resolve_orders, submit_orders


def record_ruling(out: Out, cmd: RecordRuling, actor: Actor) -> None:
    umpire_only(actor, "record a ruling")
    if not cmd.text.strip():
        raise RuleViolation("FTC-UMP-1", "a ruling has a text")
    if any(p not in out.state.economies for p in cmd.involves):
        raise RuleViolation("FTC-UMP-1", "a ruling involves players of this campaign")
    check_umpire(out.state, cmd.umpire, cmd.involves)
    out.emit(E.RulingRecorded(text=cmd.text, umpire=cmd.umpire, involves=cmd.involves))


def _start_campaign(out: Out) -> None:
    out.emit(E.TurnStarted(turn=1, economic_turn=1))
    first_economic_turn(out)


def ready(out: Out, cmd: Ready, actor: Actor) -> None:
    player = player_of(out.state, actor)
    phase(out.state, "deployment", rule="FTC-ECO-1")
    if econ(out.state, player).ready:
        raise RuleViolation("FTC-ECO-1", "set-up spending is already closed")
    out.emit(E.PlayerReady(player=player))
    if all(e.ready for e in out.state.economies.values()):
        _start_campaign(out)


def submit(out: Out, cmd: SubmitOrders, actor: Actor, dice: Dice) -> None:
    submit_orders(out, cmd, actor)
    if all(p in out.state.orders for p in out.state.order):
        resolve_orders(out, dice)
        advance(out, dice)


def close_turn(out: Out, cmd: CloseTurn, actor: Actor, dice: Dice) -> None:
    umpire_only(actor, "close the turn")
    st = out.state
    if st.phase == "deployment":
        for p in st.order:
            if not econ(out.state, p).ready:
                out.emit(E.PlayerReady(player=p))
        _start_campaign(out)
    elif st.phase == "orders":
        missing = tuple(p for p in st.order if p not in st.orders)
        resolve_orders(out, dice, missing)
        advance(out, dice)
    elif st.phase == "contacts":
        close_contacts(out, dice)
    else:
        raise RuleViolation("FTC-MOV-1", f"there is no turn to close in the {st.phase} phase")


def end_campaign(out: Out, cmd: EndCampaign, actor: Actor) -> None:
    umpire_only(actor, "end the campaign")
    out.emit(E.CampaignEnded(reason=cmd.reason or "ended by the umpire"))
