"""Who must act now and why not, in words, for every crew seat (the page's header and each seat's prompt)."""

from __future__ import annotations

from .flow import awaited, may_still_act, opening_wait
from .state import PHASES, ROLE_PHASE, Crew, GameState

PHASE_NAMES = {"engineering": "Engineering", "helm": "Helm", "gunnery": "Gunnery"}


def role_name(role: str) -> str:
    return role.replace("_", " ")


def ship_name(state: GameState, ship: str) -> str:
    return state.specs[ship].label


def phase_label(state: GameState) -> str:
    """E.g. "Round 2 · Helm (phase 2 of 3) · Ashen Wake's turn · waiting for Ashen Wake's pilot"."""
    parts = [f"Round {state.round}", f"{PHASE_NAMES[state.phase]} (phase {PHASES.index(state.phase) + 1} of 3)"]
    if state.over:
        return " · ".join([*parts, "battle over"])
    turn = state.slot_ship
    if turn is not None:
        parts.append(f"{ship_name(state, turn)}'s turn")
    waiting = [f"{ship_name(state, state.crew[s].ship)}'s {role_name(state.crew[s].role)}" for s in awaited(state)]
    if opening_wait(state) and waiting:
        parts.append("any crew member may begin the battle")
    elif waiting:
        parts.append("waiting for " + ", ".join(dict.fromkeys(waiting)))
    elif all(c.role == "passenger" for c in state.crew.values()):
        parts.append("nobody aboard holds a role: a crew member must take one (SF-ROLE-3)")
    else:
        parts.append("nobody can act: the umpire forces the phase on")
    return " · ".join(parts)


def umpire_duty(state: GameState) -> str | None:
    if state.over or awaited(state):
        return None
    return "nobody can act in this phase: force it on (SF-R-2)"


def seat_status(state: GameState, seat: str) -> tuple[bool, str]:
    """(must act now, why — or what to do) for one crew seat."""
    c = state.crew[seat]
    ship = ship_name(state, c.ship)
    s = state.ships[c.ship]
    if state.over:
        return False, f"the battle is over: {state.result}"
    if s.status == "destroyed":
        return False, f"{ship} is destroyed (SF-DMG-6)"
    if s.status == "disabled":
        return False, f"{ship} is disabled and no longer acts (SF-MOV-4)"
    if c.role == "passenger":
        return False, "a passenger acts in no phase; a role change takes effect next round (SF-ROLE-1, SF-ROLE-3)"
    if seat in awaited(state):
        return True, _task(state, c)
    return False, _why_not(state, c)


def _task(state: GameState, c: Crew) -> str:
    ship = ship_name(state, c.ship)
    if opening_wait(state):
        return "begin the battle: nobody aboard any ship acts in round 1's engineering phase (SF-R-21)"
    if c.role == "captain":
        return f"{ship}'s captain may encourage a crew member now, in the {state.phase} phase, or pass (SF-R-4)"
    if c.role == "engineer":
        return f"{ship}'s engineer: patch a system or divert power, or pass (SF-RND-2)"
    if c.role == "pilot":
        return f"{ship}'s turn in the helm order: its pilot moves or tries a stunt (SF-MOV-1, SF-STUNT)"
    if c.role == "science_officer":
        return f"{ship}'s turn in the helm order: scan, lock on or improve countermeasures, or pass (SF-RND-3)"
    if not state.ships[c.ship].battle_stations:
        return (
            f"{ship}'s turn to fire, but battle stations have not been declared: declare them, then fire "
            "(SF-R-13), or pass"
        )
    return f"{ship}'s turn in the gunnery order: fire one weapon, or pass (SF-GUN-1)"


def _why_not(state: GameState, c: Crew) -> str:  # noqa: C901 - one reason per situation
    ship = ship_name(state, c.ship)
    s = state.ships[c.ship]
    if c.acted:
        what = "the captain's action" if c.role == "captain" else "its one action"
        return f"has taken {what} this round (SF-R-3)"
    if c.seat in state.done:
        return f"done with the {state.phase} phase this round"
    if c.role != "captain" and ROLE_PHASE[c.role] != state.phase:
        phase = ROLE_PHASE[c.role]
        when = "this round" if PHASES.index(phase) > PHASES.index(state.phase) else "next round"
        if c.role == "gunner" and not s.battle_stations:
            return (
                f"battle stations have not been declared: gunners act in the gunnery phase once {ship} is at "
                "battle stations (any crew member aboard may declare them, SF-R-13)"
            )
        return f"the {role_name(c.role)} acts in the {phase} phase ({when}); now: {state.phase} (SF-ROLE-2)"
    turn = state.slot_ship
    if turn is not None and turn != c.ship:
        later = c.ship in state.order[state.slot + 1 :]
        return (
            f"waiting for {ship_name(state, turn)}'s turn in the {state.phase} order; {ship}'s turn "
            f"{'comes later' if later else 'is over'} (SF-HELM-4)"
        )
    if not may_still_act(state, c):
        if c.role == "gunner":
            return f"no weapon of {ship} that has not fired bears on an enemy in range (SF-GUN-2..5)"
        if c.role == "captain":
            return "nobody else aboard holds a role to encourage (SF-R-4)"
    return f"waiting for the {state.phase} phase to move on"
