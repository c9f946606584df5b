"""Umpire rulings, closing turns, readiness and the end of the campaign (FTC-UMP, FTC-MOV-1)."""

from __future__ import annotations

from service.domain.core import Actor, Dice, RuleViolation
from service.domain.core.acc import Acc

from . import events as E
from .commands import CloseTurn, EndCampaign, Ready, RecordRuling, SubmitOrders
from .common import econ, player_of
from .contacts import advance, check_umpire, close_contacts
from .economy import first_economic_turn
from .movement import resolve_orders, submit_orders
from .state import State


def record_ruling(out: Acc[State], cmd: RecordRuling, actor: Actor) -> None:
    if not cmd.text.strip():
        raise RuleViolation("FTC-UMP-1", "a ruling has a text")
    if any(p not in out.state.economies for p in cmd.involves):
        raise RuleViolation("FTC-UMP-1", "a ruling involves players of this campaign")
    check_umpire(out.state, cmd.umpire, cmd.involves)
    out.add(E.RulingRecorded(text=cmd.text, umpire=cmd.umpire, involves=cmd.involves))


def _start_campaign(out: Acc[State]) -> None:
    out.add(E.TurnStarted(turn=1, economic_turn=1))
    first_economic_turn(out)


def ready(out: Acc[State], cmd: Ready, actor: Actor) -> None:
    player = player_of(out.state, actor)
    if econ(out.state, player).ready:
        raise RuleViolation("FTC-ECO-1", "set-up spending is already closed")
    out.add(E.PlayerReady(player=player))
    if all(e.ready for e in out.state.economies.values()):
        _start_campaign(out)


def submit(out: Acc[State], cmd: SubmitOrders, actor: Actor, dice: Dice) -> None:
    submit_orders(out, cmd, actor)
    if all(p in out.state.orders for p in out.state.order):
        resolve_orders(out, dice)
        advance(out, dice)


def close_error(st: State) -> tuple[str, str] | None:
    """FTC-MOV-1, ruling FTC-R-21: the umpire closes a step only to stop waiting for the last players — never
    before anyone has acted in it (a turn that has just begun is not the umpire's to close)."""
    if st.phase == "deployment" and not any(econ(st, p).ready for p in st.order):
        return "FTC-MOV-1", "no player has finished set-up spending yet: there is no one to stop waiting for"
    if st.phase == "orders" and not st.orders:
        return "FTC-MOV-1", f"no player has sealed orders for turn {st.turn} yet: the turn has only begun"
    if st.phase not in ("deployment", "orders", "contacts"):
        return "FTC-MOV-1", f"there is no turn to close in the {st.phase} phase"
    if (
        st.phase == "contacts"
        and not st.steps
        and all({f.player for f in b.forces} <= set(b.formations) for b in st.battles)
    ):
        return "FTC-ARR-8", "the battles wait for their results (record_battle)"
    return None


def close_turn(out: Acc[State], cmd: CloseTurn, actor: Actor, dice: Dice) -> None:
    st = out.state
    refusal = close_error(st)
    if refusal:
        raise RuleViolation(*refusal)
    if st.phase == "deployment":
        for p in st.order:
            if not econ(out.state, p).ready:
                out.add(E.PlayerReady(player=p))
        _start_campaign(out)
    elif st.phase == "orders":
        missing = tuple(p for p in st.order if p not in st.orders)
        resolve_orders(out, dice, missing)
        advance(out, dice)
    else:
        close_contacts(out, dice)


def end_campaign(out: Acc[State], cmd: EndCampaign, actor: Actor) -> None:
    out.add(E.CampaignEnded(reason=cmd.reason or "ended by the umpire"))
