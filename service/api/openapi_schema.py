"""OpenAPI 3.1 from the msgspec types themselves, merged into FastAPI's document (one source of truth).

FastAPI knows the paths and parameters; ``contract.py`` knows the bodies. Every operation gets its
success body from there, a problem+json body on each error status it can answer (``ERRORS``), and the
Bearer scheme when it reads a token. FastAPI's own 422 (HTTPValidationError) is replaced: the service
answers problem+json there too.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import msgspec
from fastapi import FastAPI
from fastapi.openapi.utils import get_openapi

from service.domain.core import available_rulesets, find_ruleset
from service.events.application import CommandRequest
from service.events.envelope import SERVICE_EVENT_TYPES, Envelope

from . import contract as c
from . import openapi_shapes as shapes
from . import player_contract as pc
from .examples import PROBLEM_EXAMPLES, REQUEST_EXAMPLES, RESPONSE_EXAMPLES
from .routes import talk
from .routes.bots import SeatBot
from .routes.deadlines import ClockRequest, DeadlineRequest
from .routes.games import CreateGame
from .routes.replay import RewindRequest

REF = "#/components/schemas/{name}"
TALK_REQUESTS = [talk.PostMessage, talk.PostSpectatorMessage, DeadlineRequest, ClockRequest]  # issue 39's bodies
PROBLEM = "application/problem+json"


@dataclass(frozen=True)
class Op:
    status: int
    body: type[Any] | str | None  # a contract struct, a media type (a non-JSON body), or None (no body)
    errors: tuple[int, ...]
    token: bool = True  # reads a bearer token (optional: none = spectator)
    request: type[Any] | str | None = None  # a body the route reads raw (FastAPI cannot see it)
    also: tuple[int, ...] = ()  # other success statuses with the same body


READ = (401, 404, 429)
WRITE = (401, 403, 404, 409, 413, 422, 429)
OPERATIONS: dict[str, Op] = {
    # 429: the limits are on commands and on authenticating a token (service/api/ratelimit.py)
    # 413: any request's body is limited (service/api/problems.BodyLimit), a GET's too
    "list_rulesets": Op(200, c.RulesetList, (413,), token=False),
    "get_scenario": Op(200, c.ScenarioResponse, (404,), token=False),
    "create_game": Op(201, c.GameCreatedResponse, (413, 422), token=False),
    # 429: imports per address (SALVO_RATE_IMPORTS_PER_ADDRESS)
    "post_import": Op(201, c.GameCreatedResponse, (413, 422, 429), token=False, request="application/octet-stream"),
    "get_game": Op(200, c.GameSummary, (*READ, 422)),
    "get_options": Op(200, c.OptionsResponse, READ),
    "get_events": Op(200, c.EventsPage, (*READ, 422)),
    "get_turn": Op(200, c.TurnReplay, (*READ, 422)),
    "post_command": Op(201, c.CommandAccepted, WRITE),
    "post_rewind": Op(201, c.Rewound, WRITE, request=RewindRequest),
    "post_fork": Op(201, c.GameCreatedResponse, (401, 403, 404, 422, 429)),
    "get_export": Op(200, "application/x-ndjson", READ),
    "get_keys": Op(200, c.SigningKeys, (413,), token=False),
    "post_bot": Op(201, c.SeatedBot, (401, 403, 404, 413, 422, 429)),
    "get_bots": Op(200, c.BotListing, READ),
    "delete_bot": Op(204, None, (401, 403, 404, 429)),
    # 201: the linked game created now; 200: the one already linked
    "post_linked_battle": Op(201, c.LinkedBattle, (401, 403, 404, 422, 429), also=(200,)),
    "get_link": Op(200, c.BattleLink, READ),
    # table talk (issue 39): 429 is the messages' own limit (SALVO_RATE_MESSAGES_PER_TOKEN, …_PER_ADDRESS)
    "post_message": Op(201, talk.Message, (401, 403, 404, 413, 422, 429)),
    "get_messages": Op(200, talk.MessageList, (*READ, 422)),
    "post_spectator_message": Op(201, talk.SpectatorMessage, (401, 403, 404, 413, 422, 429)),
    "get_spectator_messages": Op(200, talk.SpectatorMessageList, (401, 403, 404, 422, 429)),
    "get_deadline": Op(200, c.DeadlineState, READ),
    "put_deadline": Op(200, c.DeadlineState, (401, 403, 404, 413, 422, 429)),
    "get_clock": Op(200, c.ClockState, READ),
    "put_clock": Op(200, c.ClockState, (401, 403, 404, 413, 422, 429)),
    # players and notifications (issue 40): the bearer is a personal key (pk_…); 429: failed authentications
    # (and POST /v1/players: players created per address, SALVO_RATE_PLAYERS_PER_ADDRESS)
    "create_player": Op(201, pc.PersonalKey, (413, 422, 429), token=False, request=pc.NewPlayer),
    "get_me": Op(200, pc.PlayerInfo, (401, 413, 429)),
    "post_key": Op(201, pc.PersonalKey, (401, 413, 422, 429), request=pc.NewPlayer),
    "delete_key": Op(204, None, (401, 404, 429)),
    "post_seat": Op(201, pc.Claim, (401, 413, 422, 429), request=pc.ClaimSeat),
    "delete_seat": Op(204, None, (401, 404, 429)),
    "get_my_games": Op(200, pc.MyGames, (401, 404, 429)),
    "post_seen": Op(204, None, (401, 404, 413, 422, 429), request=pc.MarkSeen),
    "post_subscription": Op(201, pc.Subscription, (401, 413, 422, 429), request=pc.NewSubscription),
    "get_subscriptions": Op(200, pc.SubscriptionList, (401, 429)),
    "delete_subscription": Op(204, None, (401, 404, 429)),
    "resume_subscription": Op(200, pc.Subscription, (401, 404, 429)),
    "get_push_key": Op(200, pc.PushKey, (413,), token=False),
    # passkeys (WebAuthn): binding one needs the personal key; signing in needs none (401: did not verify)
    "post_passkey_options": Op(200, pc.PasskeyOptions, (401, 413, 422, 429), request=pc.NewPasskeyOptions),
    "post_passkey": Op(201, pc.PasskeyInfo, (401, 413, 422, 429), request=pc.NewPasskey),
    "get_passkeys": Op(200, pc.PasskeyList, (401, 429)),
    "delete_passkey": Op(204, None, (401, 404, 429)),
    "post_login_options": Op(200, pc.PasskeyOptions, (413, 429), token=False),
    "post_login": Op(201, pc.PasskeySession, (401, 413, 422, 429), token=False, request=pc.PasskeyLogin),
}
PLAYER_BODIES = [
    pc.NewPlayer,
    pc.ClaimSeat,
    pc.MarkSeen,
    pc.NewSubscription,
    pc.Notification,
    pc.NewPasskeyOptions,
    pc.NewPasskey,
    pc.PasskeyLogin,
]
# what a webhook subscription receives (OpenAPI 3.1 ``webhooks``): docs/notifications.md
WEBHOOKS = {
    "notification": {
        "post": {
            "operationId": "receive_notification",  # what a receiver implements (Redocly: every operation has an id)
            "summary": "A notification to a subscription's URL (kind json; discord and slack get {content} / {text})",
            "description": 'Signed: X-Salvo-Signature is sha256=<hex HMAC-SHA256 of "<X-Salvo-Timestamp>." + body> '
            "under the subscription's secret; Idempotency-Key is the notification's id, repeated on "
            "a redelivery.",
            "requestBody": {
                "required": True,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Notification"}}},
            },
            "responses": {
                "200": {"description": "any 2xx: delivered (a 3xx is not followed; anything else is retried)"}
            },
        }
    }
}
DESCRIPTIONS = {
    401: "the token opens no seat of this game",
    403: "the caller may not do this (a spectator, another seat's piece, not the umpire)",
    404: "no such game (or scenario, or turn)",
    409: "the game has moved on (If-Match / expected version) or kept changing",
    413: "the request body is too large",
    422: "the request or command is invalid, or a rule refuses it (the problem names the rule or field)",
    429: "too many requests: slow down and retry after the Retry-After header",
}
BINARY = {"type": "string", "format": "binary"}
# every operation that reads a token takes it optionally (none: a spectator), said once for the document:
# generators then type those calls for a client with or without a token (a per-operation [{}, bearer] is
# read as "needs a token" by openapi-python-client)
OPTIONAL_BEARER: list[dict[str, list[str]]] = [{}, {"bearer": []}]
SERVERS = [
    {
        "url": "http://127.0.0.1:8000",
        "description": "`salvo serve` on its default address (any Salvo server: its own base URL)",
    }
]
SECURITY_SCHEME = {
    "type": "http",
    "scheme": "bearer",
    "description": "a seat or umpire token from POST /v1/games (shown once); without one you are a spectator",
}


def command_types() -> list[Any]:
    return [t for name in available_rulesets() for t in find_ruleset(name).command_types]


ANY_COMMAND = {
    "title": "Command",
    "type": "object",
    "required": ["type"],
    "additionalProperties": True,
    "properties": {"type": {"type": "string", "description": "the command's tag, e.g. gsc2.start"}},
    "description": "one command of the game's ruleset: its schema is GET /v1/rulesets (and Command in openapi.json)",
}


def typed_components(types: list[Any], with_commands: bool = True) -> tuple[dict[Any, str], dict[str, Any]]:
    """JSON Schemas of ``types`` and everything they use, in shapes generators take (openapi_shapes), with
    ``Command`` what a command field holds: the union of every ruleset's commands told apart by ``type``,
    or (``with_commands=False``) any object with a type tag. Also: each type -> its component's name."""
    commands = command_types() if with_commands else []
    refs, components = msgspec.json.schema_components([*commands, *types], ref_template=REF)
    components, renamed = shapes.unique_names(components)
    names = {
        kind: renamed.get(name, name)
        for kind, name in zip([*commands, *types], (r["$ref"].rsplit("/", 1)[1] for r in refs), strict=True)
    }
    if commands:
        shapes.command_union(components, {str(k.__struct_config__.tag): names[k] for k in commands})
    else:
        components["Command"] = dict(ANY_COMMAND)
    for holder in ("CommandRequest", "CommandFrame", "Option"):
        if holder in components:
            components[holder]["properties"]["command"] = {"$ref": REF.format(name="Command")}
    if "GameView" in components:
        components["GameView"]["additionalProperties"] = True  # the ruleset's own view keys
    return names, shapes.tuples_with_items(open_free_form_objects(components))


