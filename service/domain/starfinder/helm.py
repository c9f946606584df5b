"""Helm order (SF-HELM-1..4): every pilot's Piloting check, lowest first, ties broken by ranks then rolls."""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import Dice, Modifier, Roll

from .checks import piloting_check_mods, total
from .events import HelmOrderSet
from .state import GameState

TIE_ROUNDS = 10


# --- SF-HELM: the order of the round ---------------------------------------------------------------------------


def piloting_mods(state: GameState, ship: str) -> tuple[str | None, list[Modifier], bool]:
    """The pilot's seat, the Piloting check's modifiers (SF-HELM-1..3) and whether it fails outright."""
    pilots = state.crew_of(ship, "pilot")
    if not pilots:
        return None, [], True
    seat = pilots[0].seat
    mods, fail = piloting_check_mods(state, seat, "SF-HELM-1")
    return seat, mods, fail


def order(state: GameState, dice: Dice) -> HelmOrderSet:
    """SF-HELM-4: lowest result first; ties: fewer Piloting ranks first; still tied: both roll again."""
    ships = [k for k, s in state.ships.items() if s.active]
    keys: dict[str, list[int]] = {}
    how: dict[str, tuple[str | None, list[Modifier], bool]] = {}
    rolls: list[Roll] = []
    results: dict[str, int] = {}
    for sid in ships:
        seat, mods, fail = how[sid] = piloting_mods(state, sid)
        if fail:  # SF-HELM-1: no pilot (or a wrecked system, SF-R-6) counts as a result of 0
            results[sid] = 0
        else:
            r = dice.roll(20, f"piloting check ({state.specs[sid].label})", "SF-HELM-1", modifiers=tuple(mods))
            results[sid] = total(r)
            rolls.append(_with_outcome(r, f"result {results[sid]}"))
        pilot = state.members[seat] if seat else None
        keys[sid] = [results[sid], pilot.piloting_ranks if pilot else 0]
    for _ in range(TIE_ROUNDS):
        groups: dict[tuple[int, ...], list[str]] = {}
        for sid in ships:
            groups.setdefault(tuple(keys[sid]), []).append(sid)
        tied = [g for g in groups.values() if len(g) > 1]
        if not tied:
            break
        for group in tied:
            for sid in group:
                seat, mods, fail = how[sid]
                if fail:  # SF-HELM-1 ruling: pilotless ships break ties by a seeded roll
                    r = dice.roll(20, f"tie-break roll ({state.specs[sid].label}, no pilot)", "SF-HELM-1")
                    keys[sid].append(r.value)
                else:
                    r = dice.roll(
                        20, f"tie-break piloting check ({state.specs[sid].label})", "SF-HELM-4", modifiers=tuple(mods)
                    )
                    keys[sid].append(total(r))
                rolls.append(_with_outcome(r, f"tie-break {keys[sid][-1]}"))
    index = {sid: i for i, sid in enumerate(ships)}
    ranked = tuple(sorted(ships, key=lambda s: (keys[s], index[s])))
    return HelmOrderSet(order=ranked, results=results, rolls=tuple(rolls))


def _with_outcome(r: Roll, outcome: str) -> Roll:
    return replace(r, outcome=outcome)
