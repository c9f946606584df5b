"""Narrow exceptions raised by deciders. The API maps them to problem+json."""

from __future__ import annotations


class RuleViolation(Exception):
    """A command breaks a numbered rule. `rule` is the digest id, e.g. "GSC2-BEAM-2"."""

    status = 422

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"{rule}: {detail}")
        self.rule = rule
        self.detail = detail


class NotYourPiece(RuleViolation):
    """A seat tried to act for a ship (or other piece) that belongs to another seat."""

    status = 403


class InvalidScenario(ValueError):
    """A scenario failed validation; `path` names the offending field (e.g. "ships[2].batteries[0].arc")."""

    def __init__(self, path: str, detail: str) -> None:
        super().__init__(f"{path}: {detail}")
        self.path = path
        self.detail = detail