def components_for(types: list[Any], with_commands: bool = True) -> dict[str, Any]:
    return typed_components(types, with_commands)[1]


def msgspec_components() -> dict[str, Any]:
    """Every body's schema; ``Envelope`` the union of every event type's envelope. The rulesets' fold
    states are not here: no answer carries one (a view is the ruleset's own dict, GameView)."""
    events = [*SERVICE_EVENT_TYPES, *(e for name in available_rulesets() for e in find_ruleset(name).event_types)]
    types: list[Any] = [
        Envelope,
        CreateGame,
        CommandRequest,
        SeatBot,
        RewindRequest,
        *TALK_REQUESTS,
        *events,
        c.Problem,
        *(op.body for op in OPERATIONS.values() if isinstance(op.body, type)),
        *c.SERVER_FRAMES,
        *c.CLIENT_FRAMES,
    ]
    types += PLAYER_BODIES  # players' and notifications' request bodies, and the webhooks' Notification
    names, components = typed_components(types)
    # one type for whatever the stream sends (openapi/asyncapi.json is its contract): generators emit the
    # union told apart by ``kind``, and the frames are reached from it rather than each left unused
    components["ServerFrame"] = shapes.discriminated(
        {str(f.__struct_config__.tag): names[f] for f in c.SERVER_FRAMES},
        "kind",
        "ServerFrame",
        "a frame the server sends on WS /v1/games/{game_id}/stream (openapi/asyncapi.json), told apart by kind",
    )
    return shapes.envelope_union(components, {str(e.__struct_config__.tag): names[e] for e in events})


