"""Whose move it is, in words (docs/view-contract.md "status"): each seat's duty and the umpire's.

Shared by the drawing and by the liveness rule: a seat ``must_act`` exactly when the campaign waits for
it, and ``umpire_duty`` names what only the umpire can move on. Phrased per viewer: a player learns of
another player's contacts only where it is involved in them (FTC-R-7).
"""

from __future__ import annotations

from service.domain.core.drawing import SeatStatus

from .common import econ
from .state import State, key

PHASES = {
    "map": "Star map (set-up)",
    "homeworlds": "Starting worlds (set-up)",
    "expansion": "Claiming worlds (set-up)",
    "deployment": "Set-up spending",
    "orders": "Sealed orders",
    "contacts": "Contacts and battles",
    "over": "Campaign over",
}


def phase_label(state: State) -> str:
    label = PHASES.get(state.phase, state.phase)
    return f"{label}, strategic turn {state.turn}" if state.phase in ("orders", "contacts") else label


def _names(players: list[str]) -> str:
    return ", ".join(players) if players else "no one"


def contact_duty(state: State, player: str) -> str | None:
    """What ``player`` must decide in the contacts phase, or None."""
    for s in state.steps:
        if player in s.awaiting:
            what = {
                "engage": "stay and fight or disengage",
                "standoff": "choose a fresh posture",
                "recon": "attack, stand off or withdraw after recon",
                "assault": "assault the defences or hold off",
            }
            return f"decide at {key(s.hex)}: {what.get(s.kind, s.kind)}"
    for b in state.battles:
        if player in [f.player for f in b.forces] and player not in b.formations:
            return f"record your formation and speed for battle {b.id} at {key(b.hex)}"
    return None


def seat_status(state: State, p: str, obs: str | None) -> SeatStatus:  # noqa: C901 - one case per phase
    """``p``'s status as viewer ``obs`` may know it (None: the umpire; "": a spectator)."""
    you = obs == p
    ph = state.phase
    if state.over:
        return SeatStatus(seat=p, must_act=False, why="the campaign is over")
    if ph == "map":
        return SeatStatus(seat=p, must_act=False, why="waiting for the umpire to generate the star map")
    if ph in ("homeworlds", "expansion"):
        what = "dice for a starting world" if ph == "homeworlds" else "claim a world next to one you own"
        if state.current == p:
            return SeatStatus(seat=p, must_act=True, why=("your turn to " if you else "to ") + what)
        return SeatStatus(seat=p, must_act=False, why=f"waiting for {state.current} to {what}")
    if ph == "deployment":
        if econ(state, p).ready:
            waiting = [x for x in state.order if not econ(state, x).ready]
            return SeatStatus(seat=p, must_act=False, why=f"set-up spending done; waiting for {_names(waiting)}")
        return SeatStatus(seat=p, must_act=True, why="set-up spending: buy ships, spares and defences, then be ready")
    if ph == "orders":
        if p in state.orders:
            waiting = [x for x in state.order if x not in state.orders]
            return SeatStatus(seat=p, must_act=False, why=f"orders sealed; waiting for {_names(waiting)}")
        return SeatStatus(seat=p, must_act=True, why=f"seal orders for every task group for turn {state.turn}")
    if ph == "contacts":
        if obs is not None and not you:
            return SeatStatus(seat=p, must_act=False, why="contacts are resolved out of your sight")
        duty = contact_duty(state, p)
        if duty:
            return SeatStatus(seat=p, must_act=True, why=duty)
        mine = [b for b in state.battles if p in [f.player for f in b.forces]]
        if mine and mine[0].tactical_game_id is not None:
            b = mine[0]
            return SeatStatus(
                seat=p,
                must_act=False,
                why=f"battle {b.id} is fought in its linked tactical game "
                f"{b.tactical_game_id}: its result comes from there",
            )
        if mine:
            return SeatStatus(seat=p, must_act=False, why=f"waiting for the umpire to record battle {mine[0].id}")
        return SeatStatus(seat=p, must_act=False, why="waiting for the other contacts of this turn to be resolved")
    return SeatStatus(seat=p, must_act=False, why=f"nothing to do in the {ph} phase")


def battles_to_record(state: State) -> list[str]:
    """Battles whose result the umpire enters by hand: formations declared, not fought as a linked game."""
    return [
        b.id for b in state.battles if all(f.player in b.formations for f in b.forces) and b.tactical_game_id is None
    ]


def umpire_duty(state: State, obs: str | None) -> str | None:
    """The umpire's pending duty in words, as ``obs`` may know it; None when nothing waits on the umpire."""
    if state.over:
        return None
    if state.phase == "map":
        return "generate the star map (the players wait for it)"
    if state.phase == "contacts":
        ready = [b for b in state.battles if b.id in battles_to_record(state)]
        known = [b for b in ready if obs is None or obs in [f.player for f in b.forces]]
        if known:
            b = known[0]
            return f"record the result of battle {b.id} at {key(b.hex)}"
    return None
