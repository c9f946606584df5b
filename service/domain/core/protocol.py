"""The decider protocol every ruleset implements, and the value types it speaks."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, Protocol, TypeVar

import msgspec

from .dice import Dice, Roll

if TYPE_CHECKING:
    from .bot import Bot
    from .choices import Form, Option
    from .drawing import Drawing

S = TypeVar("S")
P = TypeVar("P")


class Viewer(msgspec.Struct, frozen=True, dict=True):
    """Who is looking: ``umpire`` sees everything, ``seat`` its side's view, ``spectator`` the public.

    ``dict=True`` only holds the cached ``label`` (asked several times a command; a socket keeps its
    viewer): not a field, so equality, hashing and encoding stay those of ``kind`` and ``seat``."""

    kind: str  # "umpire" | "seat" | "spectator"
    seat: str | None = None

    @property
    def is_umpire(self) -> bool:
        return self.kind == "umpire"

    @cached_property
    def label(self) -> str:
        return f"seat:{self.seat}" if self.kind == "seat" else self.kind


UMPIRE = Viewer("umpire")
SPECTATOR = Viewer("spectator")


def seat(name: str) -> Viewer:
    return Viewer("seat", name)


# Who issued a command; the same shape as a viewer (a spectator issues none).
Actor = Viewer


class Event(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", gc=False):
    """Base for domain events. Subclasses set ``tag=`` explicitly and may override ``version``.

    ``gc=False``: events are acyclic value objects; keeping them out of the garbage collector is what
    lets a 100,000-event replay decode at full speed.

    ``rolls`` holds every die rolled to produce the fact; the events layer lifts it into the envelope.
    """

    version: ClassVar[int] = 1
    rolls: tuple[Roll, ...] = ()


class Command(msgspec.Struct, frozen=True, kw_only=True, tag_field="type", forbid_unknown_fields=True):
    """Base for commands. Subclasses set ``tag=`` explicitly."""


class Clock(msgspec.Struct, frozen=True):
    turn: int
    phase: str


class Ruleset(Protocol[S, P]):
    """What the events and API layers need of a ruleset, generic over its state ``S`` and setup ``P``: the
    parts of ``core.spec.RulesetSpec`` (how every ruleset is declared: ``RULESET = RulesetSpec(...)``), read
    by the same names. A spec satisfies it; so does any object with these parts (tests' small rulesets).

    See docs/rulesets.md, docs/architecture.md ("The decider") and docs/view-contract.md for ``draw``,
    ``options`` and ``forms``. The service calls ``decide`` through ``core.guards.guarded_decide`` (game
    over, no seat) only.
    """

    # read-only: a spec is frozen
    @property
    def name(self) -> str: ...

    @property
    def version(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def hidden_information(self) -> bool: ...

    @property
    def command_types(self) -> Sequence[type[Command]]: ...

    @property
    def event_types(self) -> Sequence[type[Event]]: ...

    @property
    def state_type(self) -> type[S]: ...

    @property
    def setup_type(self) -> type[P]: ...

    @property
    def bots(self) -> Mapping[str, Bot]: ...

    @property
    def properties(self) -> Mapping[str, Callable[[S], str | None]]: ...

    def scenarios(self) -> Mapping[str, dict[str, Any]]: ...

    def parse_setup(self, raw: dict[str, Any]) -> P: ...

    def seats(self, setup: P) -> list[str]: ...

    def initial_state(self, setup: P) -> S: ...

    def clock(self, state: S) -> Clock: ...

    def decide(self, state: S, command: Command, actor: Actor, dice: Dice) -> list[Event]: ...

    def evolve(self, state: S, event: Event) -> S: ...

    def options(self, state: S, viewer: Viewer) -> Sequence[Option]: ...

    def forms(self, state: S, viewer: Viewer) -> Sequence[Form]: ...

    def redact(self, event: Event, viewer: Viewer, state: S) -> Event | None: ...

    def redact_setup(self, setup: dict[str, Any], viewer: Viewer) -> dict[str, Any]: ...

    def view(self, state: S, viewer: Viewer) -> dict[str, Any]: ...

    def draw(self, state: S, viewer: Viewer) -> Drawing | None: ...

    def is_over(self, state: S) -> bool: ...

    def result(self, state: S) -> str | None: ...

    def explain(self, event: Event) -> str: ...

    def secrets(self, state: S, viewer: Viewer) -> Collection[Any]: ...
