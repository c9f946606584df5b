"""The envelope every read path returns, and the service's own (ruleset-independent) events."""

from __future__ import annotations

from typing import Any

import msgspec

from service.domain.core import Event, Roll

from .table_events import TABLE_EVENT_TYPES


class DiceMaterial(msgspec.Struct, frozen=True, omit_defaults=True):
    """What the verifier needs besides the turn's seed or slot keys: the turn, base seq, first slot, salt.

    ``slot`` is None for games from before slots (rolls derive from the seed and ``base``, see dice.py).
    """

    turn: int
    base: int
    salt: str = ""
    origin: str | None = None  # the game whose seeds rolled, when the event was inherited by a fork/import
    slot: int | None = None  # the slot of roll 0; roll i takes slot + i
    salts: tuple[str, ...] = ()  # per-roll salts, when some slots kept the salt of their first use
    seen_by: tuple[str, ...] = ()  # audiences that saw every roll (hidden-information games; never served)

    def salt_of(self, i: int) -> str:
        return self.salts[i] if i < len(self.salts) else self.salt


class SlotOpening(msgspec.Struct, frozen=True):
    """One slot's key, given to a viewer who saw its roll (the reveal's ``proof`` ties it to the root)."""

    slot: int
    key: str


class Envelope(msgspec.Struct, frozen=True, omit_defaults=True):
    game_id: str
    seq: int
    type: str
    v: int
    turn: int
    phase: str
    actor: str
    recorded_at: str
    data: dict[str, Any]
    command_id: str | None = None
    rolls: tuple[Roll, ...] = ()
    dice: DiceMaterial | None = None
    superseded: bool = False


# --- service events: they frame the ruleset's log and never reach a ruleset's evolve -------------


class GameCreated(Event, frozen=True, tag="game.created"):
    ruleset: str
    ruleset_version: str
    scenario_name: str | None
    setup: dict[str, Any]
    options: dict[str, Any] = {}
    forked_from: str | None = None
    forked_at: int | None = None


class DiceCommitted(Event, frozen=True, tag="dice.committed", omit_defaults=True):
    """The hash of the turn's secret seed, public before any command of that turn."""

    turn: int
    commitment: str
    # Merkle root over the turn's slot keys ("" in games from before slots, and in open-information games:
    # their reveal gives everyone the seed, so a root would let no one verify more or sooner)
    root: str = ""
    slots: int = 0  # leaves under the root (without one: rolls still take slot keys; 0: a game from before slots)


class DiceRevealed(Event, frozen=True, tag="dice.revealed", omit_defaults=True):
    """The turn's seed, once the turn is over: every roll of that turn can now be recomputed.

    In hidden-information games a non-umpire sees no seed but ``keys``: the slot keys of the rolls it
    saw (listed per audience in ``openings``, which only the umpire sees) and ``proof``, the Merkle nodes
    that tie them to the turn's committed root.
    """

    turn: int
    seed: str
    openings: dict[str, list[int]] = {}
    keys: list[SlotOpening] = []
    proof: dict[str, str] = {}
    slots: int = 0  # leaves of the turn's largest committed tree, which ``proof`` is for (0: 1024, older reveals)


class DiceDisclosed(Event, frozen=True, tag="dice.disclosed"):
    """Every turn seed of a hidden-information game, once it is over.

    In such a game a revealed seed would let a player recompute the rolls of events hidden from them
    (their seqs are known from the gaps), so non-umpires see ``dice.revealed`` without its seed until
    this event opens them all.
    """

    seeds: dict[str, str]  # turn (as a string: JSON keys) -> seed hex


class GameRewound(Event, frozen=True, tag="game.rewound"):
    """An umpire rewind: events after ``to_seq`` (up to this one) are superseded, kept, and skipped."""

    to_seq: int
    reason: str = ""


class BotSeated(Event, frozen=True, tag="bot.seated"):
    """A seat handed to a computer opponent (docs/bots.md): who plays it, not what happened in the game.

    The fold skips it, a rewind does not undo it, forks and imports do not inherit it; at start-up the
    service reads the last of these per seat to resume the seat's bot."""

    seat: str
    bot: str


class BotUnseated(Event, frozen=True, tag="bot.unseated"):
    """A seat taken back from its bot."""

    seat: str


SERVICE_EVENT_TYPES: tuple[type[Event], ...] = (
    GameCreated,
    DiceCommitted,
    DiceRevealed,
    DiceDisclosed,
    GameRewound,
    BotSeated,
    BotUnseated,
    *TABLE_EVENT_TYPES,
)