def open_free_form_objects(node: Any) -> Any:
    """``dict[str, Any]`` says ``{"type": "object"}``; generators read that as an object with no keys
    (openapi-typescript: ``Record<string, never>``), so free-form objects say so explicitly."""
    if isinstance(node, dict):
        for value in node.values():
            open_free_form_objects(value)
        if node.get("type") == "object" and "properties" not in node and "additionalProperties" not in node:
            node["additionalProperties"] = True
    elif isinstance(node, list):
        for value in node:
            open_free_form_objects(value)
    return node


def _json(
    schema: dict[str, Any], examples: dict[str, Any] | None = None, media: str = "application/json"
) -> dict[str, Any]:
    content: dict[str, Any] = {"schema": schema}
    if examples:
        content["examples"] = {k: {"value": v} for k, v in examples.items()}
    return {media: content}


def _responses(name: str, op: Op) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if op.body is None:
        out[str(op.status)] = {"description": "done (no body)"}
    elif isinstance(op.body, str):
        # the same bytes as octet-stream on Accept: application/octet-stream (generators download files so)
        out[str(op.status)] = {
            "description": "a battle file: a header line, then one Envelope per line",
            "content": {**_json({"type": "string"}, media=op.body), **_json(BINARY, media="application/octet-stream")},
        }
    else:
        title = op.body.__name__
        example = RESPONSE_EXAMPLES.get(title)
        for status in (op.status, *op.also):
            out[str(status)] = {
                "description": (op.body.__doc__ or title).strip().splitlines()[0],
                "content": _json({"$ref": REF.format(name=title)}, {"example": example} if example else None),
            }
    for status in op.errors:
        out[str(status)] = {
            "description": DESCRIPTIONS[status],
            "content": _json({"$ref": REF.format(name="Problem")}, PROBLEM_EXAMPLES[status], media=PROBLEM),
        }
        if status == 429:
            out["429"]["headers"] = {
                "Retry-After": {
                    "description": "seconds to wait before retrying",
                    "schema": {"type": "integer", "minimum": 1},
                }
            }
    return out


