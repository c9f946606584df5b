"""Narrow exceptions raised by deciders. The API maps them to problem+json."""

from __future__ import annotations


class RuleViolation(Exception):
    """A command breaks a numbered rule. `rule` is the digest id, e.g. "GSC2-BEAM-2"."""

    status = 422
    code = "rule"  # the typed rejection (docs/architecture.md): rule | not-your-piece | wrong-phase | unknown-command

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail


class NotYourPiece(RuleViolation):
    """A seat tried to act for a ship (or other piece) that belongs to another seat."""

    status = 403
    code = "not-your-piece"


class WrongPhase(RuleViolation):
    """A command that is legal, but not in the game's current phase."""

    code = "wrong-phase"


class UnknownCommand(RuleViolation):
    """A command type the ruleset has no path for (one rule id for every ruleset: UNKNOWN-COMMAND)."""

    code = "unknown-command"


class InvalidScenario(ValueError):
    """A scenario failed validation; `path` names the offending field (e.g. "ships[2].batteries[0].arc")."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.path = path
        self.detail = detail
