"""Commands: what a seat asks for. JSON ``{"type": "template.fire", ...}``; every tag is explicit."""

from __future__ import annotations

from service.domain.core import Command


class Fire(Command, frozen=True, tag="template.fire"):
    """Fire at the enemy with ``power`` 1..3: hits on d6 ≥ 3 + power for ``power`` damage (TPL-2)."""

    side: str
    target: str
    power: int = 1


class Pass(Command, frozen=True, tag="template.pass"):
    """Hold fire this turn (TPL-1)."""

    side: str


class ForcePhase(Command, frozen=True, tag="template.force_phase"):
    """Umpire: end the turn now; a side that has not fired holds fire (TPL-4)."""


COMMANDS = (Fire, Pass, ForcePhase)
