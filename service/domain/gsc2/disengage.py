"""Disengaging on an open table (GSC2-R-20, from the campaign's FTC-ARR-11): the way out of a linked battle.

A linked campaign battle has no table edge (FTC-ARR-11: "there is no table edge"); a ship far away is still in
the battle. It leaves only by disengaging: first it must be out of weapons range, which on a GSC2 table (beams
fire at any range, GSC2-R-17) is the rule's cap of 36" from every enemy ship still in play; then the speeds
decide, the campaign's "poorest-accelerating ship" of the pursuers being the slowest enemy ship still in play.
"""

from __future__ import annotations

from msgspec.structs import replace

from service.domain.core import Dice, Modifier, Roll, RuleViolation

from .combat import inches
from .events import ShipMoved
from .state import GameState, ShipState

RULE = "GSC2-R-20"
OUT_OF_RANGE = 36.0  # FTC-ARR-11: "or 36", whichever is less" (beams have no maximum range, GSC2-R-17)
CLEARLY = 2  # inches of speed (one campaign thrust point, FTC-R-LNK-1) that make a difference "clear"


def pursuer_speed(state: GameState, ship: ShipState) -> int:
    """The speed of the slowest enemy ship still in play (the pursuit moves at its poorest ship's pace)."""
    return min((e.speed for e in state.enemy_ships(ship.side)), default=0)


def refusal(state: GameState, ship: ShipState) -> tuple[str, str] | None:
    """Why ``ship`` may not try to disengage now, or None (shared by options and decide)."""
    if not state.open_table:
        return "GSC2-R-18", "the table edge is the way out of this battle: move off it (gsc2.move)"
    if ship.move_state != "unmoved":
        return RULE, f"{ship.id} has begun or made its move: disengaging is the whole of a ship's move"
    near = [e for e in state.enemy_ships(ship.side) if e.pos.distance_to(ship.pos) <= OUT_OF_RANGE]
    if near:
        e = min(near, key=lambda x: x.pos.distance_to(ship.pos))
        return RULE, (
            f"{e.id} is {inches(e.pos.distance_to(ship.pos))} away: get beyond {inches(OUT_OF_RANGE)} of "
            "every enemy ship first (FTC-ARR-11)"
        )
    if ship.speed + CLEARLY <= pursuer_speed(state, ship):
        return RULE, (
            f"the pursuit continues: {ship.id}'s speed {ship.speed}\" is clearly below the pursuers' "
            f'{pursuer_speed(state, ship)}" (FTC-ARR-11)'
        )
    return None


def disengage(state: GameState, ship: ShipState, dice: Dice) -> ShipMoved:
    """The attempt: clearly faster escapes; otherwise d6 each, +1 to the faster, and a higher roll escapes.
    A failed attempt is the ship's move for the turn: it stays where it is."""
    why = refusal(state, ship)
    if why is not None:
        raise RuleViolation(*why)
    mine, theirs = ship.speed, pursuer_speed(state, ship)
    rolls: tuple[Roll, ...] = ()
    if mine >= theirs + CLEARLY:
        escaped = True
    else:
        mod_mine = (Modifier(RULE, "faster than the pursuit", 1),) if mine > theirs else ()
        mod_theirs = (Modifier(RULE, "the pursuit is faster", 1),) if theirs > mine else ()
        a = dice.roll(6, f"{ship.id} disengages", RULE, modifiers=mod_mine)
        b = dice.roll(6, f"the pursuit of {ship.id}", RULE, modifiers=mod_theirs)
        escaped = a.value + len(mod_mine) > b.value + len(mod_theirs)
        rolls = (
            replace(a, outcome="escapes" if escaped else "caught"),
            replace(b, outcome="caught" if escaped else "shaken off"),
        )
    return ShipMoved(
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
        left_table=escaped,
        disengaged=escaped,
        rolls=rolls,
    )
