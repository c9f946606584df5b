"""A ruleset is a declaration: ``RULESET = RulesetSpec(name=..., decide=..., evolve=..., ...)``, plain functions
and values, nothing to subclass. The registry loads it by name (``core.registry``, the ``salvo.rulesets`` entry
points); the service calls its parts by the same names it always has (``ruleset.decide(...)``,
``ruleset.view(...)``, ``ruleset.redact(...)``, ``ruleset.bots``), so nothing outside a ruleset knows how
it is written.

Required: who and what (``name``, ``title``, ``version``, ``hidden_information``), the types (setup, state,
commands, events), the decider (``seats``, ``initial_state``, ``clock``, ``decide``, ``evolve``, ``is_over``)
and what a page shows (``options``, ``view``, ``draw``). Everything else has a default:

- ``scenarios``: the ``*.json`` files of ``scenario_package`` (none without one);
- ``parse_setup``: every number bounded (core/numbers.py), decoded as ``setup_type``, then ``validate_setup``;
- ``redact`` (the visibility hook) and ``redact_setup``: nothing hidden;
- ``forms``: none; ``bots``: none of its own (the service stands the random bot in);
- ``result``: the state's ``result`` field; ``explain``: the event's tag;
- ``secrets(state, viewer)``: none. A hidden-information ruleset names here what ``viewer`` must not learn
  (values that appear nowhere in what that viewer is served); the conformance kit looks for each in the
  viewer's view, drawing, options, forms and redacted events;
- ``properties``: outcome rules the conformance kit checks on every state random play reaches, by rule id
  (``{"TPL-3": lambda state: "a winner without a wreck" if ... else None}``): what no generic check can
  know, such as who wins a tie.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import partial
from importlib import resources
from typing import TYPE_CHECKING, Any, Generic, TypeVar

import msgspec

from .errors import InvalidScenario
from .numbers import check_scenario_numbers
from .protocol import Actor, Clock, Command, Event, Viewer

if TYPE_CHECKING:
    from .bot import Bot
    from .choices import Form, Option
    from .dice import Dice
    from .drawing import Drawing

S = TypeVar("S")
P = TypeVar("P")


def scenario_files(package: str | None) -> dict[str, dict[str, Any]]:
    """The ``*.json`` files of ``package`` by name (without ``.json``), in name order."""
    if package is None:
        return {}
    found: dict[str, dict[str, Any]] = {}
    for entry in sorted(resources.files(package).iterdir(), key=lambda e: e.name):
        if entry.name.endswith(".json"):
            found[entry.name[:-5]] = json.loads(entry.read_text(encoding="utf-8"))
    return found


def parse_setup(setup_type: type[P], validate: Callable[[P], None], raw: dict[str, Any]) -> P:
    """Decode and validate a scenario; errors name the field path. Every number is bounded first (finite,
    within ±SCENARIO_LIMIT: core/numbers.py), for every ruleset alike."""
    check_scenario_numbers(raw)
    try:
        setup = msgspec.convert(raw, setup_type)
    except msgspec.ValidationError as exc:
        message = str(exc)
        path = message.rsplit("at `", 1)[-1].rstrip("`") if "at `" in message else "$"
        raise InvalidScenario(path, message) from exc
    validate(setup)
    return setup


def no_checks(setup: Any) -> None:
    """No cross-field checks beyond the setup's types."""


def no_scenarios() -> Mapping[str, dict[str, Any]]:
    return {}


def no_forms(state: Any, viewer: Viewer) -> list[Form]:
    return []


def no_redaction(event: Event, viewer: Viewer, state: Any) -> Event | None:
    return event


def whole_setup(setup: dict[str, Any], viewer: Viewer) -> dict[str, Any]:
    return setup


def no_secrets(state: Any, viewer: Viewer) -> Collection[Any]:
    return ()


def result_field(state: Any) -> str | None:
    return getattr(state, "result", None)


def event_tag(event: Event) -> str:
    return str(type(event).__struct_config__.tag)


def _unset(raw: dict[str, Any]) -> Any:  # pragma: no cover - replaced in __post_init__
    raise NotImplementedError


@dataclass(frozen=True, kw_only=True, eq=False)
class RulesetSpec(Generic[S, P]):
    """One ruleset, declared. See the module docstring for the defaults and docs/rulesets.md for a walk-through."""

    name: str
    title: str
    version: str
    hidden_information: bool  # no default: False lets any seat fork a game (a fork's umpire sees everything)
    setup_type: type[P]
    state_type: type[S]
    command_types: Sequence[type[Command]]
    event_types: Sequence[type[Event]]
    seats: Callable[[P], list[str]]
    initial_state: Callable[[P], S]
    clock: Callable[[S], Clock]
    decide: Callable[[S, Command, Actor, Dice], list[Event]]
    evolve: Callable[[S, Event], S]
    is_over: Callable[[S], bool]
    options: Callable[[S, Viewer], Sequence[Option]]
    view: Callable[[S, Viewer], dict[str, Any]]
    draw: Callable[[S, Viewer], Drawing]

    forms: Callable[[S, Viewer], Sequence[Form]] = no_forms
    result: Callable[[S], str | None] = result_field
    explain: Callable[[Event], str] = event_tag
    redact: Callable[[Event, Viewer, S], Event | None] = no_redaction  # the visibility hook
    redact_setup: Callable[[dict[str, Any], Viewer], dict[str, Any]] = whole_setup
    secrets: Callable[[S, Viewer], Collection[Any]] = no_secrets
    bots: Mapping[str, Bot] = field(default_factory=dict)
    scenario_package: str | None = None  # e.g. "service.domain.gsc2.scenarios" holding *.json
    scenarios: Callable[[], Mapping[str, dict[str, Any]]] = no_scenarios  # default: scenario_package's files
    validate_setup: Callable[[P], None] = no_checks
    parse_setup: Callable[[dict[str, Any]], P] = _unset  # default: parse_setup(setup_type, validate_setup, raw)
    properties: Mapping[str, Callable[[S], str | None]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.scenarios is no_scenarios and self.scenario_package is not None:
            object.__setattr__(self, "scenarios", partial(scenario_files, self.scenario_package))
        if self.parse_setup is _unset:
            object.__setattr__(self, "parse_setup", partial(parse_setup, self.setup_type, self.validate_setup))

    def __repr__(self) -> str:
        return f"RulesetSpec({self.name!r}, version={self.version!r})"


def required_parts() -> tuple[str, ...]:
    """The parts a ruleset must declare (no default), in declaration order."""
    from dataclasses import MISSING

    return tuple(f.name for f in fields(RulesetSpec) if f.default is MISSING and f.default_factory is MISSING)


def spec_parts() -> tuple[str, ...]:
    """Every part a ruleset has, declared or defaulted."""
    return tuple(f.name for f in fields(RulesetSpec))


if TYPE_CHECKING:
    from .protocol import Ruleset

    def _a_spec_is_a_ruleset(spec: RulesetSpec[Any, Any]) -> Ruleset[Any, Any]:
        return spec  # mypy checks here that a spec has every part the service reads (core.protocol.Ruleset)
