"""The pure core shared by every ruleset: the ruleset spec and decider, dice, geometry, errors, registry."""

from .dice import Dice, Modifier, Roll, SlotDice, commitment, derive_face, seeded_face, slot_face
from .errors import InvalidScenario, NotYourPiece, RuleViolation, UnknownCommand, WrongPhase
from .protocol import SPECTATOR, UMPIRE, Actor, Clock, Command, Event, Ruleset, Viewer, seat
from .registry import (
    RulesetLoadError,
    UnknownRuleset,
    available_rulesets,
    find_ruleset,
    register_ruleset,
    unregister_ruleset,
)
from .spec import RulesetSpec

__all__ = [
    "SPECTATOR",
    "UMPIRE",
    "Actor",
    "Clock",
    "Command",
    "Dice",
    "Event",
    "InvalidScenario",
    "Modifier",
    "NotYourPiece",
    "Roll",
    "SlotDice",
    "RuleViolation",
    "Ruleset",
    "RulesetLoadError",
    "RulesetSpec",
    "UnknownCommand",
    "UnknownRuleset",
    "Viewer",
    "WrongPhase",
    "available_rulesets",
    "commitment",
    "derive_face",
    "find_ruleset",
    "register_ruleset",
    "seat",
    "seeded_face",
    "slot_face",
    "unregister_ruleset",
]
