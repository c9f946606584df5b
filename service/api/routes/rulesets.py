"""GET /v1/rulesets and their sample scenarios."""

from __future__ import annotations

from typing import Any

import msgspec
from fastapi import APIRouter

from service.domain.core import available_rulesets, find_ruleset
from service.domain.core.registry import UnknownRuleset
from service.events.errors import NotFound

from ..jsonresponse import MsgspecResponse

router = APIRouter(prefix="/v1/rulesets", tags=["rulesets"])


def describe(name: str) -> dict[str, Any]:
    ruleset = find_ruleset(name)
    command_refs, commands = msgspec.json.schema_components(ruleset.command_types, ref_template="#/$defs/{name}")
    event_refs, events = msgspec.json.schema_components(ruleset.event_types, ref_template="#/$defs/{name}")
    return {
        "name": ruleset.name,
        "version": ruleset.version,
        "title": ruleset.title,
        "scenarios": sorted(ruleset.scenarios()),
        "commands": {"$defs": commands, "anyOf": list(command_refs)},
        "events": {"$defs": events, "anyOf": list(event_refs)},
    }


@router.get("", response_class=MsgspecResponse, summary="Rulesets, their command/event schemas and scenarios")
async def list_rulesets() -> MsgspecResponse:
    return MsgspecResponse({"rulesets": [describe(name) for name in available_rulesets()]})


@router.get("/{ruleset}/scenarios/{name}", response_class=MsgspecResponse, summary="A sample scenario")
async def get_scenario(ruleset: str, name: str) -> MsgspecResponse:
    try:
        scenarios = find_ruleset(ruleset).scenarios()
    except UnknownRuleset:
        raise NotFound(f"no ruleset {ruleset!r}", field="ruleset") from None
    if name not in scenarios:
        raise NotFound(f"ruleset {ruleset} has no scenario {name!r}", field="name")
    return MsgspecResponse({"ruleset": ruleset, "scenario": scenarios[name]})
