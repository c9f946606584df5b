"""OpenAPI from the msgspec types themselves, merged into FastAPI's document (one source of truth)."""

from __future__ import annotations

from typing import Any

import msgspec
from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from service.domain.core import available_rulesets, find_ruleset
from service.events.application import CommandRequest
from service.events.envelope import SERVICE_EVENT_TYPES, Envelope

from .routes.bots import SeatBot
from .routes.games import CreateGame

REF = "#/components/schemas/{name}"


def msgspec_components() -> dict[str, Any]:
    types: list[Any] = [Envelope, CreateGame, CommandRequest, SeatBot, *SERVICE_EVENT_TYPES]
    commands: list[Any] = []
    for name in available_rulesets():
        ruleset = find_ruleset(name)
        commands += ruleset.command_types
        types += [*ruleset.event_types, ruleset.state_type]
    refs, components = msgspec.json.schema_components([*commands, *types], ref_template=REF)
    request_schema = components["CommandRequest"]
    request_schema["properties"]["command"] = {
        "anyOf": list(refs[: len(commands)]),  # msgspec's own refs: names are module-qualified on clashes
        "description": "one command of the game's ruleset (see GET /v1/rulesets)",
    }
    return components


def install(app: FastAPI) -> None:
    def build() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
        doc.setdefault("components", {}).setdefault("schemas", {}).update(msgspec_components())
        app.openapi_schema = doc
        return doc

    app.openapi = build  # type: ignore[method-assign]
