"""The one rule module: who may fire, the odds, and the end of a turn (TPL-1..4)."""

from __future__ import annotations

from service.domain.core import Dice, RuleViolation
from service.domain.core.acc import Acc

from .events import Fired, GameOver, TurnStarted
from .state import GameState

POWERS = (1, 2, 3)


def needed(power: int) -> int:
    """TPL-2: a shot of ``power`` hits on d6 ≥ 3 + power."""
    return 3 + power


def may_fire(state: GameState, side: str, target: str, power: int) -> None:
    """TPL-1/2: each side fires (or holds) once a turn, at the other side, with power 1..3."""
    if side in state.done:
        raise RuleViolation("TPL-1", f"{side} has already fired or held fire this turn")
    if target == side or target not in state.hull:
        raise RuleViolation("TPL-2", f"{target!r} is not the enemy ship")
    if power not in POWERS:
        raise RuleViolation("TPL-2", f"power is one of {POWERS}, not {power}")


def fire(acc: Acc[GameState], side: str, target: str, power: int, dice: Dice) -> None:
    roll = dice.roll_high(6, f"{side} fires at power {power}", "TPL-2", needed(power), success="hit", failure="miss")
    hit = roll.outcome == "hit"
    hull = acc.state.hull[target] - (power if hit else 0)
    acc.add(Fired(side=side, target=target, power=power, hit=hit, hull=hull, rolls=(roll,)))


def end_turn_if_done(acc: Acc[GameState]) -> None:
    """TPL-3: a wrecked ship or the turn limit ends the game; else a turn ends once both sides are done."""
    st = acc.state
    wrecked = [s for s, h in st.hull.items() if h <= 0]
    if wrecked:
        survivors = [s for s in st.sides if s not in wrecked]
        winner = survivors[0] if len(survivors) == 1 else None
        acc.add(GameOver(winner=winner, reason=f"{', '.join(wrecked)} wrecked"))
    elif len(st.done) == len(st.sides):
        if st.turn >= st.turn_limit:
            acc.add(GameOver(winner=None, reason=f"turn limit {st.turn_limit} reached: a draw"))
        else:
            acc.add(TurnStarted(turn=st.turn + 1))
