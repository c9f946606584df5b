"""Games: create, read (any point), command, options, events, turn replays."""

from __future__ import annotations

import zlib
from typing import Annotated, Any

import msgspec
from fastapi import APIRouter, Path, Query, Request, Response

from service.events.clocks import clock_from_options
from service.events.deadlines import rule_from_options
from service.events.errors import InvalidRequest
from service.events.inputs import INT64_MAX
from service.events.reading import TURN_STEPS

from ..bodies import created_body, decode_body
from ..deps import GateDep, ReaderDep, ServiceDep, ViewerDep, bearer, client_address
from ..encoding import command_body
from ..jsonresponse import MsgspecResponse
from ..umpire_automation import umpire_option
from .deadlines import clock_of, deadline_of, deadlines

router = APIRouter(prefix="/v1/games", tags=["games"])
GZIP_FROM = 1024  # bytes: a smaller body is sent as it is (its gzip header would be most of what it saves)
_json = msgspec.json.Encoder()


def accepts_gzip(request: Request) -> bool:
    """``Accept-Encoding`` lists gzip (or ``*``), not with ``q=0``."""
    for part in request.headers.get("accept-encoding", "").lower().split(","):
        name, _, params = part.partition(";")
        if name.strip() in ("gzip", "*"):
            q = params.strip()
            try:
                return not q.startswith("q=") or float(q[2:]) > 0
            except ValueError:
                return False
    return False


def view_response(request: Request, content: Any) -> Response:
    """The game view (and options) as JSON, gzipped when the client accepts it and the body is worth it
    (a GSC2 view is ~20 KB, ~3 KB gzipped): a phone's first load and every fallback read move less."""
    body = _json.encode(content)
    if len(body) >= GZIP_FROM and accepts_gzip(request):
        packed = zlib.compressobj(5, zlib.DEFLATED, 31)  # 31: a gzip wrapper
        body = packed.compress(body) + packed.flush()
        return Response(
            body, media_type="application/json", headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"}
        )
    return Response(body, media_type="application/json", headers={"Vary": "Accept-Encoding"})


class CreateGame(msgspec.Struct, forbid_unknown_fields=True):
    ruleset: str
    scenario: str | dict[str, Any]
    options: dict[str, Any] = {}


@router.post(
    "",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Create a game; returns one token per seat and an umpire token (shown once)",
    openapi_extra={
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CreateGame"}}},
        }
    },
)
async def create_game(request: Request, service: ServiceDep) -> MsgspecResponse:
    body = decode_body(await request.body(), CreateGame)
    deadline = rule_from_options(body.ruleset, body.options)  # checked before the game exists (issue 39)
    clock = clock_from_options(body.ruleset, body.options)
    automated = umpire_option(body.ruleset, body.options)
    created = await service.create_game(body.ruleset, body.scenario, body.options)
    if deadline is not None and (scheduler := deadlines(request)) is not None:
        await scheduler.install(created.game_id, deadline, await service.head(created.game_id))
    if clock is not None and (scheduler := deadlines(request)) is not None:
        await scheduler.clocks.install(created.game_id, clock, await service.head(created.game_id))
    if automated and (umpire := getattr(request.app.state, "umpire", None)) is not None:
        await umpire.act(created.game_id)  # the map, at once
    return MsgspecResponse(created_body(created), status_code=201)


@router.get("/{game_id}", response_class=MsgspecResponse, summary="The caller's view of the game, now or at a seq")
async def get_game(
    game_id: str,
    request: Request,
    viewer: ViewerDep,
    reader: ReaderDep,
    at: Annotated[int | None, Query(ge=0, le=INT64_MAX)] = None,
) -> Response:
    summary = await reader.summary(game_id, viewer, at)
    summary["deadline"] = await deadline_of(request, game_id) if at is None else None  # the time left now
    summary["clock"] = await clock_of(request, game_id) if at is None else None
    return view_response(request, summary)


COMMAND_HEADERS = [
    {
        "name": "Authorization",
        "in": "header",
        "required": False,
        "schema": {"type": "string"},
        "description": "Bearer <seat or umpire token>",
    },
    {"name": "Idempotency-Key", "in": "header", "required": False, "schema": {"type": "string", "maxLength": 200}},
    {
        "name": "If-Match",
        "in": "header",
        "required": False,
        "schema": {"type": "string"},
        "description": "the expected version (409 when the game has moved on)",
    },
]


@router.post(
    "/{game_id}/commands",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Issue one command: {command: {...}, salt?: str}",
    openapi_extra={
        "parameters": COMMAND_HEADERS,
        "requestBody": {
            "required": True,
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/CommandRequest"}}},
        },
    },
)
async def post_command(game_id: str, request: Request, gate: GateDep) -> MsgspecResponse:
    # served by the lean ASGI endpoint ahead of the router (api/fast/command_endpoint.py) in the app; this
    # route describes it in the OpenAPI document and serves a router mounted without it
    headers = request.headers
    token = bearer(headers.get("authorization"))
    address = client_address(request)
    viewer = await gate.viewer(game_id, token, address)
    key = headers.get("idempotency-key")
    if key is not None and len(key) > 200:
        raise InvalidRequest("Idempotency-Key is limited to 200 characters", field="Idempotency-Key")
    expected = expected_version(headers.get("if-match"))
    result = await gate.command(game_id, viewer, token, address, await request.body(), key, expected)
    return MsgspecResponse(command_body(result), status_code=result.status)


def expected_version(if_match: str | None) -> int | None:
    if if_match is None:
        return None
    text = if_match.strip().removeprefix("W/").strip('"')
    if not (text.isascii() and text.isdigit() and len(text) <= len(str(INT64_MAX))):
        raise InvalidRequest("If-Match must be the expected version number", field="If-Match")
    return int(text)


@router.get("/{game_id}/options", response_class=MsgspecResponse, summary="Complete legal commands for the caller")
async def get_options(game_id: str, request: Request, viewer: ViewerDep, reader: ReaderDep) -> Response:
    return view_response(request, await reader.options(game_id, viewer))


@router.get("/{game_id}/events", response_class=MsgspecResponse, summary="Envelopes visible to the caller")
async def get_events(
    game_id: str,
    viewer: ViewerDep,
    reader: ReaderDep,
    after: Annotated[int, Query(ge=0, le=INT64_MAX)] = 0,
    limit: Annotated[int, Query(ge=1, le=10000)] = 1000,
) -> MsgspecResponse:
    events = await reader.events(game_id, viewer, after=after, limit=limit)
    return MsgspecResponse({"events": events})


@router.get("/{game_id}/turns/{turn}", response_class=MsgspecResponse, summary="Replay of one turn, explained")
async def get_turn(
    game_id: str,
    turn: Annotated[int, Path(ge=0, le=INT64_MAX)],
    viewer: ViewerDep,
    reader: ReaderDep,
    phase: Annotated[str | None, Query(max_length=64)] = None,
    after: Annotated[int, Query(ge=0, le=INT64_MAX, description="steps after this seq (a page's next_after)")] = 0,
    limit: Annotated[int, Query(ge=1, le=TURN_STEPS)] = TURN_STEPS,
) -> MsgspecResponse:
    return MsgspecResponse(await reader.turn_replay(game_id, viewer, turn, phase, after, limit))
