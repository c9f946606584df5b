"""Round and phase flow (SF-RND-1): who is awaited, and the automatic steps between phases and slots.

Every automatic step is emitted by the decide() of the command that triggers it (the last awaited seat's
action or pass, or the umpire's force)."""

from __future__ import annotations

from service.domain.core import Dice
from service.domain.core.acc import Acc

from . import engineering, gunnery, helm, movement
from .events import GameOver, PhaseStarted, RoundStarted, SlotOpened
from .state import Crew, GameState

PHASE_ROLES = {
    "engineering": ("engineer", "captain"),
    "helm": ("pilot", "science_officer", "captain"),
    "gunnery": ("gunner", "captain"),
}


def may_still_act(state: GameState, crew: Crew) -> bool:
    """SF-R-3: a seat the phase waits for has something it may still do. Pilots, engineers and science
    officers always have (a move of 0 hexes, a divert or patch, a scan); a gunner only while one of its ship's
    weapons bears on an enemy (battle stations may still be declared, SF-R-13); a captain only while another
    crew member aboard holds a role to encourage (SF-R-4)."""
    if crew.role == "gunner":
        return gunnery.has_shot(state, crew.seat)
    if crew.role == "captain":
        return any(o.seat != crew.seat and o.role != "passenger" for o in state.crew_of(crew.ship))
    return True


def in_turn(state: GameState, crew: Crew) -> bool:
    """The current phase (or helm/gunnery slot) is this seat's to act in: engineers (and captains) in
    engineering; the slot ship's pilot, science officers and captain in helm; its gunners and captain in
    gunnery — until it acts or passes (SF-ROLE-2, SF-R-3)."""
    if state.over or not state.ships[crew.ship].active:
        return False
    if crew.role not in PHASE_ROLES[state.phase] or crew.acted or crew.seat in state.done:
        return False
    return state.phase == "engineering" or state.slot_ship == crew.ship


def phase_awaits(state: GameState) -> list[str]:
    """Seats the phase waits for: those in turn that may still do something (SF-R-3)."""
    return [c.seat for c in state.crew.values() if in_turn(state, c) and may_still_act(state, c)]


def opening_wait(state: GameState) -> bool:
    """SF-R-21: before the first command, with nobody able to act in round 1's engineering phase, the game
    waits for any crew member in a role to begin the battle."""
    return not state.opened and not state.over and not phase_awaits(state)


def awaited(state: GameState) -> list[str]:
    """Seats the game waits for now (see ``phase_awaits``; at the opening wait, every crew member in a role)."""
    if opening_wait(state):
        return [c.seat for c in state.crew.values() if c.role != "passenger" and state.ships[c.ship].active]
    return phase_awaits(state)


def open_battle(acc: Acc[GameState]) -> None:
    """SF-R-21: the first command of the game opens round 1's engineering phase, like every later phase."""
    if not acc.state.opened:
        acc.add(PhaseStarted(round=acc.state.round, phase="engineering"))


def advance(acc: Acc[GameState], dice: Dice) -> None:
    """Run the automatic steps until some seat is awaited (at most into one new round)."""
    rounds = 0
    while not acc.state.over and not phase_awaits(acc.state):
        if step(acc, dice):
            rounds += 1
            if rounds >= 2 and acc.state.round_limit is None:
                return  # nobody can act in two whole rounds and no limit ends the battle: the umpire decides


def force(acc: Acc[GameState], dice: Dice) -> None:
    """SF-R-2: the umpire closes the current phase; whoever has not acted does nothing (decide's automatic
    steps, ``advance``, follow)."""
    phase = acc.state.phase
    while not acc.state.over and acc.state.phase == phase:
        step(acc, dice)


def step(acc: Acc[GameState], dice: Dice) -> bool:
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
        movement.drift_all(acc)  # SF-MOV-4: disabled ships drift last
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


def _open(acc: Acc[GameState], phase: str, slot: int) -> None:
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
