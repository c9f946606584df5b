"""Defaults a ruleset may inherit: scenario files, no redaction, plain explanations."""

from __future__ import annotations

import json
from collections.abc import Mapping
from importlib import resources
from typing import Any

import msgspec

from .choices import Form
from .drawing import Drawing
from .errors import InvalidScenario
from .numbers import check_scenario_numbers
from .protocol import Event, Viewer


class RulesetBase:
    """Mixin with the protocol's optional parts. Subclasses set name, version, types and the decider."""

    name: str
    version: str
    title: str
    scenario_package: str | None = None  # e.g. "service.domain.gsc2.scenarios" holding *.json
    hidden_information: bool  # no default: False lets any seat fork a game (a fork's umpire sees everything)
    setup_type: type[Any]

    def scenarios(self) -> Mapping[str, dict[str, Any]]:
        if self.scenario_package is None:
            return {}
        found: dict[str, dict[str, Any]] = {}
        for entry in sorted(resources.files(self.scenario_package).iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".json"):
                found[entry.name[:-5]] = json.loads(entry.read_text(encoding="utf-8"))
        return found

    def parse_setup(self, raw: dict[str, Any]) -> Any:
        """Decode and validate a scenario; errors name the field path. Every number is bounded first
        (finite, within ±SCENARIO_LIMIT: core/numbers.py), for every ruleset alike."""
        check_scenario_numbers(raw)
        try:
            setup = msgspec.convert(raw, self.setup_type)
        except msgspec.ValidationError as exc:
            message = str(exc)
            path = message.rsplit("at `", 1)[-1].rstrip("`") if "at `" in message else "$"
            raise InvalidScenario(path, message) from exc
        self.validate_setup(setup)
        return setup

    def validate_setup(self, setup: Any) -> None:
        """Cross-field checks beyond the types; raise InvalidScenario(path, detail)."""

    def redact(self, event: Event, viewer: Viewer, state: Any) -> Event | None:
        return event

    def redact_setup(self, setup: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
        return setup

    def forms(self, state: Any, viewer: Viewer) -> list[Form]:
        """Orders composed piece by piece; none unless the ruleset has some."""
        return []

    def draw(self, state: Any, viewer: Viewer) -> Drawing | None:
        """The drawing contract (docs/view-contract.md). Every registered ruleset overrides this."""
        return None

    def result(self, state: Any) -> str | None:
        return getattr(state, "result", None)

    def explain(self, event: Event) -> str:
        tag = type(event).__struct_config__.tag
        return f"{tag}"
