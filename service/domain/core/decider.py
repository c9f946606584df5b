"""One decide skeleton for every ruleset: the guards in one fixed order, then the rule, then the
automatic steps. A ruleset declares its paths; it does not write its own dispatcher.

The order, boardgame.io style (core.guards ran before: GAME-OVER, NO-SEAT):

1. unknown command      -> ``UnknownCommand`` (rule ``UNKNOWN-COMMAND``, the same for every ruleset)
2. whose piece          -> ``NotYourPiece`` citing the path's ``seat_rule`` (or the decider's)
   (``umpire_only`` paths refuse every seat with the path's ``seat_rule``)
3. which phase          -> ``WrongPhase`` citing the path's ``phase_rule``
4. the rule             -> the path's handler raises ``RuleViolation`` with its own rule id
5. automatic steps      -> ``Decider.after`` (phase ends, reveals) on the accumulated state

Every refusal carries a typed ``code`` (errors.py) beside the ruleset's rule id, so a client can tell
"not yours" from "not now" from "not allowed" without knowing any ruleset.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

from .acc import Acc
from .dice import Dice
from .errors import NotYourPiece, UnknownCommand, WrongPhase
from .protocol import Actor, Command, Event

S = TypeVar("S")

Handler = Callable[[Acc[S], Any, Actor, Dice], None]
UNKNOWN_COMMAND = "UNKNOWN-COMMAND"


@dataclass(frozen=True, slots=True)
class Path(Generic[S]):
    """How one command type is decided: its handler and the guards the skeleton applies before it.

    ``phases`` empty: legal in any phase. ``seat_rule``/``phase_rule`` empty: the decider's defaults."""

    run: Handler[S]
    phases: tuple[str, ...] = ()
    phase_rule: str = ""
    seat_rule: str = ""
    umpire_only: bool = False


@dataclass(frozen=True, slots=True)
class Decider(Generic[S]):
    """A ruleset's ``decide``: ``DECIDER(state, command, actor, dice) -> events``.

    ``owner(state, command)`` names the seat whose piece the command uses (None: no piece, or the piece
    does not exist; the handler's rule then names what is missing). ``phase(state)`` names the phase."""

    paths: Mapping[type[Command], Path[S]]
    evolve: Callable[[S, Event], S]
    owner: Callable[[S, Any], str | None]
    phase: Callable[[S], str]
    seat_rule: str
    phase_rule: str
    after: Callable[[Acc[S], Dice], None] | None = None

    def __call__(self, state: S, command: Command, actor: Actor, dice: Dice) -> list[Event]:
        return self.run(state, command, actor, dice).events

    def run(self, state: S, command: Command, actor: Actor, dice: Dice) -> Acc[S]:
        """The events with the state they build as decided (what the fold of the log must reproduce)."""
        path = self.paths.get(type(command))
        if path is None:
            raise UnknownCommand(UNKNOWN_COMMAND, f"{type(command).__name__} is not a command of this game")
        self.check_piece(path, state, command, actor)
        phases = path.phases
        if phases and self.phase(state) not in phases:
            tag = type(command).__struct_config__.tag
            allowed = " or ".join(phases)
            raise WrongPhase(
                path.phase_rule or self.phase_rule, f"{tag} is for the {allowed} phase, not {self.phase(state)}"
            )
        acc: Acc[S] = Acc(state, self.evolve)
        path.run(acc, command, actor, dice)
        if self.after is not None:
            self.after(acc, dice)
        return acc

    def check_piece(self, path: Path[S], state: S, command: Command, actor: Actor) -> None:
        if actor.is_umpire:
            return
        rule = path.seat_rule or self.seat_rule
        if path.umpire_only:
            raise NotYourPiece(rule, f"only the umpire may send {type(command).__struct_config__.tag}")
        owner = self.owner(state, command)
        if owner is not None and actor.seat != owner:
            raise NotYourPiece(rule, f"{actor.label} cannot act for {owner}")
