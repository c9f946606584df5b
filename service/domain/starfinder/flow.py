"""Round and phase flow (SF-RND-1): who is awaited, and the automatic steps between phases and slots.

Every automatic step is emitted by the decide() of the command that triggers it (the last awaited seat's
action or pass, or the umpire's force)."""

from __future__ import annotations

from service.domain.core import Dice

from . import engineering, gunnery, helm
from .acc import Acc
from .events import GameOver, PhaseStarted, RoundStarted, SlotOpened
from .state import GameState

PHASE_ROLES = {"engineering": ("engineer", "captain"), "helm": ("pilot", "science_officer", "captain"),
               "gunnery": ("gunner", "captain")}


def awaited(state: GameState) -> list[str]:
    """Seats the game waits for now: engineers (and captains) in engineering; the slot ship's pilot, science
    officers and captain in helm; its gunners and captain in gunnery. A captain who has acted this round,
    and any seat that acted or passed, is no longer awaited (SF-ROLE-2, SF-R-3)."""
    if state.over:
        return []
    ship = None
    if state.phase != "engineering":
        ship = state.slot_ship
        if ship is None:
            return []
    roles = PHASE_ROLES[state.phase]
    return [c.seat for c in state.crew.values()
            if c.role in roles and not c.acted and c.seat not in state.done
            and (ship is None or c.ship == ship) and state.ships[c.ship].active]


def advance(acc: Acc, dice: Dice) -> None:
    """Run the automatic steps until some seat is awaited (at most into one new round)."""
    rounds = 0
    while not acc.state.over and not awaited(acc.state):
        if step(acc, dice):
            rounds += 1
            if rounds >= 2:
                return  # nobody can act in a whole round: the umpire forces it on (SF-R-2)


def force(acc: Acc, dice: Dice) -> None:
    """SF-R-2: the umpire closes the current phase; whoever has not acted does nothing."""
    phase = acc.state.phase
    while not acc.state.over and acc.state.phase == phase:
        step(acc, dice)
    advance(acc, dice)


def step(acc: Acc, dice: Dice) -> bool:
    """Close the current slot or phase and open the next. True when a new round started."""
    st = acc.state
    if st.phase == "engineering":
        engineering.resolve(acc, dice)
        acc.add(PhaseStarted(round=st.round, phase="helm"))
        acc.add(helm.order(acc.state, dice))
        _open(acc, "helm", 0)
        return False
    if st.slot + 1 < len(st.order):
        _open(acc, st.phase, st.slot + 1)
        return False
    if st.phase == "helm":
        helm.drift_all(acc)  # SF-MOV-4: disabled ships drift last
        acc.add(PhaseStarted(round=st.round, phase="gunnery"))
        gunnery.check_projectiles(acc, dice)
        _open(acc, "gunnery", 0)
        return False
    gunnery.apply_pending(acc, dice)  # SF-GUN-1: damage at the end of the phase, in firing order
    over = victory(acc.state)
    if over is not None:
        acc.add(over)
        return False
    roles = {c.seat: c.next_role for c in acc.state.crew.values() if c.next_role}
    acc.add(RoundStarted(round=st.round + 1, roles=roles), PhaseStarted(round=st.round + 1, phase="engineering"))
    return True


def _open(acc: Acc, phase: str, slot: int) -> None:
    if slot < len(acc.state.order):
        acc.add(SlotOpened(phase=phase, slot=slot, ship=acc.state.order[slot]))


def victory(state: GameState) -> GameOver | None:
    """SF-RND-1: a new round begins only while hostile ships remain able to fight."""
    able = [s for s in state.sides if any(sh.active and sh.side == s for sh in state.ships.values())]
    if len(able) <= 1:
        winner = able[0] if able else None
        why = f"{winner} alone has ships able to fight" if winner else "no ship is able to fight"
        return GameOver(winner=winner, reason=why)
    if state.round_limit is not None and state.round >= state.round_limit:
        return GameOver(winner=None, reason=f"round limit {state.round_limit} reached: a draw")
    return None
