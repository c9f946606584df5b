"""A player's standing: the campaign's own measure of how it is doing (the rules name no victor).

Economic power and fleet strength, the two things the campaign turns on: ten times the income of the
worlds the player holds (FTC-TIME-2: a world pays that each economic turn) plus the list value of its ships
in service (FTC-DEF-1 fleet points; captured hulks count once rebuilt).
"""

from __future__ import annotations

from .state import State

INCOME_WEIGHT = 10  # a world's income over ten economic turns, against ships at list price


def income(state: State, player: str) -> int:
    return sum(w.income or 0 for w in state.worlds.values() if w.owner == player)


def fleet_value(state: State, player: str) -> int:
    return sum(s.cost for s in state.ships.values() if s.owner == player and not s.hulk)


def standing(state: State, player: str) -> int:
    return INCOME_WEIGHT * income(state, player) + fleet_value(state, player)


def leader(state: State) -> str | None:
    """The player of the highest standing, None when two or more share it."""
    ranked = sorted(state.order, key=lambda p: -standing(state, p))
    if not ranked or (len(ranked) > 1 and standing(state, ranked[0]) == standing(state, ranked[1])):
        return None
    return ranked[0]


def standings(state: State) -> str:
    ranked = sorted(state.order, key=lambda p: (-standing(state, p), p))
    return ", ".join(
        f"{p} {standing(state, p)} (income {income(state, p)}, fleet {fleet_value(state, p)})" for p in ranked
    )


def result(state: State) -> str | None:
    """The end of the campaign in words, with every player's standing (public once it is over)."""
    if not state.over:
        return None
    return f"{state.ended or 'the campaign is over'}; standing: {standings(state)}"
