"""Disputes and what-ifs: umpire rewinds, forks, battle files (export / import)."""

from __future__ import annotations

from typing import Annotated

import msgspec
from fastapi import APIRouter, Query, Request
from starlette.responses import Response

from service.events.inputs import INT64_MAX, check_lines
from service.events.portability import ImportLimits, export_game, fork_game, import_game
from service.events.rewind import rewind

from ..bodies import created_body, decode_body
from ..deps import GateDep, KeyringDep, ServiceDep, ViewerDep, client_address
from ..jsonresponse import MsgspecResponse

router = APIRouter(prefix="/v1/games", tags=["replay"])


class RewindRequest(msgspec.Struct, forbid_unknown_fields=True):
    to_seq: int | None = None
    turn: int | None = None
    phase: str | None = None
    reason: str = ""


@router.post(
    "/{game_id}/rewind",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Umpire: rewind to a seq or to the start of a turn/phase (superseded events are kept)",
)
async def post_rewind(game_id: str, request: Request, viewer: ViewerDep, service: ServiceDep) -> MsgspecResponse:
    body = decode_body(await request.body() or b"{}", RewindRequest)
    rewound = await rewind(service, game_id, viewer, body.to_seq, body.turn, body.phase, body.reason)
    return MsgspecResponse(msgspec.json.encode(rewound), status_code=201)


@router.post(
    "/{game_id}/fork",
    status_code=201,
    response_class=MsgspecResponse,
    summary="A new sandbox game from any point of this one, linked to its origin (a seq inside a command: "
    "from that command's end)",
)
async def post_fork(
    game_id: str, viewer: ViewerDep, service: ServiceDep, at: Annotated[int | None, Query(ge=1, le=INT64_MAX)] = None
) -> MsgspecResponse:
    created = await fork_game(service, game_id, viewer, at)
    # a seq inside a command forks from that command's end: ``forked_at`` says where, ``requested_at`` what was asked
    asked = {"requested_at": at} if at is not None and at != created.forked_at else {}
    return MsgspecResponse(
        created_body(created, forked_from=game_id, forked_at=created.forked_at, **asked), status_code=201
    )


@router.get("/{game_id}/export", summary="Battle file: header + the caller's envelopes as JSON lines")
async def get_export(
    game_id: str, request: Request, viewer: ViewerDep, service: ServiceDep, keyring: KeyringDep
) -> Response:
    body = await export_game(service, game_id, viewer, keyring)
    # the same bytes as application/octet-stream to a client that asks for that (generated SDKs download
    # files so; openapi/openapi.json offers both)
    binary = "application/octet-stream" in request.headers.get("accept", "")
    return Response(
        body,
        media_type="application/octet-stream" if binary else "application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{game_id}.salvo.jsonl"'},
    )


@router.post(
    "/import",
    status_code=201,
    response_class=MsgspecResponse,
    summary="Replay, validate and check the signature of a battle file; creates a new game from it",
)
async def post_import(
    request: Request,
    service: ServiceDep,
    keyring: KeyringDep,
    gate: GateDep,
    allow_unverified: Annotated[
        bool,
        Query(description="accept an unsigned or foreign-signed file, marked unverified in its view and later exports"),
    ] = False,
) -> MsgspecResponse:
    gate.limits.imported(client_address(request))  # 429 past SALVO_RATE_IMPORTS_PER_ADDRESS
    body = await request.body()
    check_lines(body)
    settings = request.app.state.settings
    limits = ImportLimits(settings.max_import_events, settings.max_game_bytes)
    created, header, unverified = await import_game(service, body, keyring, allow_unverified, limits)
    return MsgspecResponse(
        created_body(created, imported_from=header.game_id, verified=unverified is None, unverified=unverified),
        status_code=201,
    )