def _operation(op_doc: dict[str, Any], name: str) -> None:
    op_doc["operationId"] = name
    op = OPERATIONS.get(name)
    if op is None:  # a route this table does not know yet: tests/test_openapi.py says so
        if "422" in op_doc.get("responses", {}):  # FastAPI's 422 body is not in the components: a problem
            op_doc["responses"]["422"] = {
                "description": DESCRIPTIONS[422],
                "content": _json({"$ref": REF.format(name="Problem")}, PROBLEM_EXAMPLES[422], media=PROBLEM),
            }
        return
    op_doc["responses"] = _responses(name, op)
    op_doc["parameters"] = [
        p
        for p in op_doc.get("parameters", [])
        if not (p.get("in") == "header" and p.get("name", "").lower() == "authorization")
    ]
    if not op_doc["parameters"]:
        del op_doc["parameters"]
    if not op.token:
        op_doc["security"] = []  # the document's optional bearer (OPTIONAL_BEARER) does not apply
    if isinstance(op.request, str):
        op_doc["requestBody"] = {
            "required": True,
            "description": "a battle file from GET /export (JSON lines, sent as they are: any content type is taken)",
            "content": {op.request: {"schema": BINARY}},
        }
    elif op.request is not None:
        op_doc["requestBody"] = {"required": False, "content": _json({"$ref": REF.format(name=op.request.__name__)})}
    body = op_doc.get("requestBody", {}).get("content", {}).get("application/json")
    if body is not None and name in REQUEST_EXAMPLES:
        body["examples"] = {k: {"value": v} for k, v in REQUEST_EXAMPLES[name].items()}


def build_document(app: FastAPI) -> dict[str, Any]:
    doc = get_openapi(title=app.title, version=app.version, description=app.description, routes=app.routes)
    components = doc.setdefault("components", {})
    schemas = components.setdefault("schemas", {})
    for fastapi_only in ("HTTPValidationError", "ValidationError"):
        schemas.pop(fastapi_only, None)
    schemas.update(msgspec_components())
    components["securitySchemes"] = {"bearer": SECURITY_SCHEME}
    doc["servers"] = SERVERS
    doc["security"] = OPTIONAL_BEARER
    doc["webhooks"] = WEBHOOKS
    for path, methods in doc["paths"].items():
        for method, op_doc in methods.items():
            _operation(op_doc, _endpoint_name(op_doc.get("operationId", ""), path, method))
    return doc


def _endpoint_name(operation_id: str, path: str, method: str) -> str:
    """The handler's name behind FastAPI's default operation id ("{name}{path}_{method}", non-word
    characters as "_"); the id itself when no handler in ``OPERATIONS`` matches."""
    for name in OPERATIONS:
        if operation_id == re.sub(r"\W", "_", f"{name}{path}") + f"_{method}":
            return name
    return operation_id


def install(app: FastAPI) -> None:
    def build() -> dict[str, Any]:
        if not app.openapi_schema:
            app.openapi_schema = build_document(app)
        return app.openapi_schema

    app.openapi = build  # type: ignore[method-assign]
