"""A compatible path for rulesets written as classes (tests' small ones): the defaults of ``core.spec``
as methods. New rulesets are declarations (``RULESET = RulesetSpec(...)``, docs/rulesets.md)."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from typing import Any, ClassVar

from . import spec
from .bot import Bot
from .choices import Form
from .drawing import Drawing
from .protocol import Event, Viewer


class RulesetBase:
    """Mixin with the spec's optional parts. Subclasses set name, version, types and the decider."""

    name: str
    version: str
    title: str
    scenario_package: str | None = None  # e.g. "service.domain.gsc2.scenarios" holding *.json
    hidden_information: bool  # no default: False lets any seat fork a game (a fork's umpire sees everything)
    setup_type: type[Any]
    bots: ClassVar[Mapping[str, Bot]] = {}
    properties: ClassVar[Mapping[str, Callable[[Any], str | None]]] = {}

    def scenarios(self) -> Mapping[str, dict[str, Any]]:
        return spec.scenario_files(self.scenario_package)

    def parse_setup(self, raw: dict[str, Any]) -> Any:
        return spec.parse_setup(self.setup_type, self.validate_setup, raw)

    def validate_setup(self, setup: Any) -> None:
        """Cross-field checks beyond the types; raise InvalidScenario(path, detail)."""

    def redact(self, event: Event, viewer: Viewer, state: Any) -> Event | None:
        return event

    def redact_setup(self, setup: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
        return setup

    def secrets(self, state: Any, viewer: Viewer) -> Collection[Any]:
        return ()

    def forms(self, state: Any, viewer: Viewer) -> list[Form]:
        """Orders composed piece by piece; none unless the ruleset has some."""
        return []

    def draw(self, state: Any, viewer: Viewer) -> Drawing | None:
        """The drawing contract (docs/view-contract.md). Every registered ruleset overrides this."""
        return None

    def result(self, state: Any) -> str | None:
        return spec.result_field(state)

    def explain(self, event: Event) -> str:
        return spec.event_tag(event)
